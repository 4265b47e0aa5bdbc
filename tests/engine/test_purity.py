"""engine/ and rules/ stay free of pygls and lsprotocol (lsp/ is the only adapter)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[2] / "server" / "hf_cache_lint"
FILES = sorted((PKG / "engine").rglob("*.py")) + sorted((PKG / "rules").rglob("*.py"))


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(PKG)))
def test_module_does_not_import_lsp_libraries(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
            [node.module or ""] if isinstance(node, ast.ImportFrom) else []
        for name in names:
            assert name.split(".")[0] not in ("pygls", "lsprotocol"), f"{path.name} imports {name}"
