"""Removed ways of reading a cache or model the interpreter says the code has, found in the tree for the
removed-API reader (engine/interpreter/removed_api.py): `cache[i]`, `cache.key_cache[i]`, `cache.get_max_cache_shape()`,
`model._get_cache()`, `for k, v in cache:`, and `getattr(cache, "key_cache", [])` with an empty default (silent)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from hf_cache_lint.engine.base.findings import Span
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.engine.facts.removed_api_use import RemovedApiUse
from hf_cache_lint.engine.interpreter.removed_members import SILENT_STORES, Reads
from hf_cache_lint.engine.interpreter.removed_scopes import Scope, handled, reported_elsewhere
from hf_cache_lint.engine.syntax.nodes import Node, call_args, code, span


def cache_reads(node: Node, target: Target, scope: Scope, reads: Reads) -> Iterator[RemovedApiUse]:
    """`cache[i]`, `cache.get_max_cache_shape()`, `static.max_cache_len`, `cache.key_cache[i]`, `model._get_cache()`,
    ... on a cache or model the interpreter says the code has."""
    kids = node.children
    for i in range(1, len(kids)):
        trailer = kids[i]
        if trailer.type != "trailer":
            continue
        opener = trailer.children[0].value
        if opener == ".":
            if trailer.children[1].value not in reads.names:
                continue
            found = reads.get(trailer.children[1], "name")
            read = trailer.children[1].value
        elif opener == "[" and reads.subscripts:
            found = reads.get(trailer, "subscript")
            read = "subscript"
        else:
            continue
        if found is None or (reported_elsewhere(read, scope, found.use.guard) and
                             not _model_read_untested(found.use.what, _source(kids[:i]), scope)):
            continue
        last = i == len(kids) - 1
        # `cache[0] = x` stores (4.57 had no item assignment either); `cache.key_cache = [...]` binds a plain
        # attribute; `cache.key_cache[i] = k` reads `key_cache` first, so it raises like any read.
        silent = found.use.op == "write"
        if (opener == "[" or last) and is_target(node) and not silent:
            continue
        cache, removed, shown = found.use, found.removed, found.shown
        receiver = _source(kids[:i])
        if read == "subscript":
            index = trailer.children[1]
            nxt = kids[i + 1] if i + 1 < len(kids) else None
            part = _part(nxt)
            end = nxt if part is not None else trailer
            yield RemovedApiUse("read", read, receiver, removed, Span(span(kids[0]).start, span(trailer).end),
                                Span(span(kids[0]).start, span(end).end), condition=scope.condition,
                                deferred=scope.deferred, cache=cache, shown_class=shown,
                                index=code(index) if index.type != "subscriptlist" else None, part=part)
        elif silent:
            name = trailer.children[1]
            yield RemovedApiUse("read", read, receiver, removed, span(name), None, condition=scope.condition,
                                deferred=scope.deferred, cache=cache, shown_class=shown, silent=True)
        elif read in SILENT_STORES:
            # `cache.key_cache[i]`: the read `cache.layers[i].keys` replaces (a store into it: no replacement)
            nxt = kids[i + 1] if not last else None
            index = nxt.children[1] if nxt is not None and nxt.type == "trailer" and nxt.children[0].value == "[" \
                else None
            plain = index is not None and index.type != "subscriptlist" and ":" not in code(index) and \
                not (i + 1 == len(kids) - 1 and is_target(node))
            name = trailer.children[1]
            yield RemovedApiUse("read", read, receiver, removed, span(name),
                                Span(span(kids[0]).start, span(nxt).end) if plain and nxt is not None else None,
                                condition=scope.condition, deferred=scope.deferred, cache=cache, shown_class=shown,
                                index=code(index) if plain and index is not None else None)
        elif found.error is not None:  # arguments the target's signature rejects (removed_members.py `_misfit`)
            yield RemovedApiUse("read", read, receiver, removed, span(trailer.children[1]), cache.whole,
                                condition=scope.condition, deferred=scope.deferred, cache=cache, shown_class=shown,
                                error=found.error)
        else:
            name = trailer.children[1]
            yield RemovedApiUse("read", read, receiver, removed, span(name), span(name),
                                condition=scope.condition, deferred=scope.deferred, cache=cache, shown_class=shown)


# What `getattr(cache, "key_cache", <default>)` falls back to when the code uses it as the layers' tensors (an
# empty container: the cache then reads as empty). `None` (or any other default) is a probe the code tests: compat.
_EMPTY_DEFAULTS = frozenset({"[]", "()", "list()", "tuple()"})


def defaulted_reads(node: Node, scope: Scope, reads: Reads) -> Iterator[RemovedApiUse]:
    """`getattr(cache, "key_cache", [])` on a cache the interpreter says the code has, the member removed at the
    target: no error, the default every time (silent)."""
    kids = node.children
    if len(kids) != 2 or kids[0].type != "name" or kids[0].value != "getattr" or not _is_call(kids[1]):
        return
    args = call_args(kids[1])
    if len(args) != 3 or any(a.name is not None or a.star for a in args):
        return
    found = reads.get(args[1].value, "name")
    default = code(args[2].value).strip()
    if found is None or found.use.what != "cache" or found.use.name not in SILENT_STORES or \
            default not in _EMPTY_DEFAULTS or reported_elsewhere(found.use.name, scope, found.use.guard):
        return
    yield RemovedApiUse("read", found.use.name, code(args[0].value).strip(), found.removed, span(args[1].value),
                        None, condition=scope.condition, deferred=scope.deferred, cache=found.use,
                        shown_class=found.shown, default=default)


def unpacked(node: Node, target: Target, scope: Scope, reads: Reads) -> Iterator[RemovedApiUse]:
    """`for k, v in cache:` (a loop) over a cache the interpreter says the code has."""
    iterable = node.children[3]
    found = reads.get(iterable, "loop") if reads.loops else None
    if found is None or reported_elsewhere("unpack", scope, found.use.guard):
        return
    yield RemovedApiUse("read", "unpack", code(iterable), found.removed, span(iterable), span(iterable),
                        condition=scope.condition, deferred=scope.deferred, cache=found.use, shown_class=found.shown)


def _part(trailer: Node | None) -> int | None:
    """0-3 for a `[0]` ... `[3]` trailer (the keys or the values of a legacy `(keys, values)` pair, or of an
    encoder-decoder's `(self_keys, self_values, cross_keys, cross_values)`)."""
    if trailer is None or trailer.type != "trailer" or trailer.children[0].value != "[":
        return None
    inner = trailer.children[1]
    # 2 and 3: the cross-attention keys and values of an EncoderDecoderCache's legacy 4-tuple.
    return int(inner.value) if inner.type == "number" and inner.value in ("0", "1", "2", "3") else None


def is_target(node: Node) -> bool:
    """`cache[0] = x`, `del cache[0]`: a store, not a read (4.57 had no item assignment either)."""
    parent = node.parent
    if parent is not None and parent.type == "del_stmt":
        return True
    if parent is None or parent.type != "expr_stmt":
        return False
    kids = parent.children
    # `cache.x += 1` reads `x` first (it raises like a read): only `=` and an annotated assignment store.
    return kids.index(node) < len(kids) - 1 and kids[kids.index(node) + 1].type in ("operator", "annassign") \
        and (kids[kids.index(node) + 1].type == "annassign" or kids[kids.index(node) + 1].value == "=")


def _is_call(trailer: Node) -> bool:
    return bool(trailer.type == "trailer" and trailer.children[0].value == "(")


def _model_read_untested(what: str, receiver: str, scope: Scope) -> bool:
    """A model's member read on a branch whose condition tests what some other object is or has, never the model
    (Optimum Habana's `if isinstance(past_key_values, (tuple, list)): self._reorder_cache(...)`): the test chooses
    a branch by the cache's format, not by what the model has, so the read raises wherever the branch runs (the
    condition goes with the finding). Not where a try catches it or a `hasattr` test probes the name (`handled`)."""
    if what != "model" or scope.condition is None or handled("read", receiver, scope):
        return False
    return re.search(rf"(?<![\w.]){re.escape(receiver)}(?!\w)", scope.condition) is None


def _source(parts: list[Node]) -> str:
    return "".join(code(k) if j == 0 else k.get_code() for j, k in enumerate(parts))
