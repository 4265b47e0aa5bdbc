"""Uses of cache APIs the target transformers no longer has: imports of removed cache classes, attribute
reads `transformers.HybridCache`, calls of removed Cache methods (`to_legacy_cache()`,
`DynamicCache.from_legacy_cache(...)`), and uses of a cache or model the interpreter says the code has (its
`cache_use` facts: engine/interpreter/cache_uses.py, wherever the value went: a parameter a caller fills, an
attribute, a helper's return, a forward output) through what the target's release removed, as the release table
says (engine/environment/releases.py): legacy indexing `cache[i]`, `for k, v in cache:`, any attribute or method the class
no longer has (`get_max_cache_shape()`, `max_batch_size`, `key_cache` / `value_cache`, `seen_tokens`,
`get_usable_length()`, a Mamba cache's `ssm_states`), a model's flags and helpers (`_supports_cache_class`,
`_get_cache(...)`). A removed method is reported only on a receiver the interpreter says is a transformers
cache (or cache class): a project's own class with the same method names is not.

Only uses that will run are reported: code under a version guard that excludes the target, under
`if TYPE_CHECKING:`, inside a `try` whose handler catches the error (ImportError, AttributeError,
Exception, a bare except), or behind a `hasattr(x, "name")` test is skipped. A use under a condition the
analysis cannot decide carries that condition (a Warning, not an Error).

The walk is here; its parts: removed_scopes.py (what a use runs under), removed_imports.py (imports of removed
names), removed_members.py (which recorded cache uses the target removed), removed_calls.py (removed names and
methods, constructor calls), removed_reads.py (removed reads of a known cache or model).
"""

from __future__ import annotations

import bisect
from collections.abc import Collection
from dataclasses import replace
from functools import partial
from itertools import accumulate, repeat

from parso.utils import split_lines

from hf_cache_lint.engine.base import process_state
from hf_cache_lint.engine.environment.api_changes import REMOVED_CACHE_CLASSES
from hf_cache_lint.engine.environment.release_steps import first_removal
from hf_cache_lint.engine.environment.releases_models import first_model_removal
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.engine.facts.cache_use import CacheUse
from hf_cache_lint.engine.facts.removed_api_use import RemovedApiUse
from hf_cache_lint.engine.interpreter.constructor_calls import imported_classes
from hf_cache_lint.engine.interpreter.removed_calls import chain_uses, constructor_uses
from hf_cache_lint.engine.interpreter.removed_imports import generation_imports, imports
from hf_cache_lint.engine.interpreter.removed_members import Reads
from hf_cache_lint.engine.interpreter.removed_model_names import (
    ModelModules,
    model_attribute_uses,
    model_imports,
    model_words,
)
from hf_cache_lint.engine.interpreter.removed_reads import cache_reads, defaulted_reads, unpacked
from hf_cache_lint.engine.interpreter.removed_reuse import (
    FunctionRuns,
    Walked,
    WatchedDefined,
    inputs,
    reuse_head,
)
from hf_cache_lint.engine.interpreter.removed_scopes import Scope, if_branches, ternary, try_parts
from hf_cache_lint.engine.interpreter.version_guard import VersionGuards
from hf_cache_lint.engine.syntax.nodes import Node, end_pos
from hf_cache_lint.engine.text.prefilter import might_construct, might_use_removed_api

_MODULE = Scope()  # the module's own statements' scope


def removed_api_uses(module: Node, text: str, target: Target, guards: VersionGuards,
                     uses: tuple[CacheUse, ...] = (), line_starts: list[int] | None = None) -> tuple[RemovedApiUse, ...]:
    """Every reached use of a cache API the target has removed, in source order (`uses`: the module's
    `cache_use` facts; `line_starts`: where each of the text's lines starts, as parso counts them, when the caller
    has them: function_keys.Source's offsets)."""
    reads = Reads(uses, target)
    # Cache classes the code imports from transformers, whose constructor calls are judged (constructor_calls.py).
    classes = imported_classes(module, text) if might_construct(text) else {}
    # The text test first: the release table's first removal is worked out once per process, only when a text
    # might use a removed API (not for the language server's start-up snippet: ~20 ms before the first diagnostics).
    if not reads and not classes and (not might_use_removed_api(text) or
                                      target.version < min(first_removal(), first_model_removal())):
        return ()
    user_methods = WatchedDefined(module, guards.modules)
    caches = reads if reads else None
    # Names of model modules and top-level exports the table holds (removed_model_names.py): only where the text
    # names a model module or a removed export.
    models = ModelModules(module, text, guards.modules) if model_words(text) else None
    quiet = _Quiet(text, (*classes, *(models.words if models is not None else ())), reads, line_starts)
    # A module-level function whose text and inputs are the last check's gets its last uses (removed_reuse.py).
    runs = FunctionRuns(inputs(target, guards, classes, models, reads, quiet.words), reads, user_methods,
                       quiet.lines_text)

    heads: dict[int, str] = {}  # reuse_head's class headers, by the class node (this check's tree)

    def walk(stack: list[tuple[Node, Scope]], into: Node | None = None) -> Walked:
        found: list[RemovedApiUse] = []
        functions: dict[int, object] = {}  # id() of a read found -> the function it is in
        while stack:
            node, scope = stack.pop()
            kids = getattr(node, "children", None)
            if kids is None:
                continue  # a leaf: every use below is read from a node
            t = node.type
            if t == "funcdef" and node is not into:  # `into`: a function `runs` found not quiet
                head = reuse_head(node, heads) if scope == _MODULE else None
                if head is not None:
                    got = runs.uses(node, partial(walk, [(node, scope)], node), quiet, head)
                    found.extend(got[0])
                    functions.update(got[1])
                    continue
                if quiet(node):
                    continue
            if t == "if_stmt":
                stack.extend(reversed(list(if_branches(node, scope, guards))))
                continue
            if t == "try_stmt":
                stack.extend(reversed(list(try_parts(node, scope))))
                continue
            if t == "test" and len(node.children) == 5:  # a if c else b
                stack.extend(reversed(list(ternary(node, scope, guards))))
                continue
            if t == "import_from":
                found.extend(imports(node, target, scope))
                found.extend(generation_imports(node, target, scope))
                if models is not None:
                    found.extend(model_imports(node, target, scope))
                continue
            if t in ("funcdef", "lambdef"):
                scope = replace(scope, deferred=True, function=id(node))
            if t in ("power", "atom_expr"):
                if classes:
                    found.extend(constructor_uses(node, classes, target, scope))
                found.extend(chain_uses(node, target, scope, guards, user_methods, reads))
                if models is not None:
                    found.extend(model_attribute_uses(node, target, scope, models, guards.modules))
                if caches is not None:
                    for u in cache_reads(node, target, scope, caches):
                        found.append(u)
                        functions[id(u)] = scope.function
                    found.extend(defaulted_reads(node, scope, caches))
            elif t in ("for_stmt", "sync_comp_for") and caches is not None:
                found.extend(unpacked(node, target, scope, caches))
            stack.extend(zip(reversed(kids), repeat(scope)))
        return found, functions

    found, functions = walk([(module, _MODULE)])
    runs.keep()
    # After `cache.key_cache = [...]` (reported as silent) the same receiver's `key_cache`, in the same function, is
    # that plain list: its reads raise nothing.
    quiet.keep_answers()
    bound = {(u.module, u.name, functions.get(id(u))) for u in found if u.silent}
    found = [u for u in found if u.silent or (u.module, u.name, functions.get(id(u))) not in bound]
    found.sort(key=lambda u: (u.span.start, u.name))
    # An import that fails as the module loads is reported, and the rest is checked as if it had succeeded (issue
    # 29 item 7; the interpreter goes on the same way, interpreter/statements.py).
    return tuple(found)


