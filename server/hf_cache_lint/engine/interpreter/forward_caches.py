"""What a transformers model's forward call is given as its cache, recorded as a `ForwardCache` fact
(engine/facts/forward_cache.py, HFC002): a legacy tuple or a list, written as a keyword or set in a `**dict`, and
the project's own object lacking what the forward reads (own_caches.py). Called with the generate-call recorder
(generate_calls.py), whose `kind_of` says what a value is on the current path."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hf_cache_lint.engine.base.findings import Span
from hf_cache_lint.engine.facts.forward_cache import ForwardCache
from hf_cache_lint.engine.interpreter.own_caches import lacking
from hf_cache_lint.engine.interpreter.session import EvArg
from hf_cache_lint.engine.interpreter.values import (
    CacheVal,
    Cond,
    Const,
    DictState,
    ListVal,
    Maybe,
    ModelState,
    TupleVal,
    Value,
)
from hf_cache_lint.engine.output.keywords import CACHE_KEYWORDS
from hf_cache_lint.engine.syntax.nodes import Node, code, span

if TYPE_CHECKING:
    from hf_cache_lint.engine.interpreter.generate_calls import GenerateFacts


def forward_facts(facts: GenerateFacts, model: ModelState, args: list[EvArg], whole: Span) -> None:
    """A legacy tuple, or a list, given as the cache of a transformers model's forward call (`ForwardCache`):
    the forward takes no tuple on 5.x and no list on any release (HFC002). As a keyword written in the call,
    or as an entry of a `**dict` (`model(**inputs)`) set in this file on every path."""
    if not model.is_transformers:
        return
    for a in args:
        if a.arg.star == "**":
            _spread_forward_caches(facts, model, a, whole)
            continue
        if a.arg.name not in CACHE_KEYWORDS or a.arg.name_node is None:
            continue
        value = facts.imports.force(a.value)
        container = _container(value)
        maybe_none = False
        if container is None and not _converted_on_some_path(facts, value):
            kind, _, condition, _ = facts.kind_of(value)
            maybe_none = kind == "tuple" and condition is not None and _tuple_or_none(value)
            container = "tuple" if kind == "tuple" and (condition is None or maybe_none) else None
            if container is None and _tuple_or_none(value, ListVal):  # `unflatten(kv) if kv else None`
                container, maybe_none = "list", True
        if container is not None:
            facts.s.record(ForwardCache(a.arg.name, span(a.arg.node), span(a.arg.value), code(a.arg.value),
                                       whole, model.class_name, model.checkpoint, model.encoder_decoder,
                                       container, maybe_none=maybe_none, positions=_positions(args)))
        elif a.arg.name == "past_key_values" and (own := lacking(facts.s, value)) is not None:
            facts.s.record(ForwardCache(a.arg.name, span(a.arg.node), span(a.arg.value), code(a.arg.value),
                                       whole, model.class_name, model.checkpoint, model.encoder_decoder,
                                       "object", own_class=own[0], missing=own[1], cache_subclass=own[2],
                                       narrow_length=own[3]))


def _converted_on_some_path(facts: GenerateFacts, value: Value) -> bool:
    """A value that is a transformers cache on some path the current one does not exclude: a helper that
    converts what it is given (`DynamicCache.from_legacy_cache(past)` in a `try`, the input returned as it came
    where the conversion failed or was not needed). The forward gets a tuple on every path only if none of them
    is a cache (a `Maybe`'s first option alone does not say so)."""
    return isinstance(value, Maybe) and any(
        isinstance(v, CacheVal) and (c is None or facts.s.state.decides(c) is not False) for v, c in value.options)


def _spread_forward_caches(facts: GenerateFacts, model: ModelState, a: EvArg, whole: Span) -> None:
    d = facts.s.obj(facts.imports.force(a.value))
    if not isinstance(d, DictState):
        return
    for key in CACHE_KEYWORDS:
        got = d.get(key)
        if got is None:
            continue
        value, site, cond = got
        forced = facts.imports.force(value)
        container = _container(forced)
        if container is None and cond is None and (only := _built_under(forced)) is not None:
            # Set to a tuple under a branch and None otherwise (unlimiformer's fallback wrapper: `if
            # kwargs["past_key_values"] is None and ...: kwargs["past_key_values"] = <tuple of zeros>`): the forward
            # gets the tuple where the branch's condition holds, as an entry set only under it.
            container, cond = only
        decided = facts.s.state.decides(cond) if cond is not None else True
        if container is not None and decided is not False and site is not None and site.path is None:
            # The entry set in the function that calls the forward is reported at its key; one set elsewhere
            # (a caller passed the dict in, a helper built it) at the `**dict`, where the forward raises. An entry
            # set under a branch this path does not decide reaches the forward only where the branch's condition
            # holds (exporters' `if self.config.use_past:`): at the `**dict` too, where it raises when it does.
            condition = "" if cond is None or decided else cond.text if cond.holds else f"not ({cond.text})"
            here = not condition and _same_function(facts, a.arg.node, site.span)
            at = site.span if here else facts.s.span(a.arg.node)
            facts.s.record(ForwardCache(key, at, at, "", whole, model.class_name, model.checkpoint,
                                       model.encoder_decoder, container, spread=code(a.arg.value),
                                       entry=None if at == site.span else site.span, condition=condition))


def _built_under(value: Value) -> tuple[str, Cond] | None:
    """A value that is a tuple (or a list) under one condition and None on every other path: the container and
    that condition."""
    if not isinstance(value, Maybe):
        return None
    built = [(c, cond) for v, cond in value.options if (c := _container(v)) is not None]
    if len(built) != 1 or built[0][1] is None:
        return None
    rest = [v for v, _ in value.options if _container(v) is None]
    if not rest or not all(isinstance(v, Const) and v.value is None for v in rest):
        return None
    container, cond = built[0]
    return None if cond is None else (container, cond)


def _same_function(facts: GenerateFacts, node: Node, where: Span) -> bool:
    """Whether `where` lies in the innermost `def` around `node` (at module level: in no `def`)."""
    fn = node.parent
    while fn is not None and fn.type not in ("funcdef", "lambdef"):
        fn = fn.parent
    if fn is not None:
        return _within(where, facts.s.span(fn))
    return not any(_within(where, facts.s.span(f)) for f, _ in facts.s.functions)


def _container(value: Value) -> str | None:
    """"tuple" or "list" for a value that is one on every path (a legacy cache, as a forward would be given it)."""
    if isinstance(value, TupleVal):
        return "tuple"
    if isinstance(value, ListVal):
        return "list"
    return None


def _tuple_or_none(value: Value, kind: type[TupleVal] | type[ListVal] = TupleVal) -> bool:
    """A value that is a tuple (a list: `kind`) or None on every path (a helper returning None early, else the
    tuple it built)."""
    return isinstance(value, Maybe) and all(isinstance(v, kind) or (isinstance(v, Const) and v.value is None)
                                            for v, _ in value.options) and \
        any(isinstance(v, kind) for v, _ in value.options)


def _positions(args: list[EvArg]) -> bool:
    """The call gives `position_ids=` as anything but a literal None."""
    return any(a.arg.name == "position_ids" and not (isinstance(a.value, Const) and a.value.value is None)
               for a in args)


def _within(inner: Span, outer: Span) -> bool:
    return (outer.start.line, outer.start.column) <= (inner.start.line, inner.start.column) and \
        (inner.end.line, inner.end.column) <= (outer.end.line, outer.end.column)
