"""The import directions allowed between hf_cache_lint's packages and top-level modules (docs/architecture.md,
"Layers"): lower layers never import higher ones, whether at module level, inside a function (the lazy
imports), under `if TYPE_CHECKING:`, relatively, or through `importlib.import_module("hf_cache_lint...")`.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PKG = ROOT / "server" / "hf_cache_lint"

# Layer -> the layers it may import (besides itself), bottom up. A layer is a subpackage (engine, rules,
# checking, cli_support, lsp), a top-level module (settings, pyproject, ...), or the package's own __init__
# ("hf_cache_lint": the version). A new subpackage or top-level module must be added here, with its place.
ALLOWED: dict[str, frozenset[str]] = {
    "hf_cache_lint": frozenset(),
    "engine": frozenset(),
    "rules": frozenset({"engine"}),
    "settings": frozenset({"engine"}),
    "upgrade_diff": frozenset({"engine"}),
    "pyproject": frozenset({"engine", "settings"}),
    "checking": frozenset({"engine", "rules", "settings"}),
    "fixcheck": frozenset({"engine", "settings", "checking"}),
    "cli_support": frozenset({"hf_cache_lint", "engine", "rules", "settings", "upgrade_diff", "pyproject", "checking",
                              "fixcheck"}),
    "lsp": frozenset({"hf_cache_lint", "engine", "settings", "upgrade_diff", "pyproject", "checking", "fixcheck"}),
    "cli": frozenset({"hf_cache_lint", "rules", "pyproject", "cli_support", "lsp"}),
    "__main__": frozenset({"cli"}),
}

# Third-party packages only one layer may import: the protocol stays in the adapter.
ONLY_IN = {"pygls": "lsp", "lsprotocol": "lsp"}


def _module(rel: str) -> tuple[list[str], bool]:
    """`engine/hover.py` -> (["hf_cache_lint", "engine", "hover"], False); `__init__.py` files are packages."""
    parts = ["hf_cache_lint", *Path(rel).with_suffix("").parts]
    if parts[-1] == "__init__":
        return parts[:-1], True
    return parts, False


def _layer(parts: list[str]) -> str:
    return parts[1] if len(parts) > 1 else "hf_cache_lint"


def _imported(tree: ast.AST, module: list[str], is_package: bool) -> Iterator[tuple[int, str]]:
    """(line, dotted module) for every import anywhere in the tree."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: from the module's own package, one level up per extra dot
                package = module if is_package else module[:-1]
                base = package[:len(package) - (node.level - 1)]
                name = ".".join([*base, *([node.module] if node.module else [])])
            else:
                name = node.module or ""
            if name == "hf_cache_lint":  # `from hf_cache_lint import lsp` imports the subpackage lsp
                for alias in node.names:
                    sub = alias.name
                    is_module = (PKG / sub).is_dir() or (PKG / f"{sub}.py").is_file()
                    yield node.lineno, f"hf_cache_lint.{sub}" if is_module else name
            else:
                yield node.lineno, name
        elif (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)
              and isinstance(node.args[0].value, str)
              and ((isinstance(node.func, ast.Attribute) and node.func.attr == "import_module")
                   or (isinstance(node.func, ast.Name) and node.func.id in ("import_module", "__import__")))):
            yield node.lineno, node.args[0].value


def violations(files: Mapping[str, str]) -> list[str]:
    """`path inside hf_cache_lint/ -> source`: one line for each import against ALLOWED or ONLY_IN."""
    out = []
    for rel, source in sorted(files.items()):
        module, is_package = _module(rel)
        layer = _layer(module)
        if layer not in ALLOWED:
            out.append(f"{rel}: layer {layer!r} is not in ALLOWED (add it with the layers it may import)")
            continue
        for line, name in _imported(ast.parse(source, rel), module, is_package):
            top = name.split(".")[0]
            if top in ONLY_IN and layer != ONLY_IN[top]:
                out.append(f"{rel}:{line}: {layer} imports {name} (only {ONLY_IN[top]} may)")
            if top != "hf_cache_lint":
                continue
            target = _layer(name.split("."))
            if target == layer:
                continue
            if target not in ALLOWED:
                out.append(f"{rel}:{line}: imports {name}, whose layer {target!r} is not in ALLOWED")
            elif target not in ALLOWED[layer]:
                allowed = ", ".join(sorted(ALLOWED[layer]))
                out.append(f"{rel}:{line}: {layer} imports {name} (" + (
                    f"{layer} may import only {allowed})" if allowed else f"{layer} imports nothing of hf_cache_lint)"))
    return out


