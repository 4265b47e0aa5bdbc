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
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass, replace
from itertools import accumulate, repeat

from parso.utils import split_lines

from hf_cache_lint.engine.base.findings import Position, Span
from hf_cache_lint.engine.environment import releases
from hf_cache_lint.engine.environment.versions import (
    GENERATION_IMPORT_MODULES,
    REMOVED_CACHE_CLASSES,
    REMOVED_CACHE_METHODS,
    REMOVED_MODEL_CACHES,
    Target,
    Version,
    first_removal,
)
from hf_cache_lint.engine.facts.cache_use import CacheUse
from hf_cache_lint.engine.facts.removed_api_use import RemovedApiUse, UseKind
from hf_cache_lint.engine.interpreter.constructor_calls import imported_classes, rejected
from hf_cache_lint.engine.interpreter.version_guard import VersionGuards
from hf_cache_lint.engine.syntax.nodes import Node, call_args, code, end_pos, imported_from, span
from hf_cache_lint.engine.syntax.own_names import OwnNames, own_names
from hf_cache_lint.engine.text.prefilter import might_construct, might_use_removed_api

# "read": a removed way of reading a known cache (`name` is its key in versions.REMOVED_CACHE_READS).

_CACHE_MODULES = ("transformers", "transformers.cache_utils", "transformers.models.mamba.modeling_mamba",
                  *REMOVED_MODEL_CACHES)
_CU = "transformers.cache_utils"
_GENERATION = "transformers.generation.utils"
# Stores that bind a plain attribute the cache's layers never read (checked on 4.57.6, 5.0.0 and 5.24.0: silent).
_SILENT_STORES = frozenset({"key_cache", "value_cache"})
# `Cache` properties (4.54 to 5.19) that read the first layer's static size: on any other cache they raised before
# they were removed too (4.57.6's empty DynamicCache: IndexError, ValueError), so only a static cache's read breaks.
_STATIC_ONLY = frozenset({"max_cache_len", "max_batch_size"})
_CATCH_ALL = frozenset({"Exception", "BaseException"})
_CATCHES: dict[UseKind, frozenset[str]] = {
    "import": frozenset({"ImportError"}) | _CATCH_ALL,  # ModuleNotFoundError does not catch "cannot import name"
    "attribute": frozenset({"AttributeError"}) | _CATCH_ALL,
    "method": frozenset({"AttributeError"}) | _CATCH_ALL,
    "read": frozenset({"AttributeError", "TypeError", "ValueError"}) | _CATCH_ALL,
    "constructor": frozenset({"TypeError", "NotImplementedError", "RuntimeError"}) | _CATCH_ALL,
}
# A condition that tests the object before reading it is compat code choosing a branch by what the cache
# has (`if hasattr(cache, "layers"): ... else: cache[0]`): whether 5.x ever takes that branch, it does not say.
_DUCK_TYPED = re.compile(r"\b(?:hasattr|getattr|isinstance|type)\s*\(|\.layers\b")


@dataclass(frozen=True)
class _Scope:
    condition: str | None = None
    deferred: bool = False  # inside a function body: runs when called, not when the module loads
    caught: frozenset[str] = frozenset()  # exception names a surrounding try catches ("*": bare except)
    probed: frozenset[str] = frozenset()  # names a surrounding hasattr/getattr test looks for
    function: int = 0  # id() of the enclosing function node (0: the module), where a receiver's name is bound


