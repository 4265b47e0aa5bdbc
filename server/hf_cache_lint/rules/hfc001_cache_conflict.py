"""HFC001 cache-conflict: a Cache object and `cache_implementation` meet in one generate call."""

from __future__ import annotations

from collections.abc import Iterable

from hf_cache_lint.engine.analysis import Analysis
from hf_cache_lint.engine.findings import Finding, Severity
from hf_cache_lint.rules.base import Rule


class CacheConflict(Rule):
    code = "HFC001"
    name = "cache-conflict"
    summary = "A cache object and `cache_implementation` reach the same `generate()` call."
    default_severity = Severity.ERROR
    docs = "(docs follow)"

    def check(self, analysis: Analysis) -> Iterable[Finding]:
        return ()
