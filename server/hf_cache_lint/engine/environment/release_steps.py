"""The releases at which behaviour changes: the steps a range is checked at and `--upgrade-to` takes, and the
first release with something removed (the answers `Target` reads from the release table, compared release by
release)."""

from __future__ import annotations

from functools import lru_cache

from hf_cache_lint.engine.environment import releases
from hf_cache_lint.engine.environment.api_changes import (
    BEHAVIOUR_CHANGES,
    GENERATION_IMPORT_MODULES,
    HOOK_BEHAVIOURS,
    HOOK_SIGNATURES,
    REMOVED_CACHE_CLASSES,
    REMOVED_CACHE_METHODS,
    REMOVED_CACHE_READS,
    REMOVED_GENERATE_KEYWORDS,
    REMOVED_MODEL_CACHES,
)
from hf_cache_lint.engine.environment.release_version import NEWEST, V, Version
from hf_cache_lint.engine.environment.target import Target

# The parameters of those signatures HFC010/HFC011 read (a change of another one is no step for `--upgrade-to`).
_HOOK_NAMES = frozenset({"past_key_value", "past_key_values", "cache", "cache_position", "next_sequence_length"})


def releases_between(old: Target, new: Target) -> tuple[Target, ...]:
    """The behaviour changes after `old` up to and including `new`, in order, ending with `new` itself: the
    releases BEHAVIOUR_CHANGES names and those where an answer `Target` reads from the release table changes."""
    points = {V(v) for v in BEHAVIOUR_CHANGES} | set(table_changes())
    return (*(Target(v) for v in sorted(points) if old.version < v < new.version), new)


def _table_answers(t: Target) -> tuple[object, ...]:
    # Not the generation modules' names (Target.removed_generation_name): they change at most 5.x releases, which
    # would make every release a step of `--upgrade-to`; an import's finding is named at the next step instead.
    return (t.valid_cache_implementations, t.deprecated_cache_implementations,
            t.invalid_cache_implementation_message("?"), t.tuple_cache_is_error,
            *(t.import_fails(m, n) for m in _IMPORT_MODULES for n in REMOVED_CACHE_CLASSES),
            *(t.removed_cache_method(n) for n in REMOVED_CACHE_METHODS),
            *(t.removed_cache_read(r) for r in REMOVED_CACHE_READS),
            *(t.removed_keyword(n) for n in REMOVED_GENERATE_KEYWORDS),
            *(t.removed_model_cache(m, n) for m, names in REMOVED_MODEL_CACHES.items() for n in names),
            *(tuple(n for n in t.hook_signature(h) if n in _HOOK_NAMES) for h in HOOK_SIGNATURES),
            *(t.behaviour_since(b) for b in HOOK_BEHAVIOURS), t.sliding_crop_error, t.quantized_window_error)


@lru_cache(maxsize=1)
def first_removal() -> Version:
    """The first known release where something these tables name is gone: a target before it has nothing removed
    to report (engine/interpreter/removed_api.py skips its walk there)."""
    for release in releases.known_releases():
        t = Target(release)
        if any(a is not None for a in (*(t.import_fails(m, n) for m in _IMPORT_MODULES for n in REMOVED_CACHE_CLASSES),
                                      *(t.removed_cache_method(n) for n in REMOVED_CACHE_METHODS),
                                      *(t.removed_cache_read(r) for r in REMOVED_CACHE_READS),
                                      *(t.removed_model_cache(m, n) for m, names in REMOVED_MODEL_CACHES.items()
                                        for n in names))):
            return release
        if release >= _first_generation_removal():
            return release
    return V(NEWEST)


def _generation_facts() -> list[str]:
    """The release table's keys of the generation names an import can lose (Target.removed_generation_name)."""
    prefixes = tuple(f"name:{m}." for m in GENERATION_IMPORT_MODULES)
    return [key for key in releases.table().facts if key.startswith(prefixes)]


@lru_cache(maxsize=1)
def _first_generation_removal() -> Version:
    """The first release without a generation name an earlier release had."""
    return releases.first_gone(_generation_facts()) or V(NEWEST)


_IMPORT_MODULES = ("transformers", "transformers.cache_utils", "transformers.models.mamba.modeling_mamba")


@lru_cache(maxsize=1)
def table_changes() -> tuple[Version, ...]:
    """The releases at which any answer `Target` reads from the release table differs from the release before."""
    changes, previous = [], None
    for release in releases.known_releases():
        answers = _table_answers(Target(release))
        if previous is not None and answers != previous:
            changes.append(release)
        previous = answers
    return tuple(changes)

