"""One analysis's shared state, passed to every part of the interpreter: the current path's `State`, the
heap, the budget, the module-wide facts the parts leave for each other, and what is recorded.

A part reads and replaces `session.state` (a branch forks it, a function call swaps it); nothing else
holds a path's state. The bounds below are the per-file budget.
"""

from __future__ import annotations

import builtins
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hf_cache_lint.engine.base.findings import Span
from hf_cache_lint.engine.environment.confine import real
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.interpreter.replay_records import Facts, Reads, absent
from hf_cache_lint.engine.interpreter.state import Meter, State
from hf_cache_lint.engine.interpreter.values import (
    ConfigState,
    Const,
    HeapObj,
    Ref,
    Setting,
    Symbol,
    Unknown,
    Value,
)
from hf_cache_lint.engine.interpreter.version_guard import VersionGuards
from hf_cache_lint.engine.output.analysis import CiLocation, CiValue, GuardedBlock, Incomplete, Site
from hf_cache_lint.engine.syntax.nodes import Arg, Node, code, head, span, suite_statements


@dataclass(frozen=True)
class EvArg:
    """A call argument and its evaluated value."""

    arg: Arg
    value: Value

    @property
    def name(self) -> str | None:
        """The keyword it is written under (None for a positional or `*`/`**` argument)."""
        return self.arg.name


# Bounds that keep a keystroke cheap on pathological input. Together they are the per-file budget:
# every statement and expression is a step, every fork or join costs the size of the state (the meter),
# and every heap object counts; no nesting of loops, branches, `try` or calls multiplies past them.
# Values themselves are bounded where they are built (values.py: MAX_OPTIONS, MAX_TUPLE_ITEMS, MAX_WEIGHT,
# MAX_DICT_KEYS) and a path keeps at most MAX_PATH conditions (state.py).
MAX_INLINE_DEPTH = 4
MAX_STEPS = 50_000  # past this, calls are no longer inlined (nor past half of MAX_WORK)
HARD_STEPS = 400_000  # past this, nothing more is executed: a truncated analysis beats a hung editor
MAX_WORK = 20_000_000  # state entries copied or merged (the meter); past this, nothing more is executed
MAX_HEAP = 200_000  # objects on the heap (dicts, models, configs, instances); past this, likewise
MAX_LOOP_REPEAT_DEPTH = 2  # loops nested deeper run their body once (a second pass each would be 2^depth)


def site_at(node: Node, description: str | None = None) -> Site:
    """Where a value was written: the node's span and (by default) its first 80 characters."""
    return Site(span(node), description if description is not None else head(node, 80))


def site_of(whole: object, description: str) -> Site:
    """A site for a span already computed (a whole call)."""
    assert isinstance(whole, Span)
    return Site(whole, description)


