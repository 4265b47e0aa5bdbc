"""Uses of cache APIs the target transformers no longer has: imports of removed cache classes, attribute
reads `transformers.HybridCache`, calls of removed Cache methods (`to_legacy_cache()`,
`DynamicCache.from_legacy_cache(...)`), and reads of a cache the code says it has (a `generate(...,
return_dict_in_generate=True)` output's `past_key_values`, a `DynamicCache()` built here; engine/syntax/cache_values.py)
through APIs a version removed: legacy indexing `cache[i]`, `for k, v in cache:`, `get_max_cache_shape()`,
`StaticCache.max_cache_len`, and those gone before 4.57 (`key_cache` / `value_cache`, `seen_tokens`,
`get_usable_length()`).

Only uses that will run are reported: code under a version guard that excludes the target, under
`if TYPE_CHECKING:`, inside a `try` whose handler catches the error (ImportError, AttributeError,
Exception, a bare except), or behind a `hasattr(x, "name")` test is skipped. A use under a condition the
analysis cannot decide carries that condition (a Warning, not an Error).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass, replace
from itertools import repeat

from hf_cache_lint.engine.base.findings import Span
from hf_cache_lint.engine.environment.versions import REMOVED_MODEL_CACHES, Target, first_removal
from hf_cache_lint.engine.facts.removed_api_use import RemovedApiUse, UseKind
from hf_cache_lint.engine.interpreter.constructor_calls import imported_classes, rejected
from hf_cache_lint.engine.interpreter.version_guard import VersionGuards
from hf_cache_lint.engine.syntax.cache_values import CacheValues
from hf_cache_lint.engine.syntax.nodes import Node, code, imported_from, span
from hf_cache_lint.engine.syntax.own_names import OwnNames, own_names
from hf_cache_lint.engine.text.prefilter import (
    might_construct,
    might_read_removed_cache_api,
    might_use_removed_api,
)

# "read": a removed way of reading a known cache (`name` is its key in versions.REMOVED_CACHE_READS).

_CACHE_MODULES = ("transformers", "transformers.cache_utils", "transformers.models.mamba.modeling_mamba",
                  *REMOVED_MODEL_CACHES)
# Reads of a cache gone before 4.57, on the classes whose AttributeError was checked (4.57.6, 5.0.0, 5.24.0):
# a `DynamicCache` (what generate returns by default) and a `StaticCache`.
_OLD_READS = frozenset({"key_cache", "value_cache", "seen_tokens", "get_usable_length"})
_READS = frozenset({"subscript", "get_max_cache_shape", "max_cache_len"}) | _OLD_READS
_CALLED = frozenset({"get_max_cache_shape", "get_usable_length"})  # a reference without a call raises nothing
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


def removed_api_uses(module: Node, text: str, target: Target, guards: VersionGuards) -> tuple[RemovedApiUse, ...]:
    """Every reached use of a cache API the target has removed, in source order."""
    if not might_use_removed_api(text):
        return ()
    # Cache classes the code imports from transformers, whose constructor calls are judged (constructor_calls.py).
    classes = imported_classes(module) if might_construct(text) else {}
    if target.version < first_removal() and not classes:
        return ()
    user_methods = _Defined(module, guards.modules)
    caches = CacheValues(module, text, guards.modules) if might_read_removed_cache_api(text) else None
    found: list[RemovedApiUse] = []
    stack: list[tuple[Node, _Scope]] = [(module, _Scope())]
    while stack:
        node, scope = stack.pop()
        t = node.type
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
            continue
        if t in ("funcdef", "lambdef") and not scope.deferred:
            scope = replace(scope, deferred=True)
        if t in ("power", "atom_expr"):
            if classes:
                found.extend(_constructor_uses(node, classes, target, scope))
            found.extend(_chain_uses(node, target, scope, guards, user_methods))
            if caches is not None:
                found.extend(_cache_reads(node, target, scope, caches))
        elif t in ("for_stmt", "sync_comp_for") and caches is not None:
            found.extend(_unpacked(node, target, scope, caches))
        kids = getattr(node, "children", None)
        if kids is not None:
            stack.extend(zip(reversed(kids), repeat(scope)))
    # After `cache.key_cache = [...]` (reported as silent) the same receiver's `key_cache` is that plain list: its
    # reads raise nothing.
    bound = {(u.module, u.name) for u in found if u.silent}
    found = [u for u in found if u.silent or (u.module, u.name) not in bound]
    found.sort(key=lambda u: (u.span.start, u.name))
    # An import that fails as the module loads is reported, and the rest is checked as if it had succeeded (issue
    # 29 item 7; the interpreter goes on the same way, interpreter/statements.py).
    return tuple(found)


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
                                deferred=scope.deferred, keyword=r.keyword, error=r.error, parameters=r.parameters)


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
                user_methods: _Defined) -> Iterator[RemovedApiUse]:
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
        if scope.condition is not None:
            # Compat code calls the removed method on a fallback branch that tests the object first
            # (`if getattr(cache, "layers", None) is None:`, after an `isinstance(..., DynamicCache)` branch):
            # whether 5.x ever takes it, the code does not say (real cases: unsloth, optimum-intel).
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


def _cache_reads(node: Node, target: Target, scope: _Scope, caches: CacheValues) -> Iterator[RemovedApiUse]:
    """`cache[i]`, `cache.get_max_cache_shape()`, `static.max_cache_len`, `cache.key_cache[i]`, ... on a cache the
    code says it has."""
    kids = node.children
    for i in range(1, len(kids)):
        trailer = kids[i]
        if trailer.type != "trailer":
            continue
        opener = trailer.children[0].value
        read = "subscript" if opener == "[" else trailer.children[1].value if opener == "." else None
        if read not in _READS:
            continue
        removed = target.removed_cache_read(read)
        last = i == len(kids) - 1
        # `cache[0] = x` stores (4.57 had no item assignment either); `cache.key_cache = [...]` binds a plain
        # attribute; `cache.key_cache[i] = k` reads `key_cache` first, so it raises like any read.
        if removed is None or _reported_elsewhere(read, scope):
            continue
        silent = last and read in ("key_cache", "value_cache") and _bound_plainly(node)
        if (opener == "[" or last) and _is_target(node) and not silent:
            continue
        cache = caches.of(kids[:i])
        if cache is None or (read == "max_cache_len" and cache.cls != "StaticCache") or \
                (read in _OLD_READS and cache.cls not in (None, "DynamicCache", "StaticCache")):
            continue
        if read in _CALLED and not (not last and _is_call(kids[i + 1])):
            continue  # a reference without a call fails only when called
        receiver = _source(kids[:i])
        if read == "subscript":
            index = trailer.children[1]
            nxt = kids[i + 1] if i + 1 < len(kids) else None
            part = _part(nxt)
            end = nxt if part is not None else trailer
            yield RemovedApiUse("read", read, receiver, removed, Span(span(kids[0]).start, span(trailer).end),
                                Span(span(kids[0]).start, span(end).end), condition=scope.condition,
                                deferred=scope.deferred, cache=cache,
                                index=code(index) if index.type != "subscriptlist" else None, part=part)
        elif silent:
            name = trailer.children[1]
            yield RemovedApiUse("read", read, receiver, removed, span(name), None, condition=scope.condition,
                                deferred=scope.deferred, cache=cache, silent=True)
        elif read in ("key_cache", "value_cache"):
            # `cache.key_cache[i]`: the read `cache.layers[i].keys` replaces (a store into it: no replacement)
            nxt = kids[i + 1] if not last else None
            index = nxt.children[1] if nxt is not None and nxt.type == "trailer" and nxt.children[0].value == "[" \
                else None
            plain = index is not None and index.type != "subscriptlist" and ":" not in code(index) and \
                not (i + 1 == len(kids) - 1 and _is_target(node))
            name = trailer.children[1]
            yield RemovedApiUse("read", read, receiver, removed, span(name),
                                Span(span(kids[0]).start, span(nxt).end) if plain and nxt is not None else None,
                                condition=scope.condition, deferred=scope.deferred, cache=cache,
                                index=code(index) if plain and index is not None else None)
        else:
            name = trailer.children[1]
            yield RemovedApiUse("read", read, receiver, removed, span(name), span(name),
                                condition=scope.condition, deferred=scope.deferred, cache=cache)


def _unpacked(node: Node, target: Target, scope: _Scope, caches: CacheValues) -> Iterator[RemovedApiUse]:
    """`for k, v in cache:` (a loop or a comprehension) over a cache the code says it has."""
    names, iterable = node.children[1], node.children[3]
    removed = target.removed_cache_read("unpack")
    if removed is None or names.type != "exprlist" or _reported_elsewhere("unpack", scope):
        return
    if len([c for c in names.children if c.type != "operator"]) != 2:
        return  # `for k, v, s in cache` is 5.x's own shape; `for layer in cache` still iterates
    parts = [iterable] if iterable.type == "name" else list(iterable.children) \
        if iterable.type in ("power", "atom_expr") else []
    cache = caches.of(parts) if parts else None
    if cache is None or cache.cls not in (None, "DynamicCache"):
        return  # only DynamicCache (what generate returns by default) yields three; others differ per class
    yield RemovedApiUse("read", "unpack", code(iterable), removed, span(iterable), span(iterable),
                        condition=scope.condition, deferred=scope.deferred, cache=cache)


def _reported_elsewhere(read: str, scope: _Scope) -> bool:
    """Handled (a try catches it, a hasattr test looks for it) or on a duck-typed compat branch."""
    return _handled("read", read, scope) or (scope.condition is not None and bool(_DUCK_TYPED.search(scope.condition)))


def _part(trailer: Node | None) -> int | None:
    """0 or 1 for a `[0]` / `[1]` trailer (the keys or the values of a legacy `(keys, values)` pair)."""
    if trailer is None or trailer.type != "trailer" or trailer.children[0].value != "[":
        return None
    inner = trailer.children[1]
    return int(inner.value) if inner.type == "number" and inner.value in ("0", "1") else None


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
                yield suite, _Scope(scope.condition, scope.deferred, scope.caught, probed)
                return
            text = code(test)
            undecided.append(text)
            yield suite, _Scope(scope.condition or text, scope.deferred, scope.caught, probed)
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
                           scope.caught, probed)
    if decided is not True:
        yield other, _Scope(scope.condition if decided is False else scope.condition or f"not ({code(test)})",
                            scope.deferred, scope.caught, probed)


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
            yield kid, _Scope(scope.condition, scope.deferred, scope.caught | frozenset(caught), scope.probed)
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
