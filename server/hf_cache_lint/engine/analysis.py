"""What the interpreter learned about one file: the generate calls and the values that reach them.

Rules read an `Analysis`; they never walk the tree themselves for facts about values.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from hf_cache_lint.engine.context import Context
from hf_cache_lint.engine.findings import Span
from hf_cache_lint.engine.removed_api import RemovedApiUse

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
class CacheImpl:
    """The effective `cache_implementation` at a call, and where it comes from.

    `value` is the string (None is never stored: no CacheImpl means none is effective).
    `via`: "keyword" (this call), "kwargs" (a ** dict), "generation_config" (a passed config),
    "model" (model.generation_config), "checkpoint" (generation_config.json), "pipeline",
    "hub-default" (the shipped table) or "wrapper" (e.g. Unsloth).
    `condition`: the name of what it depends on when it is only set on some paths (-> Warning).
    """

    value: str
    via: CiSource
    site: Site | None = None
    condition: str | None = None
    # The branch condition when it is one, so rules can see two that exclude each other.
    when: Branch | None = None
    # For via "kwargs": what carried the keyword in when it is not a `**dict` written in the call
    # ("`functools.partial`", "`Thread(kwargs=...)`", "`generate_kwargs=`"), for messages.
    through: str | None = None


@dataclass(frozen=True)
class CacheArg:
    """A cache keyword of a generate call and what its value is known to be.

    `kind`: "none", "cache" (a Cache object), "tuple", "unknown" (e.g. a parameter), "other".
    `span` is the `keyword=value` argument, or the whole call when it arrives through **kwargs.
    """

    keyword: str
    kind: CacheKind
    span: Span
    via_kwargs: bool = False
    cache_class: str | None = None
    condition: str | None = None
    site: Site | None = None
    when: Branch | None = None  # as CacheImpl.when
    origin: Site | None = None  # for a tuple: where it was made (e.g. "to_legacy_cache()")
    through: str | None = None  # as CacheImpl.through, for `via_kwargs`


@dataclass(frozen=True)
class Keyword:
    """A keyword argument written in the call itself."""

    name: str
    span: Span  # `name=value`
    name_span: Span
    value_span: Span
    value_text: str


@dataclass(frozen=True)
class SpreadKeyword:
    """A keyword a dict carries into the call (a `**dict`, a partial's or a Thread's `kwargs=`), not written in
    the call: the dict may be built in steps, elsewhere (`__init__`), or in another module."""

    name: str
    site: Site  # where the dict got the key (`k=v` of dict(...), the `"k": v` entry, the `d["k"] = v` statement)
    holder: Span  # the `**expr` of this call (or the call, when something else carried the dict in)
    none: bool  # the value is None (passes `_validate_model_kwargs`)


@dataclass(frozen=True)
class ModelInfo:
    """What is known about the model a call runs on."""

    class_name: str | None = None  # e.g. "MambaForCausalLM"; None when only "some transformers model"
    checkpoint: str | None = None  # from_pretrained's first argument when constant
    is_transformers: bool = True
    wrapper: str | None = None  # e.g. "unsloth"
    receiver_known: bool = True  # False: an unseen object's `.generate` (jedi may show it is not a model)
    encoder_decoder: bool = False  # loaded through an encoder-decoder Auto class (AutoModelForSeq2SeqLM)


@dataclass(frozen=True)
class GenerateCall:
    """One call that reaches `GenerationMixin.generate` (directly, through a pipeline or a wrapper)."""

    span: Span  # the whole call expression
    callee_span: Span  # e.g. `model.generate`
    kind: CallKind
    model: ModelInfo
    keywords: tuple[Keyword, ...]
    cache_args: tuple[CacheArg, ...]
    cache_implementation: CacheImpl | None
    # The in-call `cache_implementation=` keyword, when written in this call.
    ci_keyword: Keyword | None = None
    # Where the call was reached from when it sits in a function analysed for a specific call site.
    via: Site | None = None
    # Closing parenthesis position (insert point for new keywords).
    close_paren: Span | None = None
    # Every argument of the call in order (for removal edits that keep commas right).
    arguments: tuple[Span, ...] = ()
    has_star_kwargs: bool = False
    # The pipeline task when constant ("text-generation"); None for generate calls or an unknown task.
    task: str | None = None
    # Whether a keyword written in this call reaches generate (False for `Thread(target=model.generate)`).
    keywords_reach: bool = True
    # The dict expression `cache_implementation` arrives through, when a fix can edit it: the `expr` of a
    # `**expr` in this call, or the `kwargs=` value of the Thread that runs generate.
    ci_spread: Span | None = None
    # The keywords dicts carry in (not written in the call), unconditional ones only, in call order.
    spread_keywords: tuple[SpreadKeyword, ...] = ()


@dataclass(frozen=True)
class CiValue:
    """A `cache_implementation` value written somewhere (call, config, attribute, dict, json)."""

    value: str
    span: Span  # the string literal, quotes included
    where: CiLocation
    path: str | None = None
    # For "json": the call in this file that reads the file (`from_pretrained(...)`), where a bad value raises.
    origin: Span | None = None


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
    calls: tuple[GenerateCall, ...] = ()
    ci_values: tuple[CiValue, ...] = ()
    removed_api: tuple[RemovedApiUse, ...] = ()  # uses of cache APIs the target no longer has (HFC007)
    # Blocks under a transformers-version test the analysis cannot decide, with the test's text: a finding
    # there holds only on the versions the test admits (so it is a Warning, never an Error).
    version_guarded: tuple[GuardedBlock, ...] = ()
    tree: Any = field(default=None, compare=False, repr=False)  # the parso module, for fix builders
    # Where the per-file budget ran out (nothing after `stopped.line` was analysed), and the statements
    # skipped alone because they were too deeply nested to analyse.
    stopped: Incomplete | None = None
    skipped: tuple[Incomplete, ...] = ()
