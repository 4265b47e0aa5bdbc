"""The call dispatch: `f(...)` by the kind of value `f` is — an imported name (the known-callables table),
a bound method of a tracked object (methods.py), a user function or class (inlined), a
`functools.partial` (its function with its keywords), a model or pipeline called directly."""

from __future__ import annotations

from hf_cache_lint.engine.interpreter.expressions import Expressions
from hf_cache_lint.engine.interpreter.functions import UserFunctions
from hf_cache_lint.engine.interpreter.generate_calls import GenerateFacts
from hf_cache_lint.engine.interpreter.imports import WorkspaceImports
from hf_cache_lint.engine.interpreter.known import KnownCallables
from hf_cache_lint.engine.interpreter.methods import TrackedMethods
from hf_cache_lint.engine.interpreter.session import EvArg, Session, site_of
from hf_cache_lint.engine.nodes import Node, span_between
from hf_cache_lint.engine.values import (
    UNKNOWN,
    ClassDef,
    DictState,
    Function,
    Maybe,
    Method,
    ModelState,
    Output,
    Partial,
    PipelineState,
    Ref,
    Symbol,
    Unknown,
    Value,
)


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

    def call(self, callee: Value, trailer: Node, head: Node, trailers: list[Node]) -> Value:
        """The value of `callee(...)` written as `trailer` after `head` and the `trailers` before it."""
        args = self.ex.eval_args(trailer)
        whole = span_between(head, trailer)
        callee = self.imports.force(callee)
        if isinstance(callee, Maybe):
            known = [v for v, _ in callee.options if not isinstance(v, Unknown)]
            callee = known[0] if known else UNKNOWN
        if isinstance(callee, Symbol):
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
        if isinstance(obj, ModelState):
            return Output("forward", site_of(whole, "the forward pass"))
        if isinstance(obj, PipelineState):
            assert isinstance(callee, Ref)
            if self.facts.pipeline_reaches_generate(obj):
                self.facts.generate_facts(None, callee, args, trailer, head, trailers, whole)
            return UNKNOWN
        return Unknown(None)

    def call_with_kwargs(self, func: Value, kwargs: Value | None, trailer: Node, whole: object,
                         extra: list[EvArg] | None = None, holder: Node | None = None,
                         through: str | None = None) -> Value:
        """Call `func` with a kwargs dict value (partial, Thread(kwargs=...)), the findings on `whole`.

        `extra`: the arguments written in this call (a partial's call), None when they are not for
        `func` (Thread(...)); `holder`: the expression of the dict, when written in this call; `through`:
        what carried the dict in, for messages."""
        if isinstance(func, Method) and func.name == "generate" and isinstance(self.s.obj(func.owner), ModelState):
            assert isinstance(func.owner, Ref)
            self.facts.generate_facts(func.owner, None, extra or [], trailer, None, [], whole, extra_kwargs=kwargs,
                                      spread=holder, keywords_reach=extra is not None, through=through)
            return Output("generate", site_of(whole, "generate(...)"))
        if isinstance(func, Function):
            d = self.s.obj(kwargs) if kwargs is not None else None
            return self.functions.inline(func, extra or [], None, whole,
                                         extra_kwargs=d if isinstance(d, DictState) else None)
        return UNKNOWN
