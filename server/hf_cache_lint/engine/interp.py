"""The abstract interpreter: runs a module's statements in order over abstract values.

It executes nothing. Per scope it keeps what is known about each name (a model and its
generation config, a GenerationConfig, a kwargs dict, a cache, a pipeline), follows branches with
their conditions, inlines calls to the module's own functions (bounded), and records every call
that reaches `generate` with the facts that meet there. Functions nobody calls in the module
(request handlers, methods) run afterwards against the module's final state, parameters unknown.
"""

from __future__ import annotations

import parso

from hf_cache_lint.engine.analysis import Analysis
from hf_cache_lint.engine.context import Context
from hf_cache_lint.engine.removed_api import removed_api_uses
from hf_cache_lint.engine.statements import Statements
from hf_cache_lint.engine.version_guard import VersionGuards

_GRAMMAR = parso.load_grammar()  # type: ignore[attr-defined]


class Interpreter(Statements):
    """Statements (statements.py) over expressions (evaluate.py) and known APIs (known.py)."""

    def run_module(self, tree: object) -> None:
        self.guards = VersionGuards(tree, self.target, self.text)
        self.exec_block(tree.children)  # type: ignore[attr-defined]
        self.module_done = True
        self.run_uncalled()


def forget(incremental_key: str) -> None:
    """Drop parso's kept tree for an editor buffer (the document closed): its memory goes with it."""
    import parso.cache

    parso.cache.parser_cache.get(_GRAMMAR._hashed, {}).pop(incremental_key, None)


def parse(text: str, incremental_key: str | None = None) -> object:
    """parso's error-recovering parse: a broken line leaves the rest of the tree intact."""
    if incremental_key:
        # parso's diff parser re-parses only what changed since the last text under this key (the same
        # cache jedi uses); it updates the previous tree in place, so callers opt in per document.
        return _GRAMMAR.parse(text, error_recovery=True, path=incremental_key, diff_cache=True, cache=False)
    return _GRAMMAR.parse(text, error_recovery=True)


def analyse(text: str, path: str, context: Context, tree: object | None = None,
            incremental: bool | str = False) -> Analysis:
    if tree is None:
        key = incremental if isinstance(incremental, str) else \
            path if incremental and not path.startswith("<") else None
        tree = parse(text, key)
    interp = Interpreter(text, path, context)
    interp.run_module(tree)
    assert interp.guards is not None
    try:
        removed = removed_api_uses(tree, text, context.target, interp.guards)
    except RecursionError:  # a statement too deeply nested for its walk (the interpreter noted it)
        removed = ()
    return Analysis(text=text, path=path, context=context, calls=tuple(interp.calls),
                    ci_values=tuple(dict.fromkeys(interp.ci_values)), tree=tree,
                    removed_api=removed,
                    version_guarded=tuple(sorted(interp.version_guarded, key=lambda b: (b[0].start, b[0].end))),
                    stopped=interp.stopped, skipped=tuple(interp.skipped))
