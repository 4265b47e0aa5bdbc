"""docs/rules/*.md are generated from the rule modules and must not be stale."""

from __future__ import annotations

from pathlib import Path

import pytest

from hf_cache_lint.rules import ALL_RULES
from hf_cache_lint.rules.docs_gen import render

DOCS = Path(__file__).resolve().parents[2] / "docs" / "rules"


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda r: r.code)
def test_generated_docs_are_current(rule: object) -> None:
    path = DOCS / f"{rule.code}.md"  # type: ignore[attr-defined]
    assert path.is_file(), "run: python scripts/gen_docs.py"
    assert path.read_text(encoding="utf-8") == render(rule), "stale docs: run python scripts/gen_docs.py"  # type: ignore[arg-type]