def removed_api_uses(module: Node, text: str, target: Target, guards: VersionGuards,
                     uses: tuple[CacheUse, ...] = ()) -> tuple[RemovedApiUse, ...]:
    """Every reached use of a cache API the target has removed, in source order (`uses`: the module's
    `cache_use` facts)."""
    reads = _Reads(uses, target)
    # Cache classes the code imports from transformers, whose constructor calls are judged (constructor_calls.py).
    classes = imported_classes(module) if might_construct(text) else {}
    # The text test first: the release table's first removal is worked out once per process, only when a text
    # might use a removed API (not for the language server's start-up snippet: ~20 ms before the first diagnostics).
    if not reads and not classes and (not might_use_removed_api(text) or target.version < first_removal()):
        return ()
    user_methods = _Defined(module, guards.modules)
    caches = reads if reads else None
    quiet = _Quiet(text, classes, reads)
    found: list[RemovedApiUse] = []
    functions: dict[int, int] = {}  # id() of a read found -> the function it is in
    stack: list[tuple[Node, _Scope]] = [(module, _Scope())]
    while stack:
        node, scope = stack.pop()
        kids = getattr(node, "children", None)
        if kids is None:
            continue  # a leaf: every use below is read from a node
        t = node.type
        if t == "funcdef" and quiet(node):
            continue
        if t == "if_stmt":
            stack.extend(reversed(list(_if_branches(node, scope, guards))))
            continue
        if t == "try_stmt":
            stack.extend(reversed(list(_try_parts(node, scope))))
            continue
        if t == "test" and len(node.children) == 5:  # a if c else b
            stack.extend(reversed(list(_ternary(node, scope, guards))))
            continue
        if t == "import_from":
            found.extend(_imports(node, target, scope))
            found.extend(_generation_imports(node, target, scope))
            continue
        if t in ("funcdef", "lambdef"):
            scope = replace(scope, deferred=True, function=id(node))
        if t in ("power", "atom_expr"):
            if classes:
                found.extend(_constructor_uses(node, classes, target, scope))
            found.extend(_chain_uses(node, target, scope, guards, user_methods, reads))
            if caches is not None:
                for u in _cache_reads(node, target, scope, caches):
                    found.append(u)
                    functions[id(u)] = scope.function
                found.extend(_defaulted_reads(node, scope, caches))
        elif t in ("for_stmt", "sync_comp_for") and caches is not None:
            found.extend(_unpacked(node, target, scope, caches))
        stack.extend(zip(reversed(kids), repeat(scope)))
    # After `cache.key_cache = [...]` (reported as silent) the same receiver's `key_cache`, in the same function, is
    # that plain list: its reads raise nothing.
    bound = {(u.module, u.name, functions.get(id(u))) for u in found if u.silent}
    found = [u for u in found if u.silent or (u.module, u.name, functions.get(id(u))) not in bound]
    found.sort(key=lambda u: (u.span.start, u.name))
    # An import that fails as the module loads is reported, and the rest is checked as if it had succeeded (issue
    # 29 item 7; the interpreter goes on the same way, interpreter/statements.py).
    return tuple(found)


class _Quiet:
    """Whether a function can hold no use, by its text and place: the walk then skips it (most of a large module's
    functions; a keystroke re-reads the whole module).

    Every use is made from the leaves of the nodes it stands on, so it needs, inside the function: an import from
    transformers (the words `import` and `transformers`), a read of a removed class from the transformers module (the class's
    name), a call of an imported cache class (its local name), or a place the interpreter recorded a cache use at (a
    removed method's call, a removed read: `reads`, by line). A function without any of them gives none, whatever
    the scope it is in: skipping it changes nothing."""

    def __init__(self, text: str, classes: Collection[str], reads: _Reads) -> None:
        self.text = text
        self.words = (*REMOVED_CACHE_CLASSES, *classes)
        self.lines = sorted({p.line for p, _ in reads.at} | {p.line for p in reads.calls})
        self._starts: list[int] | None = None

    def __call__(self, node: Node) -> bool:
        first, last = node.start_pos[0], end_pos(node)[0]
        at = bisect.bisect_left(self.lines, first)
        if at < len(self.lines) and self.lines[at] <= last:
            return False
        if self._starts is None:  # each line's offset in the text, as parso counts lines (\r\n, \r, \n)
            text = self.text
            self._starts = list(accumulate(map((1).__add__, map(len, text.split("\n"))), initial=0)) \
                if "\r" not in text else [0, *accumulate(map(len, split_lines(text, keepends=True)))]
        starts = self._starts
        # Whole lines, from the first line's start to the last one's end: a little more text than the function's
        # own, which can only keep a function from being skipped.
        piece = self.text[starts[first - 1]:starts[last] if last < len(starts) else len(self.text)]
        return not ("import" in piece and "transformers" in piece) and not any(word in piece for word in self.words)


