"""Which of the module's recorded `cache_use` facts (engine/interpreter/cache_uses.py) the target removed, by the
release table (engine/environment/releases.py), for the removed-API reader (engine/interpreter/removed_api.py):
members of a cache class or model gone at the target, legacy indexing, two-name loops, a private generate helper's
call the target's signature rejects, and the class the target's error names; and where the calls of removed Cache
methods stand (the evidence removed_calls.py needs)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from hf_cache_lint.engine.base.findings import Position
from hf_cache_lint.engine.environment import releases
from hf_cache_lint.engine.environment.api_changes import REMOVED_CACHE_METHODS
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.engine.facts.cache_use import SIGNATURE_HELPERS, CacheUse
from hf_cache_lint.engine.syntax.nodes import Node, span

# "read": a removed way of reading a known cache (`name` is its key in api_changes.REMOVED_CACHE_READS).

_CU = "transformers.cache_utils"
_GENERATION = "transformers.generation.utils"
# Stores that bind a plain attribute the cache's layers never read (checked on 4.57.6, 5.0.0 and 5.24.0: silent).
SILENT_STORES = frozenset({"key_cache", "value_cache"})
# `Cache` properties (4.54 to 5.19) that read the first layer's static size: on any other cache they raised before
# they were removed too (4.57.6's empty DynamicCache: IndexError, ValueError), so only a static cache's read breaks.
_STATIC_ONLY = frozenset({"max_cache_len", "max_batch_size"})


# `_seen_tokens`: the counter behind `Cache.seen_tokens` that a DynamicCache (and the classes built on it) set in
# `__init__`, gone with the property in 4.54.0 (the wheels: `self._seen_tokens` in cache_utils.py up to 4.53.3, nowhere
# from 4.54.0; the oracle: 4.53.0 reads 0, 4.57.6 raises AttributeError). The release table lists no private instance
# attribute, so the property's removal answers for it.
_COUNTERS = {"_seen_tokens": "seen_tokens"}
_COUNTER_CLASSES = frozenset({"DynamicCache", "OffloadedCache", "QuantizedCache", "QuantoQuantizedCache",
                              "HQQQuantizedCache", "OffloadedStaticCache"})


@dataclass(frozen=True)
class _Removed:
    """A recorded use the target removed: since which release, and the class its error names."""

    use: CacheUse
    removed: str
    shown: str
    error: str | None = None  # a call the target's signature rejects (`_misfit`): the TypeError


class Reads:
    """The module's `cache_use` facts the walk reports on, by where they stand: the uses the target removed (a
    member, legacy indexing, two-name loops), and every call of a removed Cache method on a receiver the
    interpreter says is a transformers cache or cache class (the evidence removed_calls.py `chain_uses` needs)."""

    def __init__(self, uses: tuple[CacheUse, ...], target: Target) -> None:
        self.at: dict[tuple[Position, str], _Removed] = {}
        self.names: set[str] = set()
        self.calls: dict[Position, CacheUse] = {}  # a removed method's call -> its use (receiver, class, guard)
        self.subscripts = self.loops = False
        for u in uses:
            if u.op == "call" and u.what == "cache" and u.name in REMOVED_CACHE_METHODS:
                had_call = self.calls.get(u.span.start)
                if had_call is None or (had_call.cls in (None, "Cache") and u.cls not in (None, "Cache")) or \
                        (had_call.guard is None and u.guard is not None and u.cls not in (None, "Cache")):
                    # The run that knows the concrete class tells the error's class; one whose `isinstance` test
                    # said it (the guard) tells that the branch is the cache's own, whichever run came first.
                    self.calls[u.span.start] = u
                continue  # reported by removed_calls.py `chain_uses`, as a removed method
            found = _removal(u, target) or _misfit(u, target)
            if found is None:
                continue
            where = "subscript" if u.op == "subscript" else "loop" if u.op == "iterate" else "name"
            key = (u.span.start, where)
            had = self.at.get(key)
            # One site, several runs (an uncalled function by its annotation, then inlined at a call): the run that
            # knows the concrete class tells the error's class.
            if had is None or (had.use.cls in (None, "Cache") and u.cls not in (None, "Cache")) or \
                    (had.use.guard is None and u.guard is not None and u.cls not in (None, "Cache")):
                self.at[key] = found  # as for `calls` above
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
    if u.op not in ("read", "call", "write") or (u.op == "write" and u.name not in SILENT_STORES):
        return None
    if u.what in ("config", "layer"):  # a GenerationConfig's or a cache layer's member (cache_uses.py `subject`)
        cls = u.cls or "GenerationConfig"
        removed = target.removed_member(u.module, cls, u.name)
        if removed is None:
            return None
        return _Removed(u, removed, cls)
    if u.what == "model":
        removed = target.removed_model_member(u.name)
        if removed is None:
            return None
        return _Removed(u, removed, u.subclass or u.cls or "")  # the project's subclass: the error names it
    if u.name in _STATIC_ONLY and "Static" not in (u.cls or ""):
        return None
    if u.name in _COUNTERS:  # a cache class that kept the counter (None: a model's DynamicCache)
        if (u.cls or "DynamicCache") not in _COUNTER_CLASSES:
            return None
        removed = target.removed_cache_read(_COUNTERS[u.name])
        return _Removed(u, removed, _shown(u, target)) if removed is not None else None
    module, cls = _defining(u, target)
    removed = target.removed_member(module, cls, u.name)
    if removed is None:
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
    if u.what in ("config", "layer") and u.op == "call" and not any(a.text.startswith("*") for a in u.arguments):
        return _member_misfit(u, target)
    if u.what != "model" or u.op != "call" or not u.name.startswith("_") or \
            ("cache" not in u.name.lower() and u.name not in SIGNATURE_HELPERS) or u.name in _OVERRIDDEN or \
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


def _member_misfit(u: CacheUse, target: Target) -> _Removed | None:
    """A method call on a GenerationConfig or a cache layer with arguments the target's signature rejects (a layer's
    `crop(max_length=n)`, whose parameter 5.15.0 renamed `tokens_to_remove`): reported only where an earlier
    release's signature took the same call, with the first release of the run that rejects it. The signature is
    the class's own where it defines the method, else the first base's on the way that does."""
    cls = u.cls or "GenerationConfig"
    owner = releases.owner(u.module, cls, u.name, target.version)
    if owner is None:
        return None
    fact = f"member:{u.module}.{owner}.{u.name}"
    signature = releases.value(fact, target.version)
    if signature is None or not signature.startswith("def"):
        return None
    positional = sum(1 for a in u.arguments if a.name is None)
    keywords = tuple(a.name for a in u.arguments if a.name is not None)
    error = _rejects(signature, f"{owner}.{u.name}", positional, keywords)
    if error is None:
        return None
    # The run of releases up to the target whose signature rejects the call, after one that took it.
    known = releases.known_releases()
    i = max((j for j, r in enumerate(known) if r <= target.version), default=None)  # the release the target is
    if i is None:
        return None
    while i > 0:
        before = releases.value(fact, known[i - 1])
        if before is None or _rejects(before, "", positional, keywords) is None:
            break
        i -= 1
    took = i > 0 and releases.value(fact, known[i - 1]) is not None
    return _Removed(u, str(known[i]), cls, error) if took else None


_RENAMED = re.compile(r"@deprecate_kwarg\('(\w+)'[^)]*?new_name='(\w+)'")


def _rejects(signature: str, qualname: str, positional: int, keywords: tuple[str, ...]) -> str | None:
    """releases.misfit, with the keyword renames of the signature's `@deprecate_kwarg(old, new_name=new)` applied
    (the decorator passes `old=` on as `new=`, with a warning: 5.15-5.18's `DynamicLayer.crop(max_length=n)`); a
    decorator without a new name (the keyword is dropped or passed on: not told) takes any call."""
    if "@deprecate_kwarg" in signature and "new_name=" not in signature:
        return None
    renames = dict(_RENAMED.findall(signature))
    return releases.misfit(signature, qualname, positional, tuple(renames.get(k, k) for k in keywords))


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