# The words of the last `_Quiet` and its answers by function text (a one-check memo: `_Quiet.keep_answers`).
_LAST_ANSWERS: tuple[tuple[str, ...], dict[str, bool]] | None = None


def _forget_answers() -> None:
    global _LAST_ANSWERS
    _LAST_ANSWERS = None


process_state.resettable("engine/interpreter/removed_api.py", "_LAST_ANSWERS", _forget_answers)


class _Quiet:
    """Whether a function can hold no use, by its text and place: the walk then skips it (most of a large module's
    functions; a keystroke re-reads the whole module).

    Every use is made from the leaves of the nodes it stands on, so it needs, inside the function: an import from
    transformers (the words `import` and `transformers`), a read of a removed class from the transformers module (the class's
    name), a call of an imported cache class (its local name), or a place the interpreter recorded a cache use at (a
    removed method's call, a removed read: `reads`, by line). A function without any of them gives none, whatever
    the scope it is in: skipping it changes nothing."""

    def __init__(self, text: str, classes: Collection[str], reads: Reads, starts: list[int] | None = None) -> None:
        self.text = text
        # `super().__init__(...)`: a subclass's call of an imported cache class's constructor (constructor_calls.py)
        self.words = (*REMOVED_CACHE_CLASSES, *classes, *(("__init__",) if classes else ()))
        self.lines = sorted({p.line for p, _ in reads.at} | {p.line for p in reads.calls})
        self._starts: list[int] | None = starts
        self.answers: dict[str, bool] = {}  # this check's, by function text: `keep_answers` keeps them for the next
        last = _LAST_ANSWERS
        self._last = last[1] if last is not None and last[0] == self.words else {}

    def keep_answers(self) -> None:
        """Keep this check's answers (only those: a buffer's edits do not pile up) for the next check's `_Quiet`."""
        global _LAST_ANSWERS
        _LAST_ANSWERS = self.words, self.answers

    def piece(self, node: Node) -> str:
        """The node's whole lines, from the first line's start to the last one's end: a little more text than the
        node's own."""
        return self.lines_text(node.start_pos[0], end_pos(node)[0])

    def lines_text(self, first: int, last: int) -> str:
        """The text of the lines `first` to `last` (1-based, whole lines): `piece` of a node on them."""
        if self._starts is None:  # each line's offset in the text, as parso counts lines (\r\n, \r, \n)
            text = self.text
            self._starts = list(accumulate(map((1).__add__, map(len, text.split("\n"))), initial=0)) \
                if "\r" not in text else [0, *accumulate(map(len, split_lines(text, keepends=True)))]
        starts = self._starts
        return self.text[starts[first - 1]:starts[last] if last < len(starts) else len(self.text)]

    def __call__(self, node: Node, piece: str | None = None) -> bool:
        first, last = node.start_pos[0], end_pos(node)[0]
        at = bisect.bisect_left(self.lines, first)
        if at < len(self.lines) and self.lines[at] <= last:
            return False
        # Whole lines: a little more text than the function's own, which can only keep a function from being skipped.
        piece = self.piece(node) if piece is None else piece
        # The answer depends only on the piece and the words: the last check's answers are reused (a keystroke
        # changes one function; a dozen words or more each searched in every function's text cost ~3 ms on
        # generation/utils.py, hashing the pieces a fraction of it).
        answer = self._last.get(piece)
        if answer is None:
            answer = not ("import" in piece and "transformers" in piece) and not any(word in piece for word in self.words)
        self.answers[piece] = answer
        return answer
