"""The interpreter's entry points: parse a text (parso, error-recovering, incremental per editor buffer) and
analyse it into an `Analysis` (the facts the rules read). The interpreter itself is engine/interpreter/."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.facts import grouped
from hf_cache_lint.engine.facts.cache_use import CacheUse
from hf_cache_lint.engine.facts.generate_call import GenerateCall
from hf_cache_lint.engine.facts.hook_override import HookOverride
from hf_cache_lint.engine.interpreter import Interpreter, replay_store
from hf_cache_lint.engine.interpreter.backbone_generate import backbone_generate_facts
from hf_cache_lint.engine.interpreter.decoding_overrides import decoding_override_facts
from hf_cache_lint.engine.interpreter.fixed_forwards import fixed_forward_facts
from hf_cache_lint.engine.interpreter.hook_classes import update_reach
from hf_cache_lint.engine.interpreter.hooks import hook_facts
from hf_cache_lint.engine.interpreter.narrowing import reached
from hf_cache_lint.engine.interpreter.patched_attentions import patched_attention_facts
from hf_cache_lint.engine.interpreter.patched_self_reads import patched_self_read_facts
from hf_cache_lint.engine.interpreter.removed_api import removed_api_uses
from hf_cache_lint.engine.output.analysis import Analysis
from hf_cache_lint.engine.syntax import fast_parser, parsing
from hf_cache_lint.engine.syntax.nodes import statements_shared
from hf_cache_lint.engine.text.text import kept_lines

_GRAMMAR = fast_parser.grammar()  # parso's grammar, its tree built faster (engine/syntax/fast_parser.py)


def forget(incremental_key: str, unlink: bool = False) -> None:
    """Drop parso's kept tree for an editor buffer (the document closed): its memory goes with it, and the runs
    its last check recorded (replay.py: they are found again through the parser's moves of that tree).
    `unlink`: nothing holds the tree any more (a whole file's check is over): freed without the cyclic collector
    (engine/syntax/parsing.py `unlink_tree`)."""
    parsing.forget(_GRAMMAR, incremental_key, unlink)
    replay_store.forget(incremental_key)


def parse(text: str, incremental_key: str | None = None) -> object:
    """parso's error-recovering parse: a broken line leaves the rest of the tree intact."""
    if incremental_key:
        # parso's diff parser re-parses only what changed since the last text under this key (the same
        # cache jedi uses); it updates the previous tree in place, so callers opt in per document.
        try:
            # The lines the screen's word tests split the text into (text.py `contains`), where it has no `\r`.
            lines = kept_lines(text) if "\r" not in text else None
            return parsing.incremental_parse(_GRAMMAR, text, incremental_key, lines)
        except RecursionError:  # too deeply nested: a whole parse fails the same way (the caller notes it)
            forget(incremental_key)
            raise
        except Exception:  # the diff parser's asserts on a state it cannot handle: the kept tree is spoilt
            forget(incremental_key)
        return _GRAMMAR.parse(text, error_recovery=True, path=incremental_key, diff_cache=True, cache=False)
    return _GRAMMAR.parse(text, error_recovery=True)


def analyse(text: str, path: str, context: Context, tree: object | None = None,
            incremental: bool | str = False) -> Analysis:
    if tree is None:
        key = incremental if isinstance(incremental, str) else \
            path if incremental and not path.startswith("<") else None
        tree = parse(text, key)
    interpreter = Interpreter(text, path, context)
    interpreter.run_module(tree)
    s = interpreter.session
    assert s.guards is not None
    recorded = s.recorded
    with statements_shared(tree):  # the walks below read the tree's statements once
        try:
            hooks, sent = hook_facts(tree, text)
            uses = [f for f in recorded if isinstance(f, CacheUse)]
            if hooks and any(u.guard is not None for u in uses):  # isinstance guards false on the target (narrowing.py)
                kept = {id(u) for u in reached(uses, hooks, tree, context.target)}
                recorded = [f for f in recorded if not isinstance(f, CacheUse) or id(f) in kept]
                uses = [u for u in uses if id(u) in kept]
            if any(h.kind == "cache_update" for h in hooks):
                hooks = _with_reach(hooks, tree, uses, recorded)
            # An editor buffer's line starts, worked out for the replays' function keys (0.4 ms on utils.py).
            source = interpreter.functions.replays.source if interpreter.functions.replays is not None else None
            removed = removed_api_uses(tree, text, context.target, s.guards, tuple(uses),
                                       source.offsets if source is not None and source.text is text else None)
            backbones = [*backbone_generate_facts(tree, text), *fixed_forward_facts(tree, text),
                         *patched_attention_facts(tree, text), *patched_self_read_facts(tree, text, s.guards),
                         *decoding_override_facts(tree, text)]
        except RecursionError:  # a statement too deeply nested for its walk (the interpreter noted it)
            removed, hooks, sent, backbones = (), [], [], []
    return Analysis(text=text, path=path, context=context,
                    facts=grouped((*recorded, *removed, *hooks, *sent, *backbones)),
                    tree=tree,
                    version_guarded=tuple(sorted(s.version_guarded, key=lambda b: (b.span.start, b.span.end))),
                    stopped=s.stopped, skipped=tuple(s.skipped))


def _with_reach(hooks: list[HookOverride], tree: object, uses: list[CacheUse], recorded: Iterable[object]) \
        -> list[HookOverride]:
    """Each `Cache.update` override of a class of the module, with the classes inheriting it whose instances the
    module hands to a transformers model's forward (`cache_use` "forward") or generate (a cache argument's
    `instance_of`): only those calls pass the release's arguments to `update` (hook_classes.py `update_reach`). A
    class the module neither hands to a model nor uses itself stays unjudged (None): it may be used elsewhere."""
    reaching = frozenset({u.subclass for u in uses if u.op == "forward" and u.what == "cache" and u.subclass} |
                         {a.instance_of for f in recorded if isinstance(f, GenerateCall)
                          for a in f.cache_args if a.instance_of})
    # Instances the module uses itself, outside their class's own methods (`cache.layers` in a function).
    used = frozenset(u.subclass for u in uses if u.subclass and u.receiver not in ("self", "cls") and
                     not u.receiver.startswith("super("))
    return [replace(h, reached_by=update_reach(tree, (h.span.start.line, h.span.start.column), h.fails_first,
                                               reaching, used))
            if h.kind == "cache_update" else h for h in hooks]


__all__ = ["Interpreter", "analyse", "forget", "parse"]