def import_fails(source: str, name: str, target: Target) -> str | None:
    """The release since which `from <source> import <name>` raises ImportError, if the target is past it."""
    if source not in _CACHE_MODULES:
        return None
    if source in REMOVED_MODEL_CACHES:
        return target.removed_model_cache(source, name)
    return target.import_fails(source, name)  # what the release table says that module binds at the target


def _constructor_uses(node: Node, classes: dict[str, tuple[str, str]], target: Target,
                      scope: _Scope) -> Iterator[RemovedApiUse]:
    for r in rejected(node, classes, target):
        if not _handled("constructor", r.cls, scope):
            yield RemovedApiUse("constructor", r.cls, r.module, r.since or "", r.span, condition=scope.condition,
                                deferred=scope.deferred, keyword=r.keyword, error=r.error, parameters=r.parameters,
                                positional=r.positional)


def _handled(kind: UseKind, name: str, scope: _Scope) -> bool:
    return "*" in scope.caught or bool(scope.caught & _CATCHES[kind]) or name in scope.probed


def _imports(node: Node, target: Target, scope: _Scope) -> Iterator[RemovedApiUse]:
    source = imported_from(node)
    if node.level != 0 or source not in _CACHE_MODULES:
        return
    for bound in node.get_defined_names():
        name_node = node.get_path_for_name(bound)[-1]  # the original name, not its alias
        name = name_node.value
        removed = import_fails(source, name, target)
        if removed is None or _handled("import", name, scope):
            continue
        yield RemovedApiUse("import", name, source, removed, span(name_node), condition=scope.condition,
                            deferred=scope.deferred)


def _generation_imports(node: Node, target: Target, scope: _Scope) -> Iterator[RemovedApiUse]:
    """`from transformers.generation.utils import _crop_past_key_values`, `from transformers.generation import
    GreedySearchDecoderOnlyOutput`: any name a generation module (or the top level, from `generation`) lost by the
    target, as the release table says (versions.GENERATION_IMPORT_MODULES)."""
    source = imported_from(node)
    if node.level != 0 or (source != "transformers" and source not in GENERATION_IMPORT_MODULES):
        return
    for bound in node.get_defined_names():
        name_node = node.get_path_for_name(bound)[-1]  # the original name, not its alias
        name = name_node.value
        removed = target.removed_generation_name(source, name)
        if removed is None or _handled("import", name, scope):
            continue
        yield RemovedApiUse("import", name, source, removed, span(name_node), condition=scope.condition,
                            deferred=scope.deferred)


class _Defined:
    """engine/syntax/own_names.py's answers for the module, worked out the first time a removed name is read: most
    modules read none, and the walk is over every node."""

    def __init__(self, module: Node, modules: Collection[str]) -> None:
        self.module = module
        self.modules = modules
        self._names: OwnNames | None = None

    @property
    def names(self) -> OwnNames:
        if self._names is None:
            self._names = own_names(self.module, self.modules)
        return self._names

    def __contains__(self, name: str) -> bool:
        """Whether the module defines a function of this name (a user `to_legacy_cache` is not transformers')."""
        return name in self.names.functions

    def shimmed(self) -> frozenset[str]:
        """The names the module stores onto a transformers module (`transformers.SinkCache = None`)."""
        return self.names.shimmed

    def foreign_receiver(self, receiver: list[Node]) -> bool:
        """Whether the receiver's first name is bound only to something that is not transformers'."""
        return bool(receiver) and receiver[0].type == "name" and receiver[0].value in self.names.foreign


