"""The call dispatch: `f(...)` by the kind of value `f` is — an imported name (the known-callables table),
a bound method of a tracked object (methods.py), a user function or class (inlined), a
`functools.partial` (its function with its keywords), a model or pipeline called directly."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from hf_cache_lint.engine.base.findings import Span
from hf_cache_lint.engine.interpreter.expressions import Expressions
from hf_cache_lint.engine.interpreter.forward_caches import forward_facts
from hf_cache_lint.engine.interpreter.functions import UserFunctions
from hf_cache_lint.engine.interpreter.generate_calls import GenerateFacts
from hf_cache_lint.engine.interpreter.imports import WorkspaceImports
from hf_cache_lint.engine.interpreter.known import KnownCallables
from hf_cache_lint.engine.interpreter.methods import TrackedMethods
from hf_cache_lint.engine.interpreter.model_subclasses import model_of
from hf_cache_lint.engine.interpreter.output_values import output
from hf_cache_lint.engine.interpreter.session import EvArg, Session, site_of
from hf_cache_lint.engine.interpreter.state import State, join
from hf_cache_lint.engine.interpreter.values import (
    UNKNOWN,
    ClassDef,
    Cond,
    DictState,
    Function,
    InstanceState,
    Maybe,
    Method,
    ModelState,
    Partial,
    PipelineState,
    Ref,
    Symbol,
    Unknown,
    Value,
    maybe,
)
from hf_cache_lint.engine.output.analysis import Branch, CacheArg, CacheImpl, GenerateCall
from hf_cache_lint.engine.syntax.nodes import Node, code, span_between


class CallDispatch:
    """Evaluates a call: its arguments (expressions), then the callee by kind. Inputs: every part a call
    may end in. A new kind of callee value gets a branch in `call`; a new callable of a library goes in
    known.py, a new method of a tracked object in methods.py."""

    def __init__(self, session: Session, ex: Expressions, imports: WorkspaceImports, known: KnownCallables,
                 methods: TrackedMethods, functions: UserFunctions, facts: GenerateFacts) -> None:
        self.s = session
        self.ex = ex
        self.imports = imports
        self.known = known
        self.methods = methods
        self.functions = functions
        self.facts = facts
        self._wholes: dict[tuple[int, int], Span] = {}  # a call's span, once per call written (ids: session.py)

    def call(self, callee: Value, trailer: Node, head: Node, trailers: list[Node]) -> Value:
        """The value of `callee(...)` written as `trailer` after `head` and the `trailers` before it."""
        args = self.ex.eval_args(trailer)
        key = (id(head), id(trailer))
        whole = self._wholes.get(key)
        if whole is None:
            whole = self._wholes[key] = span_between(head, trailer)
        return self._call_value(callee, args, trailer, head, trailers, whole)

    def _call_value(self, callee: Value, args: list[EvArg], trailer: Node, head: Node, trailers: list[Node],
                    whole: Span) -> Value:
        callee = self.imports.force(callee)
        if isinstance(callee, Maybe):
            options = self._callable_options(callee)
            if options is not None:
                return self._call_options(
                    options, lambda v: self._call_value(v, args, trailer, head, trailers, whole))
            known = [v for v, _ in callee.options if not isinstance(v, Unknown)]
            callee = known[0] if known else UNKNOWN
        if isinstance(callee, Symbol):
            if self.ex.uses.on:
                self.ex.uses.class_call(callee.qualname, args, trailers, head, whole)
            return self.known.call_symbol(callee.qualname, args, trailer, whole)
        if isinstance(callee, Method):
            return self.methods.call_method(callee, args, trailer, head, trailers, whole)
        if isinstance(callee, Function):
            return self.functions.inline(callee, args, callee.owner, whole)  # owner: bound by types.MethodType
        if isinstance(callee, ClassDef):
            return self.functions.instantiate(callee, args, whole)
        if isinstance(callee, Partial):
            return self.call_with_kwargs(callee.func, callee.kwargs, trailer, whole, extra=args,
                                         through="`functools.partial`")
        obj = self.s.obj(callee)
        if isinstance(obj, ModelState) and obj.forward is not None:
            return UNKNOWN  # `model.forward = f` on this instance: the call runs the code's `f` (ModelState.forward)
        if isinstance(obj, ModelState):
            forward_facts(self.facts, obj, args, whole)
            self.ex.uses.forward(callee, args, whole, code(head) + "".join(code(t) for t in trailers[:-1]))
            return output("forward", obj, args, site_of(whole, "the forward pass"))
        if isinstance(obj, PipelineState):
            assert isinstance(callee, Ref)
            if self.facts.pipeline_reaches_generate(obj):
                self.facts.generate_facts(None, callee, args, trailer, head, trailers, whole)
            return UNKNOWN
        if isinstance(obj, InstanceState):  # `layer(x, past_key_value=cache)`: its `__call__` or module `forward`
            assert isinstance(callee, Ref)
            model = model_of(obj)
            cls = self.s.module_state.names.get(obj.class_name)
            if model is not None and isinstance(cls, ClassDef) and not self.functions.defines(cls, "__call__") \
                    and not self.functions.defines(cls, "forward"):
                # A transformers model subclass without its own forward: the model's forward pass.
                return self._call_value(model, args, trailer, head, trailers, whole)
            return self.functions.call_instance(callee, obj, args, whole)
        return UNKNOWN

    def _callable_options(self, callee: Maybe) -> list[tuple[Value, Cond | None]] | None:
        """The options of a callee that differs by path when each is called on its own path: the live ones,
        when two or more differ, each is a generate replacement or the original (a `Method`, a `Partial`,
        a `Function`) and some carry a condition. None: call the first known option, as for other values."""
        live: list[tuple[Value, Cond | None]] = []
        for v, c in callee.options:
            if c is not None and self.s.state.decides(c) is False:
                continue  # the path that set this option excludes this call
            if all(v != w for w, _ in live):
                live.append((v, c))
        if len(live) < 2 or not all(isinstance(v, (Method, Partial, Function)) for v, _ in live):
            return [live[0]] if len(live) == 1 and len(live) < len(callee.options) else None
        return live if any(c is not None for _, c in live) else None

    def _call_options(self, options: list[tuple[Value, Cond | None]], invoke: Callable[[Value], Value]) -> Value:
        """Call each option on a path of its own, then join them. A generate call an option reaches is
        recorded as a fact of that option's path: what every option's call at that span agrees on stays
        unconditional, what differs (or is reached by one option only) holds only under that option's
        condition (`conditional_calls`)."""
        if len(options) == 1:
            return invoke(options[0][0])
        entry = self.s.state
        paths: list[tuple[State, Cond | None]] = []
        results: list[tuple[Value, Cond | None]] = []
        recorded: list[list[GenerateCall]] = []
        for v, c in options:
            self.s.state = entry.fork()
            start = len(self.s.recorded)
            results.append((invoke(v), c))
            # The option's generate calls are decided below; the other facts it recorded stay, in order.
            made = self.s.recorded[start:]
            del self.s.recorded[start:]
            recorded.append([f for f in made if isinstance(f, GenerateCall)])
            self.s.recorded.extend(f for f in made if not isinstance(f, GenerateCall))
            paths.append((self.s.state, c))
        for calls in conditional_calls(recorded, [c for _, c in options], entry):
            self.s.recorded.extend(calls)
        merged = paths[0][0]
        for i, (st, c) in enumerate(paths[1:]):
            merged = join(merged, st, paths[0][1] if i == 0 else None, c, entry.path)
        self.s.state = merged
        return maybe(results)

    def call_with_kwargs(self, func: Value, kwargs: Value | None, trailer: Node, whole: object,
                         extra: list[EvArg] | None = None, holder: Node | None = None,
                         through: str | None = None) -> Value:
        """Call `func` with a kwargs dict value (partial, Thread(kwargs=...)), the findings on `whole`.

        `extra`: the arguments written in this call (a partial's call), None when they are not for
        `func` (Thread(...)); `holder`: the expression of the dict, when written in this call; `through`:
        what carried the dict in, for messages."""
        if isinstance(func, Maybe):  # `Thread(target=model.generate)` after a replacement on some paths
            options = self._callable_options(func)
            if options is None:
                return UNKNOWN
            return self._call_options(options, lambda v: self.call_with_kwargs(
                v, kwargs, trailer, whole, extra=extra, holder=holder, through=through))
        if isinstance(func, Method) and func.name == "generate" and isinstance(self.s.obj(func.owner), ModelState):
            assert isinstance(func.owner, Ref)
            self.facts.generate_facts(func.owner, None, extra or [], trailer, None, [], whole, extra_kwargs=kwargs,
                                      spread=holder, keywords_reach=extra is not None, through=through)
            model = self.s.obj(func.owner)
            return output("generate", model if isinstance(model, ModelState) else None, extra or [],
                          site_of(whole, "generate(...)"))
        if isinstance(func, Function):
            d = self.s.obj(kwargs) if kwargs is not None else None
            return self.functions.inline(func, extra or [], None, whole,
                                         extra_kwargs=d if isinstance(d, DictState) else None)
        return UNKNOWN


def _same_ci(a: CacheImpl | None, b: CacheImpl | None) -> bool:
    """One `cache_implementation` on two paths: the same value from the same kind of source (the sites may
    differ: the same replacement written on both sides of an `if`)."""
    if a is None or b is None:
        return a is b
    return (a.value, a.via, a.condition, a.when, a.through) == (b.value, b.via, b.condition, b.when, b.through)


def _same_arg(a: CacheArg, b: CacheArg) -> bool:
    return replace(a, site=None, origin=None) == replace(b, site=None, origin=None)


def conditional_calls(recorded: list[list[GenerateCall]], conds: list[Cond | None],
                      path: State) -> list[list[GenerateCall]]:
    """The generate calls each option of a called `Maybe` reached (`recorded[i]` under `conds[i]`), as
    facts of their paths: a call's `cache_implementation` or cache argument that every other option's
    call at the same span has too stays as it is; one that differs, or a call only this option reaches,
    holds only under this option's condition (when `path` does not decide it already)."""
    out: list[list[GenerateCall]] = []
    for i, calls in enumerate(recorded):
        c = conds[i]
        if c is None or path.decides(c) is not None:
            out.append(calls)
            continue
        text, when = (f"`{c.text}`" if c.holds else f"`not {c.text}`"), Branch(c.text, c.holds)
        others = [[o for o in recorded[j]] for j in range(len(recorded)) if j != i]
        mine: list[GenerateCall] = []
        for call in calls:
            twins = [[o for o in other if o.span == call.span] for other in others]
            ci = call.cache_implementation
            if ci is not None and ci.condition is None and not all(
                    any(_same_ci(ci, o.cache_implementation) for o in t) for t in twins):
                ci = replace(ci, condition=text, when=when)
            # The condition is said once: on the `cache_implementation` when it carries it, else on each
            # cache argument that differs from the other paths'.
            said = ci is not None and ci.when == when
            args = tuple(
                a if said or a.condition is not None or all(
                    any(_same_arg(a, b) for o in t for b in o.cache_args) for t in twins)
                else replace(a, condition=text, when=when)
                for a in call.cache_args)
            mine.append(replace(call, cache_implementation=ci, cache_args=args))
        out.append(mine)
    return out
