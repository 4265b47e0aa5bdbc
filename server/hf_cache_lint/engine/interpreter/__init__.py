"""The abstract interpreter, as parts with one job each (docs/architecture.md, "The interpreter").

It executes nothing. Per scope it keeps what is known about each name (a model and its generation config,
a GenerationConfig, a kwargs dict, a cache, a pipeline), follows branches with their conditions, inlines
calls to the module's own functions (bounded), and records every call that reaches `generate` with the
facts that meet there. Functions nobody calls in the module (request handlers, methods) run afterwards
against the module's final state, parameters unknown.

The parts, each in its module, composed here (not stacked by inheritance); each gets the collaborators it
uses in its constructor, and the three back edges of the recursion (an expression's call dispatch, a
Thread's target call, a function's body) are wired below once all parts exist:

- session.Session: the shared state (current path, heap, budget, what is recorded);
- imports.WorkspaceImports: `from mymodule import x`, resolved only when its value matters;
- expressions.Expressions: an expression to an abstract value;
- statements.Statements: statements in order, branches forked and joined;
- calls.CallDispatch: a call by the kind of its callee;
- known.KnownCallables: the table of other libraries' callables (qualified name -> handler);
- methods.TrackedMethods: methods of the tracked objects (model, config, dict, instance, pipeline);
- loading.Loading: models, configs and pipelines from checkpoints (workspace, Hub cache);
- functions.UserFunctions: the module's own functions and classes (defined, inlined, run when uncalled);
- generate_calls.GenerateFacts: what meets at a generate call, recorded as a `GenerateCall`;
- cache_uses.CacheUses: every use of a transformers cache or model, recorded as a `CacheUse` by the part that
  sees its shape (an attribute, a method call, a subscript, a loop, an unpacking, `len`, a forward pass).

The stage's other modules (stage interpreter: imports base/, environment/, text/, syntax/, facts/, output/):

- arguments.py: reading a call's evaluated arguments (by keyword, by position, as a constant, a Setting);
- comprehension_scope.py: what of a comprehension runs in the enclosing scope (its iterable, subscripts, element's cache);
- control_flow.py: `if`/`elif`, loops and `try`, the path forked and joined under each condition;
- chain_text.py: what one step of an attribute or call chain sees of it as text (a long chain's middle elided);
- closures.py: what a function defined inside another reads of it (names read, names bound again after the `def`);
- class_members.py: what a class's own code says (members it defines, `__init__` calls, decorators, cache bases);
- forward_caches.py: what a transformers model's forward call is given as its cache (a `ForwardCache` fact);
- function_keys.py: a function's identity across checks of an editor buffer (for the replay);
- unpack_targets.py: how many names an unpacking target binds (`a, b = ...`, a loop body's `k, v = layer`);
- output_values.py: what a generate or forward call hands back (`Output`) and an `EncoderDecoderCache`'s parts;
- none_comparisons.py: `x is None` / `x is not None` decided by what `x` is on the path, `a == b` / `a != b` of
  two constants (a flag a caller passes) (for control_flow.py);
- narrowing.py: `isinstance(x, Cache)` guards (a transformers class): x holds that cache where the test holds;
- own_caches.py: the project's own object given as a forward's cache, and what the forward reads that it lacks;
- model_subclasses.py: the project's subclasses of a transformers model class: an instance is also the model
  (`self.generate`, `super().generate(...)`, `Cls.from_pretrained(...)`, a forward pass on it);
- except_fallbacks.py: a method call and its fallback in a `try` / `except` pair (for `CacheUse.paired`);
- init_members.py: what a project class's `__init__` sets on `self` (for a counter read before it is set);
- none_tests.py: where the code tests a call's result against None (the maximum's, for `CacheUse`);
- replay.py: the recorded runs of uncalled functions, replayed at the next keystroke instead of run again;
- replay_recording.py: recording a run: where it started, what it read and did, when a replay could stand for it;
- replay_calls.py: the calls a recorded run inlines, replayed one by one or run and recorded;
- replay_through.py: a run replayed through the calls of edited functions, run again where they started;
- replay_records.py: what a recorded run is made of (what it read, the module-wide facts, what it did);
- replay_matching.py: how a recorded run is matched to this check (values and nodes compared, places moved);
- replay_store.py: the process-wide store of editor buffers' last checks, whose runs the next check replays;
- shift.py: what a recorded run holds of places in the text, moved by the lines an edit added or removed;
- interp.py: the entry points: parse a text and analyse it into an `Analysis` (the facts the rules read);
- values.py: the value model (abstract values, heap objects);
- state.py: a path's state (names, heap, conditions) and the join of two paths;
- modules.py: what a workspace module's top level leaves behind (its exports, cached per file version);
- version_guard.py: conditions comparing the installed transformers version, decided for the target;
- removed_api.py: uses of cache APIs the target no longer has, read from the tree (no generate call needed): the walk;
- removed_scopes.py: what a use the removed-API walk finds runs under (version guards, `try`, `hasattr` tests);
- removed_imports.py: imports of names the target no longer has (`import_fails`, also for statements.py);
- removed_members.py: which recorded cache uses the target removed, by the release table (for removed_api);
- removed_calls.py: removed names read off transformers, removed Cache methods called, rejected constructor calls;
- removed_reads.py: removed reads of a known cache or model (`cache[i]`, `key_cache`, loops, `getattr` defaults);
- removed_model_names.py: names a tabled model module or the top level lost (`modeling_llama.LlamaFlashAttention2`);
- removed_reuse.py: the removed-API walk's last uses per module-level function, reused (moved) where its text and inputs are;
- constructor_calls.py: constructor calls of imported transformers cache classes the target rejects (for removed_api);
- hooks.py: generation hooks the code hands transformers (overrides, patched forwards, `Cache.update`), and the
  positions it sends, read from the tree;
- hook_names.py: the names the hook reader knows a module by (transformers classes by role, loaded models, caches);
- bindings.py: which names hold a loaded transformers model (loads with `.eval()`-style tails, loaders, parameters),
  answered once per analysis for every syntax reader;
- hook_signatures.py: what a found hook takes and reads (parameters, keys read, positions), as its fact.
- hook_none_reads.py: a hook's first use of its cache parameter where that use raises on None (for hook_signatures);
- hook_returns.py: what a hook reads from the model inputs transformers' own hook returns to it (for hook_signatures);
- hook_trees.py: the tree shapes the hook readers share (every node under one, a suite's statements, a read by key);
- position_chain.py: `cache_position`s that are the cache's length: continuing a prefill's, or only advanced (HFC011);
- attention_swaps.py: the module's own attention class swapped in for transformers' by a walk over a model's
  submodules (for hooks.py);
- hook_registrations.py: forward hooks registered on transformers' layers, and the functions a hook argument
  stands for;
- hook_classes.py: why an own cache class fails before transformers calls its `update` override.
- backbone_generate.py: `generate` called on a model class built on a transformers backbone alone (no
  `GenerationMixin` from 4.52.1).
- fixed_forwards.py: a generation head's subclass whose own `forward` takes a fixed keyword list, generated from.
- patched_attentions.py: a function patched in as a loaded model's `self_attn.forward`, with how many values it returns.
- patched_self_reads.py: a function patched in as a transformers layer class's `forward`, with the names it reads off `self`.
- decoding_overrides.py: a decoding method (`_sample`, ...) a class or patch defines in place of `GenerationMixin`'s, with its signature.
"""