def _chain_uses(node: Node, target: Target, scope: _Scope, guards: VersionGuards,
                user_methods: _Defined, reads: _Reads) -> Iterator[RemovedApiUse]:
    kids = node.children
    for i in range(1, len(kids)):
        trailer = kids[i]
        if trailer.type != "trailer" or trailer.children[0].value != "." or len(trailer.children) < 2:
            continue
        attr = trailer.children[1].value
        receiver = kids[:i]
        if i == 1 and kids[0].type == "name" and kids[0].value in guards.modules:
            removed = target.removed_cache_class(attr)
            # `transformers.HybridCache = None` (a fallback in `except ImportError:`) stores, it does not read; and
            # once the code stores a name onto the module, reading it finds what was stored (a compat shim).
            if removed is not None and not _handled("attribute", attr, scope) and \
                    not (i == len(kids) - 1 and _is_target(node)) and attr not in user_methods.shimmed():
                yield RemovedApiUse("attribute", attr, "transformers", removed, span(trailer.children[1]),
                                    condition=scope.condition)
            continue
        removed = target.removed_cache_method(attr)
        if removed is None or attr in user_methods or _handled("method", attr, scope) or \
                user_methods.foreign_receiver(receiver):
            continue
        at = span(trailer.children[1]).start
        if at not in reads.calls:
            continue  # a receiver the interpreter does not know as a transformers cache (or class): no evidence
        guard = reads.calls[at]
        if scope.condition is not None and (guard is None or scope.condition.replace(guard, "True") != "True"):
            # Compat code calls the removed method on a fallback branch that tests the object first
            # (`if getattr(cache, "layers", None) is None:`, after an `isinstance(..., DynamicCache)` branch):
            # whether 5.x ever takes it, the code does not say (real cases: unsloth, optimum-intel). Only the branch
            # of the one `isinstance(cache, Cache)` test that says the receiver is a cache is the cache's own.
            continue
        call = kids[i + 1] if i + 1 < len(kids) else None
        if call is None or call.type != "trailer" or call.children[0].value != "(":
            continue  # `getattr`-free references (`f = cache.to_legacy_cache`) fail only when called
        argument = call.children[1] if len(call.children) == 3 else None
        yield RemovedApiUse(
            "method", attr, "".join(code(k) if j == 0 else k.get_code() for j, k in enumerate(receiver)),
            removed, span(trailer.children[1]), Span(span(kids[0]).start, span(call).end),
            span(argument) if argument is not None and argument.type not in ("arglist", "argument") else None,
            condition=scope.condition)


@dataclass(frozen=True)
class _Removed:
    """A recorded use the target removed: since which release, and the class its error names."""

    use: CacheUse
    removed: str
    shown: str
    error: str | None = None  # a call the target's signature rejects (`_misfit`): the TypeError


class _Reads:
    """The module's `cache_use` facts the walk reports on, by where they stand: the uses the target removed (a
    member, legacy indexing, two-name loops), and every call of a removed Cache method on a receiver the
    interpreter says is a transformers cache or cache class (the evidence `_chain_uses` needs)."""

    def __init__(self, uses: tuple[CacheUse, ...], target: Target) -> None:
        self.at: dict[tuple[Position, str], _Removed] = {}
        self.names: set[str] = set()
        self.calls: dict[Position, str | None] = {}  # a removed method's call -> its receiver's `guard`
        self.subscripts = self.loops = False
        for u in uses:
            if u.op == "call" and u.what == "cache" and u.name in REMOVED_CACHE_METHODS:
                self.calls[u.span.start] = u.guard
                continue  # reported by `_chain_uses`, as a removed method
            found = _removal(u, target) or _misfit(u, target)
            if found is None:
                continue
            where = "subscript" if u.op == "subscript" else "loop" if u.op == "iterate" else "name"
            key = (u.span.start, where)
            had = self.at.get(key)
            # One site, several runs (an uncalled function by its annotation, then inlined at a call): the run that
            # knows the concrete class tells the error's class.
            if had is None or (had.use.cls in (None, "Cache") and u.cls not in (None, "Cache")):
                self.at[key] = found
            self.names.add(u.name)
            self.subscripts = self.subscripts or where == "subscript"
            self.loops = self.loops or where == "loop"

    def __bool__(self) -> bool:
        return bool(self.at)

    def get(self, node: Node, where: str) -> _Removed | None:
        return self.at.get((span(node).start, where))


def _removal(u: CacheUse, target: Target) -> _Removed | None:
    """Whether (and since when) the target removed what the use does, by the release table."""
    if u.op == "subscript" and u.what == "cache":
        removed = target.removed_cache_read("subscript")
        return _Removed(u, removed, _shown(u, target)) if removed is not None else None
    if u.op == "iterate" and u.what == "cache" and u.targets == 2 and u.cls in (None, "DynamicCache"):
        # only DynamicCache (what generate returns by default) yields three; others differ per class
        removed = target.removed_cache_read("unpack")
        return _Removed(u, removed, _shown(u, target)) if removed is not None else None
    if u.op not in ("read", "call", "write") or (u.op == "write" and u.name not in _SILENT_STORES):
        return None
    if u.what == "model":
        removed = target.removed_model_member(u.name)
        if removed is None or (u.op == "read" and _was_method(_GENERATION, "GenerationMixin", u.name, removed)):
            return None  # a reference without a call fails only when called
        return _Removed(u, removed, u.cls or "")
    if u.name in _STATIC_ONLY and "Static" not in (u.cls or ""):
        return None
    module, cls = _defining(u, target)
    removed = target.removed_member(module, cls, u.name)
    if removed is None or (u.op == "read" and _was_method(module, cls, u.name, removed)):
        return None
    return _Removed(u, removed, _shown(u, target))