class Session:
    """The state all parts share for one module's analysis (see the module docstring)."""

    def __init__(self, text: str, path: str, context: Context) -> None:
        self.text = text
        self.path = path
        self.context = context
        self.target = context.target
        self.meter = Meter()
        self.state = State(meter=self.meter)  # the current path
        self.module_state = self.state  # the module's globals (what a function body reads past its locals)
        self.module_done = False  # the top level has run; uncalled functions run now
        # Every fact recorded, of every kind (engine/facts), in order: `record` is the one way in.
        self.recorded: list[object] = []
        self.recording = True  # False while a workspace module is analysed for its exports only
        self.stack: list[Any] = []  # function nodes being inlined
        # (function node, the span of the call that inlined it), innermost last: which call of a helper a use in
        # it was reached from (none_tests.py: a test of that call's value, not of every call of the helper).
        self.callers: list[tuple[Any, object]] = []
        self.returns: list[tuple[Value, State]] = []  # the `return`s of the function running now
        # The parameters of the function that just returned that held a caller's model output and hold it with
        # members stored on it (`o.past_key_values = legacy`): functions.py `inline` stores them on the caller's.
        self.written: tuple[tuple[str, Value], ...] = ()
        self.called: set[int] = set()  # id() of function nodes inlined at least once
        self.functions: list[tuple[Any, str | None]] = []  # module-level defs and methods: (node, class)
        # Module functions patched onto a transformers cache class (`DynamicCache.trim = trim`): id() of the def ->
        # (the class's qualified name, the patching statement); their first parameter is an instance of it.
        self.patched_onto: dict[int, tuple[str, Any]] = {}
        # Module functions set on a transformers model class (`LlamaForCausalLM.prepare_inputs_for_generation = f`,
        # AdaKV): (the class's name, the member) -> the function; a call of that member on a model the code loaded
        # as that class runs it with the model as `self` (methods.py `_model`).
        self.patched_models: dict[tuple[str, str], Value] = {}
        # Module functions set on a transformers model class or on `GenerationMixin`/`PreTrainedModel`
        # (`GenerationMixin.generate = deco_generate`, EasyEdit's): id() of the def -> the setting statement; run
        # uncalled, their first parameter is a model (functions.py).
        self.model_methods: dict[int, Any] = {}
        # The module functions handed to `generate` as `custom_generate=` (bindings.py), found once per analysis.
        self.custom_generate: frozenset[str] | None = None
        self.via: Site | None = None  # the outermost call site of the function running now
        self.steps = 0
        self.loop_depth = 0
        # Environment variables the module sets (os.environ[...] = / setdefault), in order.
        self.env_set: set[str] = set()
        # Pipeline tasks the module registers itself (PIPELINE_REGISTRY.register_pipeline): their own classes decide.
        self.custom_tasks: set[str] = set()
        # Classes of this module that define their own `generate` (an nn.Module wrapper, a sampler): an unseen
        # receiver's `.generate(...)` may be one of them, which takes its own parameters.
        self.own_generate: set[str] = set()
        # `config.cache_implementation = "..."` is silent until generate, validate() or save_pretrained() reads
        # the config (docs/facts.md §3): the literal waits here, by the assignment's span, until one does.
        self.pending_ci: dict[Span, CiValue] = {}
        self.unsloth_fast_disabled: bool | None = None  # decided when unsloth is first imported
        # Folders this module saved a model or GenerationConfig to: resolved path -> its cache_implementation.
        self.saved: dict[str, Setting | None] = {}
        self.next_id = 1  # the id the next heap object gets
        # The folder the file is in as named (not a symlink's target): a read root (engine/environment/confine.py).
        self.file_dir = Path(os.path.abspath(path)).parent if path and not path.startswith("<") else None
        self.guards: VersionGuards | None = None  # the module's version guards, set when it starts running
        self.version_guarded: set[GuardedBlock] = set()  # blocks under an undecided version test
        self.stopped: Incomplete | None = None  # set when the budget ran out
        self.skipped: list[Incomplete] = []  # statements too deeply nested to analyse
        # While an uncalled function's run is recorded for a replay at the next check (replay.py): what it
        # reads from outside its locals, filled by the hooks below and in the parts.
        self.reads: Reads | None = None
        # Per node of this module's tree (which does not change while it is analysed; a function's body runs
        # again at every call it is inlined at): its site, span and code, computed once. Keyed by id(): the
        # tree outlives the analysis, and parso's keyword and operator leaves hash by their text (every
        # `None` of a module in one bucket, each probe a Python-level `__eq__`).
        self._sites: dict[int, Site] = {}
        self._spans: dict[int, Span] = {}
        self._codes: dict[int, str] = {}
        self._blocks: dict[int, list[Node]] = {}
        self._unbound: dict[str, Value] = {}  # what `lookup` gives a name the module does not bind

    # -- the tree's nodes, memoised -----------------------------------------------
    def site(self, node: Node, description: str | None = None) -> Site:
        """`site_at(node, description)`, computed once per node for the default description."""
        if description is not None:
            return Site(self.span(node), description)
        got = self._sites.get(id(node))
        if got is None:
            got = self._sites[id(node)] = Site(self.span(node), head(node, 80))
        return got

    def span(self, node: Node) -> Span:
        got = self._spans.get(id(node))
        if got is None:
            got = self._spans[id(node)] = span(node)
        return got

    def block(self, suite: Node) -> list[Node]:
        """`suite_statements(suite)`, once per suite (callers only iterate over it)."""
        got = self._blocks.get(id(suite))
        if got is None:
            got = self._blocks[id(suite)] = suite_statements(suite)
        return got

    def code(self, node: Node) -> str:
        got = self._codes.get(id(node))
        if got is None:
            got = self._codes[id(node)] = code(node)
        return got

    # -- budget -----------------------------------------------------------------
    def charge(self, work: int) -> None:
        self.meter.work += work
        self.meter.charges += 1

    def out_of_budget(self, stmt: Node) -> bool:
        """Whether the budget is spent; the first time, remember where (later statements are skipped)."""
        if self.stopped is not None:
            return True
        if self.steps > HARD_STEPS:
            reason = f"more than {HARD_STEPS:,} steps"
        elif self.meter.work > MAX_WORK:
            reason = f"more than {MAX_WORK:,} state entries copied or merged"
        elif self.next_id > MAX_HEAP:
            reason = f"more than {MAX_HEAP:,} tracked objects"
        else:
            return False
        self.stopped = Incomplete(reason, stmt.start_pos[0])
        return True

    def may_inline(self) -> bool:
        """Whether the budget still allows inlining a call (past MAX_STEPS or half the work, calls are opaque)."""
        return self.steps <= MAX_STEPS and self.meter.work <= MAX_WORK // 2

    # -- heap ---------------------------------------------------------------
    def new(self, obj: HeapObj) -> Ref:
        ref = Ref(self.next_id)
        self.next_id += 1
        self.state.heap[ref.id] = obj
        return ref

    def obj(self, value: Value) -> HeapObj | None:
        if not isinstance(value, Ref):
            return None
        got = self.state.heap.get(value.id)
        if self.reads is not None:
            self.reads.obj(value.id, got)
        return got

    def put(self, ref: Ref, obj: HeapObj) -> None:
        if self.reads is not None and ref.id < self.reads.first_id:
            # A change a later function may see: the recorded run's effect (replay.py), and a read of the
            # object as it was (whatever the write derived from it).
            self.reads.obj(ref.id, self.state.heap.get(ref.id))
            self.reads.written.add(ref.id)
        self.state.heap[ref.id] = obj

    # -- names ----------------------------------------------------------------
    def module_name(self, name: str) -> Value | None:
        """A module-level name's value (a class the code defines), read as a function body reads it: a replayed run
        depends on it. None where the module does not bind it."""
        got = self.module_state.names.get(name)
        if got is not None and self.reads is not None:
            self.reads.name(name, got)
        return got

    def lookup(self, name: str) -> Value:
        if name in self.state.names:
            if self.reads is not None and self.state is self.module_state:
                self.reads.name(name, self.state.names[name])
            return self.state.names[name]
        if self.reads is not None:
            self.reads.name(name, self.module_state.names.get(name, absent()))
        if self.state is not self.module_state and name in self.module_state.names:
            return self.module_state.names[name]
        if name == "__file__" and self.path and not self.path.startswith("<"):
            if self.reads is not None:
                self.reads.impure = True  # resolved on disk
            return Const(str(Path(self.path).resolve()))
        got = self._unbound.get(name)
        if got is None:  # a value per name (immutable, compared by value: sharing it changes nothing)
            got = self._unbound[name] = Symbol(f"builtins.{name}") if name in _BUILTINS else Unknown(f"`{name}`")
        return got

    def folder_key(self, folder: str) -> str:
        """A folder named in the code, resolved as the program would (relative to the workspace or file)."""
        if self.reads is not None:
            self.reads.impure = True  # resolved on disk
        p = Path(folder)
        if not p.is_absolute():
            p = (self.context.workspace or self.file_dir or Path.cwd()) / p
        return real(p)  # realpath: a symlink loop named in the code must not raise

    # -- module-wide facts, for replays -------------------------------------------
    def facts(self) -> Facts:
        return Facts(frozenset(self.env_set), frozenset(self.custom_tasks), frozenset(self.own_generate),
                     tuple(self.saved.items()), tuple(self.pending_ci.items()), self.unsloth_fast_disabled)

    def set_facts(self, facts: Facts) -> None:
        self.env_set, self.custom_tasks, self.own_generate = \
            set(facts.env_set), set(facts.custom_tasks), set(facts.own_generate)
        self.saved, self.pending_ci = dict(facts.saved), dict(facts.pending_ci)
        self.unsloth_fast_disabled = facts.unsloth_fast_disabled

    # -- recording ----------------------------------------------------------
    def record(self, fact: object) -> None:
        """Record a fact of any registered kind (engine/facts); nothing while a workspace module is analysed for
        its exports only."""
        if self.recording:
            self.recorded.append(fact)

    def note_ci_argument(self, args: list[EvArg], where: CiLocation = "keyword") -> None:
        """A call that transformers validates received `cache_implementation=`: the string it gets, written
        in the call or passed down from where it was written (a parameter, a variable), is checked."""
        for a in args:
            if a.arg.name == "cache_implementation":
                self.note_ci_value(a.value, where)

    def note_ci_value(self, value: Value, where: CiLocation = "keyword") -> None:
        if isinstance(value, Const) and isinstance(value.value, str) and value.site is not None:
            self.record(CiValue(value.value, value.site.span, where))

    def note_validated(self, config: Value | None) -> None:
        """transformers validates this GenerationConfig now: an invalid value assigned to it raises here."""
        cfg = self.obj(config) if config is not None else None
        if isinstance(cfg, ConfigState) and cfg.ci is not None and cfg.ci.site is not None:
            pending = self.pending_ci.get(cfg.ci.site.span)
            if pending is not None:
                self.record(pending)


_BUILTINS = frozenset(dir(builtins))
