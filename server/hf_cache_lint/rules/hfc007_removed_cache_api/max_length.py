"""A dynamic cache's maximum length tested against None: `get_max_length()` came back in 5.13 with another answer
for "no maximum", and `get_max_cache_shape()` changed its answer in 4.54.

Read from the wheels and run on the oracle (docs/facts.md): 4.41-4.48's `DynamicCache.get_max_length()` returned
None (no maximum; 4.46-4.48 through the deprecated alias of `get_max_cache_shape()`); the method is missing from 4.49
to 5.12 (HFC007's removed-method finding there); from 5.13.0 it returns -1 for a
DynamicCache of full-attention layers and the window for one with sliding-window layers (a StaticCache: its
`max_cache_len`, as on 4.4x). `get_max_cache_shape()` (4.46.1-5.19.0) returned None while DynamicCache defined it
itself (to 4.53.3: `return None`), and -1 from 4.54.0, where `Cache` answers for the first layer (`DynamicLayer`:
`return -1`; the oracle: None on 4.52.4 and 4.53.0, -1 on 4.57.6, 5.0.0, 5.3.0 and 5.13.1). A None test (`n is
None`, `not n`, `n or default`) that meant "no maximum" is never true again: the code takes the other branch, with no
error.

Code written across releases asks one and falls back to the other (`try: n = c.get_max_cache_shape()` / `except
Exception: n = c.get_max_length()`, ChatTTS): the pair is one value, reported at the try's call; the handler's call
runs only where the try's method is gone.
"""

from __future__ import annotations

import re
from functools import partial

from hf_cache_lint.engine.base.findings import Finding, Severity
from hf_cache_lint.engine.environment import releases
from hf_cache_lint.engine.environment.release_version import Version
from hf_cache_lint.engine.facts.cache_use import KIND as CACHE_USE
from hf_cache_lint.engine.facts.cache_use import CacheUse
from hf_cache_lint.engine.output.analysis import Analysis
from hf_cache_lint.engine.syntax.nodes import Node, code
from hf_cache_lint.rules.base import Rule

_MODULE = "transformers.cache_utils"
# The classes whose 4.4x answer was None: a DynamicCache, or a model output's cache of a class the code does not
# say (generate's and a forward's default is a DynamicCache), or one only narrowed to `Cache` (`isinstance(c,
# Cache)`: Gemma-10M's hook, given generate's DynamicCache; the oracle: this rule's example on 5.23.0-5.25.0,
# `recall:heldout15/gemma10m_infini_hook.py` gm_max_length on 5.23.0).
_DYNAMIC = (None, "DynamicCache", "Cache")
_SHAPE = "get_max_cache_shape"
_METHODS = frozenset({"get_max_length", _SHAPE})
EFFECT = ("returns -1 for a DynamicCache without a maximum (the window size once it has sliding-window layers), "
          "never None, so the test takes the other branch (silently there; code that then uses -1 as a maximum may "
          "raise further on)")
INSTEAD = ("treat a negative answer as no maximum (`n is None or n < 0`); transformers 4.49-5.12 have no "
           "`get_max_length()` and 5.20+ no `get_max_cache_shape()`")


def returns_since(target: Version) -> Version | None:
    """The first release of the run of releases up to `target` that have `DynamicCache.get_max_length` after a
    release without it (5.13.0 on the release table), None when `target` lacks it or is in the first run (4.41-4.48,
    where the answer was None)."""
    known = [r for r in releases.known_releases() if r <= target]
    first = None
    for r in reversed(known):
        if releases.member(_MODULE, "DynamicCache", "get_max_length", r) is None:
            return first
        first = r
    return None  # the method since the oldest release: the 4.4x run that answered None


def shape_minus_one_since(target: Version) -> Version | None:
    """The first release of the run up to `target` where `DynamicCache.get_max_cache_shape()` answers -1 (it is
    `Cache`'s, not DynamicCache's own `return None`: 4.54.0 on the release table), None when `target` lacks the
    method or answers None."""
    first = None
    for r in reversed([r for r in releases.known_releases() if r <= target]):
        if releases.member(_MODULE, "DynamicCache", _SHAPE, r) is None \
                or releases.value(f"member:{_MODULE}.DynamicCache.{_SHAPE}", r) is not None:
            return first
        first = r
    return first


def _since(method: str, target: Version) -> Version | None:
    return returns_since(target) if method == "get_max_length" else shape_minus_one_since(target)


def _has(method: str, target: Version) -> bool:
    return releases.member(_MODULE, "DynamicCache", method, target) is not None


def fallback_idle(use: CacheUse, target: Version) -> bool:
    """A handler's call of a try/except pair (`paired` "try:<method>") where the try's method exists on the target:
    the handler does not run for a missing method (the removed-method finding would be false there)."""
    if use.paired is None or not use.paired.startswith("try:") or use.module != _MODULE:
        return False
    return releases.member(_MODULE, use.cls or "DynamicCache", use.paired[4:], target) is not None