# The GenerationMixin methods models override with their own parameters (the release table's reference-model hooks):
# a call of one on a model is judged by that model's signature, which the table does not have for every model.
_OVERRIDDEN = frozenset({"forward", "prepare_inputs_for_generation", "_update_model_kwargs_for_generation",
                         "_reorder_cache"})


def _misfit(u: CacheUse, target: Target) -> _Removed | None:
    """A model's call of a private GenerationMixin helper the target has, with arguments its signature there
    rejects (`model._get_initial_cache_position(input_ids, model_kwargs)` on 4.52+, which takes `(seq_length,
    device, model_kwargs)`): reported only when an earlier release's signature took the same call (the code was
    written for it), with the first release of the run of signatures up to the target that reject it. Spread arguments are not judged."""
    if u.what != "model" or u.op != "call" or not u.name.startswith("_") or u.name in _OVERRIDDEN or \
            any(a.text.startswith("*") for a in u.arguments):
        return None
    signature = releases.member(_GENERATION, "GenerationMixin", u.name, target.version)
    if signature is None or not signature.startswith("def"):
        return None
    positional = sum(1 for a in u.arguments if a.name is None)
    keywords = tuple(a.name for a in u.arguments if a.name is not None)
    error = releases.misfit(signature, f"GenerationMixin.{u.name}", positional, keywords)
    if error is None:
        return None
    since = releases.rejected_since(f"member:{_GENERATION}.GenerationMixin.{u.name}", target.version, positional,
                                    keywords)
    if since is None:
        return None  # no release took this call: not a change of transformers'
    return _Removed(u, str(since), u.cls or "", error)


def _defining(u: CacheUse, target: Target) -> tuple[str, str]:
    """The module whose class the release table answers for: the recorded one where the target defines the class,
    else cache_utils or where the top level exports it from (Mamba's cache moved between them)."""
    cls = u.cls or "DynamicCache"
    if target.class_exists(u.module, cls):
        return u.module, cls
    if target.class_exists(_CU, cls):
        return _CU, cls
    exported = releases.value(f"export:transformers.{cls}", target.version)
    return (f"transformers.{exported}", cls) if exported else (u.module, cls)


def _shown(u: CacheUse, target: Target) -> str:
    """The class the target's error names: the cache's own, or, for a model's own cache class the target no longer
    has (Mamba's `MambaCache` from 5.5: checked on 5.23.0), the `DynamicCache` the model returns instead."""
    if u.subclass is not None:  # the project's own subclass: the error names it
        return u.subclass
    cls = u.cls or "DynamicCache"
    if cls == "Cache":  # the abstract base an annotation names: the instance is one of its subclasses
        return "DynamicCache"
    module, _ = _defining(u, target)
    return cls if target.class_exists(module, cls) or module == _CU else "DynamicCache"


def _was_method(module: str, cls: str, name: str, removed: str) -> bool:
    """Whether `cls.name` was a method in the last release that had it (a reference to it alone raises nothing)."""
    known = releases.known_releases()
    i = known.index(Version.parse(removed))
    before = releases.member(module, cls, name, known[i - 1]) if i > 0 else None
    return bool(before and before.startswith(("def", "classmethod", "staticmethod")))


