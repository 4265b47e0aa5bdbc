"""The removed-API reader's scopes (engine/interpreter/removed_api.py): which uses will run, and under what.
A branch a version guard excludes is not walked; a `try` whose handler catches the error, a `hasattr(x, "name")` /
`getattr(x, "name", ...)` test and a duck-typed compat condition (`if hasattr(cache, "layers"):`) make a use
handled; a use under a condition the analysis cannot decide carries that condition."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from hf_cache_lint.engine.facts.removed_api_use import UseKind
from hf_cache_lint.engine.interpreter.version_guard import VersionGuards
from hf_cache_lint.engine.syntax.nodes import Node, code
from hf_cache_lint.engine.syntax.use_scope import re_raises

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
class Scope:
    condition: str | None = None
    deferred: bool = False  # inside a function body: runs when called, not when the module loads
    caught: frozenset[str] = frozenset()  # exception names a surrounding try catches ("*": bare except)
    probed: frozenset[str] = frozenset()  # names a surrounding hasattr/getattr test looks for
    function: int = 0  # id() of the enclosing function node (0: the module), where a receiver's name is bound


def handled(kind: UseKind, name: str, scope: Scope) -> bool:
    return "*" in scope.caught or bool(scope.caught & _CATCHES[kind]) or name in scope.probed


def reported_elsewhere(read: str, scope: Scope, guard: str | None = None) -> bool:
    """Handled (a try catches it, a hasattr test looks for it) or on a duck-typed compat branch (`guard`: the
    receiver's `isinstance` test that says it is a cache, no compat probe on its own branch)."""
    return handled("read", read, scope) or (scope.condition is not None and _duck_typed(scope.condition, guard))


# `not isinstance(x, tuple)` (or `list`, or both): the branch a cache object takes, whatever API it has; the test
# sets the legacy format apart, it does not choose between cache APIs (PyramidKV's MInference hook reading
# `past_key_values.key_cache` under it, heldout20).
_NOT_LEGACY = re.compile(r"\bnot\s+isinstance\s*\(\s*\w+\s*,\s*(?:tuple|list|\(\s*(?:tuple|list)\s*,\s*(?:tuple|list)\s*\))\s*\)")


def _duck_typed(condition: str, guard: str | None) -> bool:
    """`condition` tests what the object has or is, but for `guard` (narrowing.py's test, as written) and a test
    that only sets a legacy tuple apart (`_NOT_LEGACY`)."""
    text = condition.replace(guard, "True") if guard else condition
    return bool(_DUCK_TYPED.search(_NOT_LEGACY.sub("True", text)))


def if_branches(node: Node, scope: Scope, guards: VersionGuards) -> Iterator[tuple[Node, Scope]]:
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
                yield suite, Scope(scope.condition, scope.deferred, scope.caught, probed, function=scope.function)
                return
            text = code(test)
            undecided.append(text)
            yield suite, Scope(scope.condition or text, scope.deferred, scope.caught, probed, function=scope.function)
            i += 4
        elif kid.type == "keyword" and kid.value == "else":
            probed = scope.probed
            for text in undecided:  # `if not hasattr(c, "to_legacy_cache"): ... else: c.to_legacy_cache()`
                probed = probed | _probed_names_text(text)
            condition = scope.condition or (f"not ({undecided[-1]})" if undecided else None)
            yield kids[i + 2], Scope(condition, scope.deferred, scope.caught, probed)
            return
        else:
            i += 1


def ternary(node: Node, scope: Scope, guards: VersionGuards) -> Iterator[tuple[Node, Scope]]:
    body, test, other = node.children[0], node.children[2], node.children[4]
    yield test, scope
    decided = guards.decide(test)
    probed = scope.probed | _probed_names(test)
    if decided is not False:
        yield body, Scope(scope.condition if decided else scope.condition or code(test), scope.deferred,
                           scope.caught, probed, function=scope.function)
    if decided is not True:
        yield other, Scope(scope.condition if decided is False else scope.condition or f"not ({code(test)})",
                            scope.deferred, scope.caught, probed, function=scope.function)


def try_parts(node: Node, scope: Scope) -> Iterator[tuple[Node, Scope]]:
    kids = node.children
    caught: set[str] = set()
    for i, kid in enumerate(kids):
        if re_raises(kids, i):
            continue  # its handler raises again: the error leaves the `try`
        if kid.type == "except_clause" and len(kid.children) >= 2:  # `except E`, `except (A, B) as e`
            caught.update(leaf.value.rsplit(".", 1)[-1] for leaf in _leaves(kid.children[1]) if leaf.type == "name")
        elif kid.type == "keyword" and kid.value == "except" and _bare(kids, kid):
            caught.add("*")
    body_seen = False
    for kid in kids:
        if kid.type == "suite" and not body_seen:
            body_seen = True
            yield kid, Scope(scope.condition, scope.deferred, scope.caught | frozenset(caught), scope.probed, function=scope.function)
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
