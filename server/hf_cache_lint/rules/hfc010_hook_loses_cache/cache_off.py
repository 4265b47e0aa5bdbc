"""Whether a model class of the module turns its cache off in its own `forward` (AirLLM's `AirLLMBaseModel.forward`:
`if cache_utils_installed: use_cache = False`, "we don't support kv cache for new version yet"): such a model never
fills a cache, so its `prepare_inputs_for_generation` feeds the whole sequence at every step whatever it is handed,
and losing the cache under 5.24's `cache=` changes nothing (the oracle: `recall:heldout22/airllm_layered_generate.py`
al_cache_len, OK on 5.24.0 and 5.25.0, the same tokens as without a cache)."""

from __future__ import annotations

import re

from hf_cache_lint.engine.interpreter.hook_trees import suite, walk
from hf_cache_lint.engine.output.analysis import Analysis
from hf_cache_lint.engine.syntax.nodes import Node, code

_OFF = re.compile(r"use_cache\s*=\s*False")


def forward_turns_cache_off(analysis: Analysis, qualname: str) -> bool:
    """The class holding method `qualname` (`Cls.prepare_inputs_for_generation`) defines a `forward` whose body
    sets `use_cache = False` as a statement of its own, or under an `if` testing a bare name (a module flag), and
    passes `use_cache=use_cache` on."""
    if not _OFF.search(analysis.text) or analysis.tree is None or qualname.count(".") != 1:
        return False
    owner = qualname.split(".")[0]
    for cls in walk(analysis.tree):
        if cls.type != "classdef" or cls.children[1].value != owner:
            continue
        for stmt in suite(cls.children[-1]):
            fn = stmt.children[-1] if stmt.type == "decorated" else stmt
            if fn.type == "funcdef" and fn.children[1].value == "forward":
                return _off(fn)
    return False


def _off(fn: Node) -> bool:
    body = suite(fn.children[-1])
    if not re.search(r"\buse_cache\s*=\s*use_cache\b", code(fn.children[-1])):
        return False
    for stmt in body:
        if _sets_off(stmt):
            return True
        if stmt.type == "if_stmt" and len(stmt.children) == 4 and stmt.children[1].type == "name" and \
                any(_sets_off(s) for s in suite(stmt.children[3])):
            return True
    return False


def _sets_off(stmt: Node) -> bool:
    return stmt.type == "simple_stmt" and _OFF.fullmatch(code(stmt.children[0]).strip()) is not None