def _cache_reads(node: Node, target: Target, scope: _Scope, reads: _Reads) -> Iterator[RemovedApiUse]:
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
        if found is None or _reported_elsewhere(read, scope, found.use.guard):
            continue
        last = i == len(kids) - 1
        # `cache[0] = x` stores (4.57 had no item assignment either); `cache.key_cache = [...]` binds a plain
        # attribute; `cache.key_cache[i] = k` reads `key_cache` first, so it raises like any read.
        silent = found.use.op == "write"
        if (opener == "[" or last) and _is_target(node) and not silent:
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
        elif read in _SILENT_STORES:
            # `cache.key_cache[i]`: the read `cache.layers[i].keys` replaces (a store into it: no replacement)
            nxt = kids[i + 1] if not last else None
            index = nxt.children[1] if nxt is not None and nxt.type == "trailer" and nxt.children[0].value == "[" \
                else None
            plain = index is not None and index.type != "subscriptlist" and ":" not in code(index) and \
                not (i + 1 == len(kids) - 1 and _is_target(node))
            name = trailer.children[1]
            yield RemovedApiUse("read", read, receiver, removed, span(name),
                                Span(span(kids[0]).start, span(nxt).end) if plain and nxt is not None else None,
                                condition=scope.condition, deferred=scope.deferred, cache=cache, shown_class=shown,
                                index=code(index) if plain and index is not None else None)
        elif found.error is not None:  # a call whose arguments the target's signature rejects (`_misfit`)
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


def _defaulted_reads(node: Node, scope: _Scope, reads: _Reads) -> Iterator[RemovedApiUse]:
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
    if found is None or found.use.what != "cache" or found.use.name not in _SILENT_STORES or \
            default not in _EMPTY_DEFAULTS or _reported_elsewhere(found.use.name, scope, found.use.guard):
        return
    yield RemovedApiUse("read", found.use.name, code(args[0].value).strip(), found.removed, span(args[1].value),
                        None, condition=scope.condition, deferred=scope.deferred, cache=found.use,
                        shown_class=found.shown, default=default)


def _unpacked(node: Node, target: Target, scope: _Scope, reads: _Reads) -> Iterator[RemovedApiUse]:
    """`for k, v in cache:` (a loop) over a cache the interpreter says the code has."""
    iterable = node.children[3]
    found = reads.get(iterable, "loop") if reads.loops else None
    if found is None or _reported_elsewhere("unpack", scope, found.use.guard):
        return
    yield RemovedApiUse("read", "unpack", code(iterable), found.removed, span(iterable), span(iterable),
                        condition=scope.condition, deferred=scope.deferred, cache=found.use, shown_class=found.shown)


def _reported_elsewhere(read: str, scope: _Scope, guard: str | None = None) -> bool:
    """Handled (a try catches it, a hasattr test looks for it) or on a duck-typed compat branch (`guard`: the
    receiver's `isinstance` test that says it is a cache, no compat probe on its own branch)."""
    return _handled("read", read, scope) or (scope.condition is not None and _duck_typed(scope.condition, guard))


def _duck_typed(condition: str, guard: str | None) -> bool:
    """`condition` tests what the object has or is, but for `guard` (narrowing.py's test, as written)."""
    return bool(_DUCK_TYPED.search(condition.replace(guard, "True") if guard else condition))


def _part(trailer: Node | None) -> int | None:
    """0-3 for a `[0]` ... `[3]` trailer (the keys or the values of a legacy `(keys, values)` pair, or of an
    encoder-decoder's `(self_keys, self_values, cross_keys, cross_values)`)."""
    if trailer is None or trailer.type != "trailer" or trailer.children[0].value != "[":
        return None
    inner = trailer.children[1]
    # 2 and 3: the cross-attention keys and values of an EncoderDecoderCache's legacy 4-tuple.
    return int(inner.value) if inner.type == "number" and inner.value in ("0", "1", "2", "3") else None


def _is_target(node: Node) -> bool:
    """`cache[0] = x`, `del cache[0]`: a store, not a read (4.57 had no item assignment either)."""
    parent = node.parent
    if parent is not None and parent.type == "del_stmt":
        return True
    if parent is None or parent.type != "expr_stmt":
        return False
    kids = parent.children
    return kids.index(node) < len(kids) - 1 and kids[kids.index(node) + 1].type in ("operator", "annassign") \
        and (kids[kids.index(node) + 1].type == "annassign" or kids[kids.index(node) + 1].value.endswith("="))


