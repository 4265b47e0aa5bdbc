"""Placeholder: the abstract interpreter lands in the next commit."""

from __future__ import annotations

import parso

from hf_cache_lint.engine.analysis import Analysis
from hf_cache_lint.engine.context import Context

_GRAMMAR = parso.load_grammar()


def analyse(text: str, path: str, context: Context) -> Analysis:
    tree = _GRAMMAR.parse(text, error_recovery=True)
    return Analysis(text=text, path=path, context=context, tree=tree)
