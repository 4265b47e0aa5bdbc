"""Helpers for engine tests: check a snippet for a version and look at its HFC001 findings."""

from __future__ import annotations

from pathlib import Path

import pytest

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.base.findings import Finding
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.target import Target


class Checker:
    def __init__(self, root: Path) -> None:
        self.root = root

    def __call__(self, code: str, version: str = "5.24.0", *, name: str = "main.py",
                 hub: Path | None = None, code_filter: str | None = "HFC001") -> list[Finding]:
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(code)
        ctx = Context(target=Target.of(version), workspace=self.root, hf_hub_cache=hub)
        found = check_source(code, str(path), context=ctx).findings
        return [f for f in found if code_filter is None or f.code == code_filter]


@pytest.fixture
def check(tmp_path: Path) -> Checker:
    return Checker(tmp_path)


def lines(findings: list[Finding]) -> list[int]:
    return [f.span.start.line for f in findings]