def finding(rule: Rule, analysis: Analysis, use: CacheUse) -> Finding | None:
    if use.op != "call" or use.name not in _METHODS or use.none_test is None or use.what != "cache" \
            or use.cls not in _DYNAMIC:
        return None
    if use.paired is not None and use.paired.startswith("try:"):
        return None  # the handler of a pair: the try's call answers for the value (below)
    if use.cls == "Cache" and any(o is not use and o.span == use.span and o.cls in _DYNAMIC[:2] and o.none_test
                                  for o in analysis.of(CACHE_USE)):
        return None  # the same call read as a DynamicCache's too (a helper two callers test): that use reports it
    target = analysis.context.target
    if _dynamic_raised_before(analysis, use):
        return None  # a DynamicCache never gets here: its own branch above read a member the target lacks
    method, gone = use.name, None
    if use.paired is not None and not _has(method, target.version) and use.paired[7:] in _METHODS:
        # The try's method is gone: its AttributeError is caught, and the name holds what the handler returns.
        method = use.paired[7:]
        gone = releases.member_gone_since(_MODULE, "DynamicCache", use.name, target.version)
    since = _since(method, target.version)
    if since is None:
        return None  # the method is missing there (the removed-method finding says so), or answers None
    call = f"`{use.receiver}.{use.name}()`"
    if gone is None:
        message = (f"{call} is tested against None (`{use.none_test}`), but from transformers {since} (the target is "
                   f"{target}) `{method}()` {EFFECT}. Instead, {INSTEAD}.")
    else:
        message = (f"{call} is tested against None (`{use.none_test}`), but on transformers {target} `{use.name}()` is "
                   f"gone (since {gone}; the `except` catches its AttributeError) and the handler's `{method}()` "
                   f"(from {since}) {EFFECT}. Instead, {INSTEAD}.")
    # A Warning: nothing raises (HFC007's silent uses are Warnings too).
    return rule.report(use.span, message, severity=Severity.WARNING,
                       story=partial(_story, rule, use, call, str(since), str(target)))


def _dynamic_raised_before(analysis: Analysis, use: CacheUse) -> bool:
    """Before `use`, in the same function, the code reads off the same receiver a member the target's DynamicCache
    lacks, inside `if isinstance(<receiver>, DynamicCache):` and under no other test nor `try` (Time-MoE's hook:
    `past_length = past_key_values.seen_tokens` there, then `get_max_length()` for any Cache): a DynamicCache raises
    AttributeError at that read (HFC007's finding), so the caches that reach `use` are of other classes, whose
    maximum is their own (a StaticCache's `max_cache_len`; the oracle: `recall:heldout25/time_moe_forecast.py`
    tm_max_length, OK on 5.23.0-5.25.0 for a StaticCache, tm_seen_tokens raising first for a DynamicCache)."""
    tree = analysis.tree
    if tree is None or "DynamicCache" not in analysis.text:
        return False
    target = analysis.context.target
    here = tree.get_leaf_for_position((use.span.start.line, use.span.start.column), include_prefixes=True)
    function = _enclosing(here, ("funcdef",))
    if here is None or function is None:
        return False
    for other in analysis.of(CACHE_USE):
        if other.op != "read" or other.receiver != use.receiver or other.span.start.line >= use.span.start.line or \
                target.removed_member(_MODULE, "DynamicCache", other.name) is None:
            continue
        leaf = tree.get_leaf_for_position((other.span.start.line, other.span.start.column), include_prefixes=True)
        if leaf is None or _enclosing(leaf, ("funcdef",)) is not function:
            continue
        tested, node = False, leaf.parent
        while node is not None and node is not function:
            if node.type == "try_stmt":
                break  # its AttributeError may be caught
            if node.type in ("if_stmt", "while_stmt", "for_stmt") and not _holds(node, here):
                if not _dynamic_branch(node, leaf, use.receiver):
                    break  # under a loop or another test: not every DynamicCache gets there
                tested = True
            node = node.parent
        if node is function and tested:
            return True
    return False


def _enclosing(node: Node | None, types: tuple[str, ...]) -> Node | None:
    while node is not None and node.type not in types:
        node = node.parent
    return node


def _holds(node: Node, leaf: Node) -> bool:
    start: tuple[int, int] = node.start_pos
    end: tuple[int, int] = node.end_pos
    at: tuple[int, int] = leaf.start_pos
    return start <= at < end


def _dynamic_branch(node: Node, leaf: Node, receiver: str) -> bool:
    """`leaf` sits in the first branch of `if isinstance(receiver, DynamicCache):` (node an if_stmt)."""
    kids = node.children
    if node.type != "if_stmt" or len(kids) < 4 or not _holds(kids[3], leaf):
        return False
    test = re.sub(r"\s+", "", code(kids[1]))
    return test == f"isinstance({receiver},DynamicCache)"


def _story(rule: Rule, use: CacheUse, call: str, since: str, target: str) -> str:
    return "\n".join([
        f"**{rule.code} {rule.name}**: {call} changed its answer for a cache without a maximum.",
        "",
        f"- **Changed in**: {since} (a DynamicCache answered None: `get_max_length()` on 4.41-4.48, "
        "`get_max_cache_shape()` on 4.46-4.53; 4.49-5.12 have no `get_max_length()`, 5.20+ no `get_max_cache_shape()`).",
        f"- **Tested here**: `{use.none_test}`.",
        f"- **Instead**: {INSTEAD}.",
        "",
        f"What this line does (transformers {target}): it {EFFECT}.",
    ])


__all__ = ["fallback_idle", "finding", "returns_since", "shape_minus_one_since"]
