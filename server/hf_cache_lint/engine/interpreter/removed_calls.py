"""Removed names read off transformers and removed methods called, for the removed-API reader
(engine/interpreter/removed_api.py): `transformers.HybridCache`, `cache.to_legacy_cache()` on a receiver the
interpreter says is a transformers cache (not on a project's own class with the same method names), and
constructor calls of imported cache classes the target rejects (constructor_calls.py)."""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator

from hf_cache_lint.engine.base.findings import Span
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.engine.facts.cache_use import CacheUse
from hf_cache_lint.engine.facts.removed_api_use import RemovedApiUse
from hf_cache_lint.engine.interpreter.constructor_calls import rejected
from hf_cache_lint.engine.interpreter.removed_members import Reads
from hf_cache_lint.engine.interpreter.removed_reads import is_target
from hf_cache_lint.engine.interpreter.removed_scopes import Scope, handled
from hf_cache_lint.engine.interpreter.version_guard import VersionGuards
from hf_cache_lint.engine.syntax.nodes import Node, code, span
from hf_cache_lint.engine.syntax.own_names import OwnNames, own_names


def constructor_uses(node: Node, classes: dict[str, tuple[str, str]], target: Target,
                      scope: Scope) -> Iterator[RemovedApiUse]:
    for r in rejected(node, classes, target):
        if handled("constructor", r.cls, scope):
            continue
        condition = scope.condition
        remeant = code(r.remeant).strip() if r.remeant is not None else None
        if r.remeant is not None and r.remeant.type != "number":
            # Only a number raises (None, still the default, builds an empty cache): the code says which it is
            # only for a literal.
            number = f"isinstance({remeant}, int)"
            condition = number if condition is None else f"{condition} and {number}"
        moved = r.remeant if r.remeant is not None else r.rebound
        yield RemovedApiUse("constructor", r.cls, r.module, r.since or "", r.span,
                            argument_span=span(moved) if moved is not None else None, condition=condition,
                            deferred=scope.deferred, keyword=r.keyword, error=r.error, parameters=r.parameters,
                            positional=r.positional, remeant=remeant, base_subclass=r.subclass,
                            rebound=code(r.rebound).strip() if r.rebound is not None else None)


class Defined:
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


def chain_uses(node: Node, target: Target, scope: Scope, guards: VersionGuards,
                user_methods: Defined, reads: Reads) -> Iterator[RemovedApiUse]:
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
            if removed is not None and not handled("attribute", attr, scope) and \
                    not (i == len(kids) - 1 and is_target(node)) and attr not in user_methods.shimmed():
                yield RemovedApiUse("attribute", attr, "transformers", removed, span(trailer.children[1]),
                                    condition=scope.condition)
            continue
        removed = target.removed_cache_method(attr)
        if removed is None or handled("method", attr, scope):
            continue
        at = span(trailer.children[1]).start
        if at not in reads.calls:
            continue  # a receiver the interpreter does not know as a transformers cache (or class): no evidence
        use = reads.calls[at]
        if attr in user_methods and not _transformers_class(use):
            # The module defines a function or method of that name: a receiver the code does not pin to
            # transformers' class may be the project's own object. Transformers' class itself
            # (`DynamicCache.from_legacy_cache(past)` with DynamicCache imported from transformers) never is: a project
            # class's `from_legacy_cache` is not what it calls (AdaKV: a head-wise cache defining its own, beside
            # `DynamicCache.from_legacy_cache` in the patched forward; issue 29 item 4).
            continue
        if user_methods.foreign_receiver(receiver) and not (use.subclass is not None and
                                                            use.description.startswith("the class ")):
            # A name bound only to the project's own things; but the project's subclass of a transformers cache
            # class that does not define the member (cache_uses.py `_class_subject`) calls transformers' classmethod.
            continue
        if scope.condition is not None and _compat_branch(scope.condition, use, receiver):
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
            condition=scope.condition, cache=use, shown_class=use.subclass or use.cls or "DynamicCache")


def _transformers_class(use: CacheUse) -> bool:
    """Whether the receiver is a transformers cache class itself, as imported (not the project's subclass)."""
    return use.subclass is None and use.cls is not None and use.description == f"the class `{use.cls}`"


# What makes a branch a compat probe: a test of what an object is or has (a None test of what a `getattr` gave), or
# of the installed version.
_PROBES = ("isinstance(", "hasattr(", "getattr(", "type(", "callable(", "version", " is None", " is not None")
# ... and for a call on a class (`DynamicCache.from_legacy_cache(x)`), only a test of what a class or module has: a
# test of the argument (`not isinstance(x, EncoderDecoderCache)`) does not say whether the class has the method.
_CLASS_PROBES = ("hasattr(", "getattr(", "version")


def _compat_branch(condition: str, use: CacheUse, receiver: list[Node]) -> bool:
    """Whether the undecided `condition` the removed method's call runs under is a compat probe (the code tests
    what it is given, and may never take this branch where the method is gone): a test of the object or its type
    (or the version), beyond the one `isinstance` guard that says the receiver is a cache. A flag
    (`if return_legacy_cache:`) or a None test of something else (`Cache is not None and isinstance(x, Cache)`)
    is not one: the branch runs whenever the flag is set, and the call raises there."""
    rest = condition
    if use.guard is not None:
        # The guard, and a None test of its class (`Cache is not None and isinstance(x, Cache)`: the class's import
        # may have failed), say the receiver is a cache: they are not the probe.
        shown = re.fullmatch(r"isinstance\(\s*\w+\s*,\s*([\w.]+)\s*\)", use.guard)
        parts = [p.strip() for p in rest.replace(use.guard, "True").split(" and ")]
        rest = " and ".join(p for p in parts if p != "True" and (shown is None or p != f"{shown[1]} is not None"))
    if not rest:
        return False
    if use.description.startswith("the class "):
        return any(p in rest for p in _CLASS_PROBES)
    root = receiver[0].value if receiver and receiver[0].type == "name" else None
    return any(p in rest for p in _PROBES) or (root is not None and re.search(rf"\b{re.escape(root)}\b", rest)
                                               is not None)
