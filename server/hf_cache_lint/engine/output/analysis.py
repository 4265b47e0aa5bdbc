"""What the engine learned about one file: its facts, by kind (engine/facts), and what the budget left out.

Rules read an `Analysis` (`analysis.of(KIND)`); they never walk the tree themselves for facts about values. The
fact dataclasses live each in its kind's module (engine/facts/*.py) and are re-exported here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from hf_cache_lint.engine.base.findings import Span
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.facts import FactKind, T
from hf_cache_lint.engine.facts.ci_value import CiValue
from hf_cache_lint.engine.facts.generate_call import (
    CacheArg,
    CacheImpl,
    ConfigKeyword,
    GenerateCall,
    Keyword,
    ModelInfo,
    SpreadKeyword,
)
from hf_cache_lint.engine.facts.removed_api_use import RemovedApiUse

# The fact vocabulary: every string a rule compares a fact's kind, source or location with.
# How a `cache_implementation` reaches a call (CacheImpl.via; the words for each: rules/common.py `source_words`).
CiSource = Literal["keyword", "kwargs", "generation_config", "model", "checkpoint", "pipeline", "hub-default",
                   "wrapper"]
# What a cache argument's value is known to be (CacheArg.kind).
CacheKind = Literal["none", "cache", "tuple", "unknown", "other"]
# What reaches `GenerationMixin.generate` (GenerateCall.kind).
CallKind = Literal["generate", "pipeline"]
# Where a `cache_implementation` value is written (CiValue.where).
CiLocation = Literal["keyword", "GenerationConfig", "attribute", "dict", "json"]


class Branch(NamedTuple):
    """A branch condition a value depends on: the test as written and the side it was set on (two values set
    under one test on different sides never meet)."""

    test: str
    holds: bool


class GuardedBlock(NamedTuple):
    """A block under a transformers-version test the analysis cannot decide, and the test's text."""

    span: Span
    test: str


@dataclass(frozen=True)
class Site:
    """Where a value was set, for related locations and hover links. `path` None: this file."""

    span: Span
    description: str
    path: str | None = None


@dataclass(frozen=True)
class Incomplete:
    """Why and where an analysis stopped short: the rest of the file was not analysed (or, for a
    statement too deeply nested to analyse, that statement only)."""

    reason: str
    line: int


@dataclass(frozen=True)
class Analysis:
    """Everything the rules need about one source file."""

    text: str
    path: str
    context: Context
    # The facts by kind name (engine/facts: the registry), each kind's in the order recorded: read with `of`.
    facts: Mapping[str, tuple[Any, ...]] = field(default_factory=dict, hash=False)
    # Blocks under a transformers-version test the analysis cannot decide, with the test's text: a finding
    # there holds only on the versions the test admits (so it is a Warning, never an Error).
    version_guarded: tuple[GuardedBlock, ...] = ()
    tree: Any = field(default=None, compare=False, repr=False)  # the parso module, for fix builders
    # Where the per-file budget ran out (nothing after `stopped.line` was analysed), and the statements
    # skipped alone because they were too deeply nested to analyse.
    stopped: Incomplete | None = None
    skipped: tuple[Incomplete, ...] = ()

    def of(self, kind: FactKind[T]) -> tuple[T, ...]:
        """The facts of `kind` (engine/facts), in the order recorded."""
        return self.facts.get(kind.name, ())

    # The three first kinds by name, as the rules have always read them.
    @property
    def calls(self) -> tuple[GenerateCall, ...]:
        return self.facts.get("generate_call", ())

    @property
    def ci_values(self) -> tuple[CiValue, ...]:
        return self.facts.get("ci_value", ())

    @property
    def removed_api(self) -> tuple[RemovedApiUse, ...]:
        """Uses of cache APIs the target no longer has (HFC007)."""
        return self.facts.get("removed_api_use", ())


__all__ = ["Analysis", "Branch", "CacheArg", "CacheImpl", "CacheKind", "CallKind", "CiLocation", "CiSource", "CiValue",
           "ConfigKeyword", "GenerateCall", "GuardedBlock", "Incomplete", "Keyword", "ModelInfo", "RemovedApiUse", "Site", "SpreadKeyword"]