def package_files() -> dict[str, str]:
    return {p.relative_to(PKG).as_posix(): p.read_text(encoding="utf-8") for p in sorted(PKG.rglob("*.py"))}


def test_every_import_follows_the_allowed_directions() -> None:
    assert violations(package_files()) == []


def test_the_table_names_exactly_the_package_s_layers() -> None:
    """A layer removed or renamed leaves no stale row (each row is a real subpackage or top-level module)."""
    real = {"hf_cache_lint"} | {p.name for p in PKG.iterdir() if p.is_dir() and any(p.glob("*.py"))} | {
        p.stem for p in PKG.glob("*.py") if p.name != "__init__.py"}  # (engine/ is a namespace package)
    assert set(ALLOWED) == real


def test_the_allowed_directions_have_no_cycle() -> None:
    """A layering: every layer can be placed above all it may import (so nothing imports itself back)."""
    placed: list[str] = []
    left = dict(ALLOWED)
    while left:
        ready = [name for name, deps in left.items() if deps <= set(placed)]
        assert ready, f"a cycle among {sorted(left)}"
        placed += ready
        for name in ready:
            del left[name]


@pytest.mark.parametrize(("rel", "source", "expected"), [
    ("engine/x.py", "def f():\n    from hf_cache_lint.rules import ALL_RULES\n",
     "engine/x.py:2: engine imports hf_cache_lint.rules"),
    ("engine/x.py", "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from hf_cache_lint.settings import Settings\n",
     "engine/x.py:3: engine imports hf_cache_lint.settings"),
    ("engine/sub/__init__.py", "from ...checking import source\n", "engine/sub/__init__.py:1: engine imports hf_cache_lint.checking"),
    ("engine/x.py", "from . import hover\nfrom .. import lsp\n", "engine/x.py:2: engine imports hf_cache_lint.lsp"),
    ("rules/x.py", "import importlib\nimportlib.import_module('hf_cache_lint.checking.source')\n",
     "rules/x.py:2: rules imports hf_cache_lint.checking.source"),
    ("lsp/x.py", "from hf_cache_lint.cli_support.config import load_config\n", "lsp/x.py:1: lsp imports hf_cache_lint.cli_support"),
    ("lsp/x.py", "import hf_cache_lint.rules\n", "lsp/x.py:1: lsp imports hf_cache_lint.rules"),
    ("cli_support/x.py", "from hf_cache_lint import lsp\n", "cli_support/x.py:1: cli_support imports hf_cache_lint.lsp"),
    ("settings.py", "from hf_cache_lint import rules\n", "settings.py:1: settings imports hf_cache_lint.rules"),
    ("checking/x.py", "def f():\n    import pygls.server\n", "checking/x.py:2: checking imports pygls.server (only lsp may)"),
    ("extras.py", "import os\n", "extras.py: layer 'extras' is not in ALLOWED"),
])
def test_a_violation_is_reported(rel: str, source: str, expected: str) -> None:
    found = violations({rel: source})
    assert len(found) == 1 and found[0].startswith(expected), found


@pytest.mark.parametrize(("rel", "source"), [
    ("engine/x.py", "from hf_cache_lint.engine.findings import Finding\nfrom . import hover\n"),
    ("rules/x.py", "def f():\n    from hf_cache_lint.engine import interp\n"),
    ("checking/x.py", "from hf_cache_lint.rules import ALL_RULES\nfrom hf_cache_lint.settings import Settings\n"),
    ("lsp/x.py", "import pygls\nfrom hf_cache_lint import __version__\nfrom hf_cache_lint.checking.rule_docs import rule_docs\n"),
    ("cli.py", "from hf_cache_lint import __version__\nfrom hf_cache_lint.lsp.server import start\n"),
])
def test_imports_the_table_allows_pass(rel: str, source: str) -> None:
    assert violations({rel: source}) == []


def test_the_architecture_doc_lists_the_table() -> None:
    """docs/architecture.md's "Layers" block is this table, line for line (so the doc says what is enforced)."""
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    for layer, deps in ALLOWED.items():
        line = f"    {layer:<14}-> {', '.join(d for d in ALLOWED if d in deps) or '(nothing)'}"
        assert line in doc.splitlines(), line
