"""Inlining the module's own functions and classes at their call sites (bounded depth)."""

from __future__ import annotations

from typing import Any

from hf_cache_lint.engine.analysis import Site
from hf_cache_lint.engine.core import MAX_INLINE_DEPTH, MAX_STEPS, MAX_WORK, EvArg
from hf_cache_lint.engine.findings import Span
from hf_cache_lint.engine.loaders import Loaders
from hf_cache_lint.engine.state import State, join
from hf_cache_lint.engine.values import (
    UNKNOWN,
    ClassDef,
    DictState,
    Function,
    InstanceState,
    Ref,
    Unknown,
    Value,
    maybe,
    tuple_val,
)


class Inliner(Loaders):
    returns: list[tuple[Value, State]]

    def instantiate(self, cls: ClassDef, args: list[EvArg], whole: object) -> Value:
        ref = self.new(InstanceState(cls.name))
        init = self.method_of(cls.name, "__init__")
        if init is not None:
            self.inline(init, args, ref, whole)
        return ref

    def method_of(self, class_name: str, name: str) -> Function | None:
        cls = self.module_state.names.get(class_name) or self.state.names.get(class_name)
        if not isinstance(cls, ClassDef):
            return None
        for child in cls.node.iter_funcdefs():
            if child.name.value == name:
                return Function(child, f"{class_name}.{name}")
        return None

    def bind(self, fn: Function, args: list[EvArg], self_ref: Ref | None,
             extra_kwargs: DictState | None = None) -> dict[str, Value]:
        params = fn.node.get_params()
        names: dict[str, Value] = {}
        positional = [a.value for a in args if a.arg.name is None and not a.arg.star]
        keywords = {a.arg.name: a.value for a in args if a.arg.name}
        spread = DictState(extra_kwargs.entries if extra_kwargs else (), False)
        opaque = any(a.arg.star for a in args)
        for a in args:
            if a.arg.star == "**":
                spread = self.merge_into(spread, a.value)
        if self_ref is not None:
            positional.insert(0, self_ref)
        rest_kwargs = DictState(opaque=spread.opaque or opaque)
        for k, v, s, c in spread.entries:
            if k not in keywords:
                rest_kwargs = rest_kwargs.set(k, v, s, c)
        for a in args:
            if a.arg.name:
                rest_kwargs = rest_kwargs.set(a.arg.name, a.value, self.site(a.arg.node))
        star_kw: str | None = None
        for p in params:
            pname = p.name.value
            if p.star_count == 1:
                names[pname] = tuple_val(None, positional)
                positional = []
            elif p.star_count == 2:
                star_kw = pname
            elif positional:
                names[pname] = positional.pop(0)
            elif pname in keywords:
                names[pname] = keywords[pname]
                rest_kwargs = rest_kwargs.delete(pname)
            elif (got := spread.get(pname)) is not None:
                names[pname] = got[0]
                rest_kwargs = rest_kwargs.delete(pname)
            elif p.default is not None and not opaque:
                names[pname] = self.eval(p.default)
            else:
                names[pname] = Unknown(f"the parameter `{pname}`")
        if star_kw is not None:
            names[star_kw] = self.new(rest_kwargs)
        return names

    def inline(self, fn: Function, args: list[EvArg], self_ref: Ref | None, whole: object,
               extra_kwargs: DictState | None = None) -> Value:
        node = fn.node
        self.called.add(id(node))
        if node in self.stack or len(self.stack) >= MAX_INLINE_DEPTH or self.steps > MAX_STEPS \
                or self.meter.work > MAX_WORK // 2:
            return UNKNOWN
        names = self.bind(fn, args, self_ref, extra_kwargs)
        return self.run_function(node, names, Site(whole, "called here") if isinstance(whole, Span) else None)

    def run_function(self, node: Any, names: dict[str, Value], via: Site | None) -> Value:
        caller, saved_returns, saved_via = self.state, getattr(self, "returns", []), self.via
        heap = caller.heap.fork()
        self.charge(len(names) + len(heap.own))
        self.state = State(names, heap, caller.path, False, caller.meter)
        self.returns = []
        if self.via is None:
            self.via = via
        self.stack.append(node)
        try:
            self.exec_block(_body(node))
            ends = [*self.returns, (None, self.state)] if not self.state.dead else list(self.returns)
            result: Value = UNKNOWN
            values = [v for v, _ in ends if v is not None]
            if values:
                result = values[0] if all(v == values[0] for v in values) else maybe((v, None) for v in values)
            merged = ends[0][1] if ends else self.state
            for _, st in ends[1:]:
                merged = join(merged, st, None, None, caller.path)
            caller.heap = merged.heap
            return result
        finally:
            self.stack.pop()
            self.state, self.returns, self.via = caller, saved_returns, saved_via


def _body(node: Any) -> list[Any]:
    from hf_cache_lint.engine.nodes import suite_statements

    return suite_statements(node.children[-1])
