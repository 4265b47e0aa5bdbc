"""The fact kind `generate_call`: one call that reaches `GenerationMixin.generate` (directly, through a pipeline
or a wrapper) and what meets there (the effective `cache_implementation`, the cache arguments, the keywords),
recorded by engine/interpreter/generate_calls.py."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from hf_cache_lint.engine.base.findings import Span
from hf_cache_lint.engine.facts import FactKind
from hf_cache_lint.engine.text.prefilter import NEEDED, might_matter

if TYPE_CHECKING:
    from hf_cache_lint.engine.output.analysis import Branch, CacheKind, CallKind, CiSource, Site


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
    # kind "other", an instance of the project's own class: (its class, the member the forward reads first that it
    # lacks or "", a subclass of a transformers cache, its `get_seq_length` takes no `layer_idx`): own_caches.py
    own: tuple[str, str, bool, bool] | None = None
    # kind "other", an instance of the project's own subclass of a transformers cache: its class (whatever it
    # lacks), so that a `Cache.update` override is judged only where generate really reaches it (hook_classes.py).
    instance_of: str = ""


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
class ConfigKeyword:
    """A keyword the `GenerationConfig` generate reads at the call was given: the one passed
    (`generation_config=`), or, when none is, the model's own (`model.generation_config`, assigned or changed in
    place). GenerationConfig keeps a key it has no field for as a plain attribute, which generate never reads;
    `update(...)` sets only its fields; and some releases refuse a generate-only key when the config is built
    (4.x `use_model_defaults`)."""

    name: str
    site: Site  # where the key was given (the constructor's `k=v`, a dict's entry, `d["k"] = v`, `cfg.k = v`)
    holder: Span  # the `generation_config=` argument of this call (the call's callee for the model's config)
    falsy: bool  # the value is None, False or 0 (no legacy cache asked for, nothing to ignore)
    condition: str | None = None  # what setting the key depends on, when only some paths set it
    how: Literal["built", "update", "attribute"] = "built"  # given when built, to `update(...)`, or written
    on_model: bool = False  # the model's own generation config (no config passed to the call)


@dataclass(frozen=True)
class ModelInfo:
    """What is known about the model a call runs on."""

    class_name: str | None = None  # e.g. "MambaForCausalLM"; None when only "some transformers model"
    checkpoint: str | None = None  # from_pretrained's first argument when constant
    is_transformers: bool = True
    wrapper: str | None = None  # e.g. "unsloth"
    receiver_known: bool = True  # False: an unseen object's `.generate` (jedi may show it is not a model)
    encoder_decoder: bool = False  # loaded through an encoder-decoder Auto class (AutoModelForSeq2SeqLM)
    remote_code: bool = False  # loaded with `trust_remote_code=` (not False): its forward is its own code's


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
    # A dict spread in (`**kwargs`, a Thread's `kwargs=`) may hold keys the linter cannot see: an unknown value, an
    # opaque dict or a key only some paths set. False when every `**` dict is known (a function's own `**kwargs`
    # analysed at a call site that passes none): `spread_keywords` is then all it carries.
    open_spread: bool = True
    # The pipeline task when constant ("text-generation"); None for generate calls or an unknown task.
    task: str | None = None
    # Whether a keyword written in this call reaches generate (False for `Thread(target=model.generate)`).
    keywords_reach: bool = True
    # The dict expression `cache_implementation` arrives through, when a fix can edit it: the `expr` of a
    # `**expr` in this call, or the `kwargs=` value of the Thread that runs generate.
    ci_spread: Span | None = None
    # The keywords dicts carry in (not written in the call), unconditional ones only, in call order.
    spread_keywords: tuple[SpreadKeyword, ...] = ()
    # The keywords the passed `generation_config` was built with (unconditional ones only).
    config_keywords: tuple[ConfigKeyword, ...] = ()


# The gate decides it (a call's callee, its cache keywords, the keywords a rule reads: engine/screen/gate.py).
KIND: FactKind[GenerateCall] = FactKind("generate_call", GenerateCall, NEEDED, parse_names=None,
                                        might_occur=might_matter)