from __future__ import annotations

from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.interpreter import function_keys, replay, replay_matching, replay_store
from hf_cache_lint.engine.interpreter.cache_uses import CacheUses
from hf_cache_lint.engine.interpreter.calls import CallDispatch
from hf_cache_lint.engine.interpreter.expressions import Expressions
from hf_cache_lint.engine.interpreter.functions import UserFunctions
from hf_cache_lint.engine.interpreter.generate_calls import GenerateFacts
from hf_cache_lint.engine.interpreter.imports import WorkspaceImports
from hf_cache_lint.engine.interpreter.known import KnownCallables
from hf_cache_lint.engine.interpreter.loading import Loading
from hf_cache_lint.engine.interpreter.methods import TrackedMethods
from hf_cache_lint.engine.interpreter.session import MAX_HEAP, MAX_STEPS, MAX_WORK, Session
from hf_cache_lint.engine.interpreter.statements import Statements
from hf_cache_lint.engine.interpreter.version_guard import VersionGuards
from hf_cache_lint.engine.syntax.nodes import Node


class Interpreter:
    """One module's analysis: the parts built over one Session. `run_module` runs it all; `session`
    holds the result (calls, checked values, version-guarded blocks, budget notes)."""

    def __init__(self, text: str, path: str, context: Context) -> None:
        self._build(text, path, context)

    def _build(self, text: str, path: str, context: Context) -> None:
        self.session = s = Session(text, path, context)
        self.imports = WorkspaceImports(s)
        self.expressions = ex = Expressions(s, self.imports)
        ex.uses = CacheUses(s, self.imports)
        self.facts = GenerateFacts(s, ex, self.imports)
        self.loading = Loading(s, self.imports, self.facts)
        self.functions = UserFunctions(s, ex, self.imports)
        self.known = KnownCallables(s, ex, self.imports, self.loading)
        self.methods = TrackedMethods(s, ex, self.functions, self.loading, self.facts)
        self.dispatch = CallDispatch(s, ex, self.imports, self.known, self.methods, self.functions, self.facts)
        self.statements = Statements(s, ex, self.imports, self.functions)
        # The back edges of the recursion: calls inside expressions, a Thread's target, function bodies.
        ex.dispatch = self.dispatch
        self.known.dispatch = self.dispatch
        self.functions.statements = self.statements

    def run_module(self, tree: Node) -> None:
        """The module's statements in order, then the functions nobody called (replaying the runs the last
        check of this path recorded, where all they read is the same: replay.py)."""
        if not self._run_module(tree, use_replays=True):
            # Rare: a module whose meter, with what the replays may have changed of it, came near the
            # budget's half; its analysis is redone without replays, so no budget decision can differ.
            s = self.session
            self._build(s.text, s.path, s.context)
            self._run_module(tree, use_replays=False)

    def _run_module(self, tree: Node, use_replays: bool) -> bool:
        s = self.session
        s.guards = VersionGuards(tree, s.target, s.text)
        replays = replay.Replays(s, function_keys.source_of(tree, s.text, s.path), replay_store.document(s.path),
                                 replay_matching.fingerprint(s.context, s.guards), use_replays, MAX_STEPS, MAX_HEAP, MAX_WORK,
                                 self.imports, self.functions.method_node, tree)
        self.functions.replays = replays
        self.statements.exec_block(tree.children)
        s.module_done = True
        self.functions.run_uncalled()
        if not replays.sound():
            return False
        replays.keep()
        return True

    def run_top_level(self, tree: Node) -> None:
        """The module's statements only, for its exported values (engine/interpreter/modules.py): nothing is recorded."""
        self.session.recording = False
        self.statements.exec_block(tree.children)


__all__ = ["Interpreter", "Session"]
