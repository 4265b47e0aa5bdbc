"""The rule registry's names and summaries as data, for the engine's hover composition (checking/hover.py).

The engine imports no rule; whoever composes a hover (the language server) passes these in.
"""

from __future__ import annotations

from functools import cache
from types import MappingProxyType

from hf_cache_lint.checking.hover import RuleDoc, RuleDocs
from hf_cache_lint.rules import ALL_RULES


@cache
def rule_docs() -> RuleDocs:
    """Every registered rule's code, name and summary, by code (read-only; built once)."""
    return MappingProxyType({r.code: RuleDoc(r.code, r.name, r.summary) for r in ALL_RULES})