def _bound_plainly(node: Node) -> bool:
    """`cache.key_cache = x` (or `a = cache.key_cache = x`): a plain binding, which reads nothing first."""
    parent = node.parent
    if parent is None or parent.type != "expr_stmt":
        return False
    kids = parent.children
    i = kids.index(node)
    return bool(i < len(kids) - 1 and kids[i + 1].type == "operator" and kids[i + 1].value == "=")


def _is_call(trailer: Node) -> bool:
    return bool(trailer.type == "trailer" and trailer.children[0].value == "(")


def _source(parts: list[Node]) -> str:
    return "".join(code(k) if j == 0 else k.get_code() for j, k in enumerate(parts))


def _if_branches(node: Node, scope: _Scope, guards: VersionGuards) -> Iterator[tuple[Node, _Scope]]:
    kids = node.children
    i = 0
    undecided: list[str] = []
    while i < len(kids):
        kid = kids[i]
        if kid.type == "keyword" and kid.value in ("if", "elif"):
            test, suite = kids[i + 1], kids[i + 3]
            yield test, scope
            decided = guards.decide(test)
            if decided is False:
                i += 4
                continue
            probed = scope.probed | _probed_names(test)
            if decided is True:
                yield suite, _Scope(scope.condition, scope.deferred, scope.caught, probed, function=scope.function)
                return
            text = code(test)
            undecided.append(text)
            yield suite, _Scope(scope.condition or text, scope.deferred, scope.caught, probed, function=scope.function)
            i += 4
        elif kid.type == "keyword" and kid.value == "else":
            probed = scope.probed
            for text in undecided:  # `if not hasattr(c, "to_legacy_cache"): ... else: c.to_legacy_cache()`
                probed = probed | _probed_names_text(text)
            condition = scope.condition or (f"not ({undecided[-1]})" if undecided else None)
            yield kids[i + 2], _Scope(condition, scope.deferred, scope.caught, probed)
            return
        else:
            i += 1


def _ternary(node: Node, scope: _Scope, guards: VersionGuards) -> Iterator[tuple[Node, _Scope]]:
    body, test, other = node.children[0], node.children[2], node.children[4]
    yield test, scope
    decided = guards.decide(test)
    probed = scope.probed | _probed_names(test)
    if decided is not False:
        yield body, _Scope(scope.condition if decided else scope.condition or code(test), scope.deferred,
                           scope.caught, probed, function=scope.function)
    if decided is not True:
        yield other, _Scope(scope.condition if decided is False else scope.condition or f"not ({code(test)})",
                            scope.deferred, scope.caught, probed, function=scope.function)


def _try_parts(node: Node, scope: _Scope) -> Iterator[tuple[Node, _Scope]]:
    kids = node.children
    caught: set[str] = set()
    for kid in kids:
        if kid.type == "except_clause" and len(kid.children) >= 2:  # `except E`, `except (A, B) as e`
            caught.update(leaf.value.rsplit(".", 1)[-1] for leaf in _leaves(kid.children[1]) if leaf.type == "name")
        elif kid.type == "keyword" and kid.value == "except" and _bare(kids, kid):
            caught.add("*")
    body_seen = False
    for kid in kids:
        if kid.type == "suite" and not body_seen:
            body_seen = True
            yield kid, _Scope(scope.condition, scope.deferred, scope.caught | frozenset(caught), scope.probed, function=scope.function)
        elif kid.type == "suite" or kid.type == "simple_stmt":
            yield kid, scope


def _bare(kids: list[Node], kw: Node) -> bool:
    i = kids.index(kw)
    return i + 1 < len(kids) and kids[i + 1].type == "operator" and kids[i + 1].value == ":"


def _probed_names(test: Node) -> frozenset[str]:
    return _probed_names_text(test.get_code())


def _probed_names_text(text: str) -> frozenset[str]:
    """Names a `hasattr(x, "name")` / `getattr(x, "name", ...)` test looks for."""
    return frozenset(re.findall(r"""\b(?:hasattr|getattr)\s*\([^,()]*(?:\([^()]*\))?[^,()]*,\s*['"](\w+)['"]""", text))


def _leaves(node: Node) -> Iterator[Node]:
    stack = [node]
    while stack:
        n = stack.pop()
        if hasattr(n, "children"):
            stack.extend(reversed(n.children))
        else:
            yield n
