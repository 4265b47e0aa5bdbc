"""Which rule's runtime error a real run raised: the oracle's table of error classes (pure: no torch, no
transformers, so the host side imports it too, as `runner.KINDS`).

Adding a runtime error class is one row of `ERRORS` (or of `WARNINGS` for a rule that predicts a warning):
the rule code, the exception type transformers raises, and a pattern of its message; the pattern's first
non-empty group, if any, is the outcome's `detail` (CONTRIBUTING.md "Adding a runtime error class").
"""

from __future__ import annotations

import pickle
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class ErrorClass:
    """An exception of `type` whose message matches `pattern` is the runtime error of rule `code`."""

    code: str
    type: type[BaseException]
    pattern: re.Pattern[str]


@dataclass(frozen=True)
class WarningClass:
    """A warning (warnings.warn or transformers' log) whose message matches `pattern` is what `code` predicts."""

    code: str
    pattern: re.Pattern[str]


# First match wins, in this order.
ERRORS: tuple[ErrorClass, ...] = (
    ErrorClass("HFC001", ValueError, re.compile(r"Passing both `cache_implementation` .* and `(\w+)` \(a Cache object\)")),
    ErrorClass("HFC002", ValueError, re.compile(r"\A(?=[\s\S]*tuple)[\s\S]*is not supported anymore")),
    # A tuple or list passed to a model's forward as the cache (5.x: every model; 4.57.6: Llama-style ones).
    ErrorClass("HFC002", AttributeError, re.compile(r"'(?:tuple|list)' object has no attribute 'get_(?:seq_length|query_offset)'")),
    ErrorClass("HFC004", ValueError, re.compile(re.escape("Invalid `cache_implementation`"))),
    # A quantized cache for a model with sliding-window layers (5.14+).
    ErrorClass("HFC004", ValueError, re.compile(r"`QuantizedCache` is only supported for models with only full "
                                                r"attention layers")),
    ErrorClass("HFC005", ValueError, re.compile(re.escape("`model_kwargs` are not used by the model"))),
    # `dola_layers=` on greedy or sample decoding from 4.56 (DoLa moved to a Hub `custom_generate` repository).
    ErrorClass("HFC005", ValueError, re.compile(r"(?i)dola generation requires `trust_remote_code=True`")),
    # A generate-only keyword given to a GenerationConfig, refused when the config is built (4.5x).
    ErrorClass("HFC005", ValueError, re.compile(r"Argument `(\w+)` is not a valid argument of `GenerationConfig`")),
    # A saved cache loaded with `weights_only=True` (HFC012): torch's unpickler refuses transformers' classes.
    ErrorClass("HFC012", pickle.UnpicklingError, re.compile(r"Weights only load failed[\s\S]*Unsupported global: "
                                                            r"GLOBAL transformers\.cache_utils\.(\w+)")),
    # A cache API 5.x removed (HFC007): a cache class that no longer imports, or a removed Cache method.
    ErrorClass("HFC008", ValueError, re.compile(r"Calling `crop` with a positive value \(`(\d+)`\) is not supported")),
    # A crop past a sliding-window layer's window (4.56-5.14: ValueError; 5.15+: RuntimeError).
    ErrorClass("HFC008", ValueError, re.compile(r"Cannot `crop` a `DynamicSlidingWindowLayer`")),
    ErrorClass("HFC008", RuntimeError, re.compile(r"`crop` was called, but the current layer does not track past "
                                                  r"states")),
    # (`QuantizedCacheConfig`, and the reads `key_cache`, `seen_tokens`, ...: gone before 4.57.)
    ErrorClass("HFC007", ImportError, re.compile(r"cannot import name '(\w*Cache(?:Config)?)' from 'transformers[\w.]*'")),
    # Any name a generation module lost (`_crop_past_key_values`, `GreedySearchOutput`: the release table's names).
    ErrorClass("HFC007", ImportError, re.compile(r"cannot import name '(\w+)' from 'transformers\.generation[\w.]*'")),
    # A name a tabled model module lost (`LlamaFlashAttention2`, imported or read off the module), and a top-level
    # generation export 5.0 dropped (`BeamScorer`): the release table's names (engine/environment/releases_models.py).
    ErrorClass("HFC007", ImportError, re.compile(r"cannot import name '(\w+)' from 'transformers\.models\.\w+\.modeling_\w+'")),
    ErrorClass("HFC007", AttributeError, re.compile(r"module 'transformers\.models\.\w+\.modeling_\w+' has no attribute '(\w+)'")),
    ErrorClass("HFC007", ImportError, re.compile(r"cannot import name '(BeamScorer|BeamSearchScorer|ConstrainedBeamSearchScorer|"
                                                 r"Constraint|ConstraintListState|DisjunctiveConstraint|PhrasalConstraint|"
                                                 r"ForceTokensLogitsProcessor|HammingDiversityLogitsProcessor|LogitsWarper)' "
                                                 r"from 'transformers'")),
    ErrorClass("HFC007", AttributeError, re.compile(r"has no attribute '?(to_legacy_cache|from_legacy_cache|"
                                                    r"get_max_cache_shape|get_max_length|max_cache_len|key_cache|value_cache|"
                                                    r"_?seen_tokens|get_usable_length|max_batch_size|ssm_states|from_batch_splits|"
                                                    r"_supports_cache_class|_supports_static_cache|_get_cache|"
                                                    r"_get_initial_cache_position|_reorder_cache|_get_logits_warper|_greedy_search|_beam_sample|"
                                                    r"_contrastive_search|_group_beam_search|_constrained_beam_search|"
                                                    r"_dola_decoding|_extract_past_from_model_output|_prefill_chunking|"
                                                    r"_supports_num_logits_to_keep|_validate_assistant|"
                                                    r"_validate_model_class)'?|"
                                                    r"module transformers has no attribute (\w*Cache)\b")),
    # A `GenerationConfig` field a release removed (`return_legacy_cache`, gone from 5.0.0: HFC007).
    ErrorClass("HFC007", AttributeError, re.compile(r"'GenerationConfig' object has no attribute '(\w+)'")),
    # `generate` (or another GenerationMixin method, as a remote-code `stream_generate` calls them) on a model class
    # built on a backbone alone: PreTrainedModel lost GenerationMixin in 4.52.1 (HFC007).
    ErrorClass("HFC007", AttributeError, re.compile(r"'\w+' object has no attribute '(generate|_get_logits_processor|"
                                                    r"_get_stopping_criteria|_prepare_\w+|_update_model_kwargs_for_generation|"
                                                    r"_sample|_beam_search|_has_unfinished_sequences|"
                                                    r"prepare_inputs_for_generation|compute_transition_scores)'")),
    # A cache constructor called with an older release's positional arguments (HFC007).
    ErrorClass("HFC007", TypeError, re.compile(r"(\w*Cache)\.__init__\(\) takes (?:from \d+ to )?\d+ positional "
                                               r"arguments? but \d+")),
    # A subclass of `Cache` itself running the base constructor bare, as 4.4x took it (HFC007: 4.56+ needs the layers).
    ErrorClass("HFC007", ValueError, re.compile(r"You should provide exactly one of `layers` or "
                                                r"`layer_class_to_replicate` to initialize a (Cache)")),
    # A model module's rotary embedding built as 4.4x took it (HFC007: the release table's `init:` of it).
    ErrorClass("HFC007", TypeError, re.compile(r"(\w*RotaryEmbedding)\.__init__\(\) (?:got an unexpected keyword "
                                               r"argument|takes (?:from \d+ to )?\d+ positional arguments? but \d+)")),
    # A private generate helper called with the arguments an earlier release's signature took (HFC007).
    ErrorClass("HFC007", TypeError, re.compile(r"GenerationMixin\.(_\w+)\(\) (?:missing \d+ required|takes \d+ "
                                               r"positional|got an unexpected keyword|got multiple values)")),
    # A 5.x cache read as the legacy tuple (`out.past_key_values[0][0]`): caches are not subscriptable.
    ErrorClass("HFC009", TypeError, re.compile(r"'(\w*Cache)' object is not subscriptable")),
    # A generation hook written for an older release (HFC010): the cache read under its old key, a `Cache.update`
    # override without `**kwargs` (5.24), a positional super() call that binds `next_sequence_length` (5.3).
    ErrorClass("HFC010", KeyError, re.compile(r"\A'(past_key_values?)'\Z")),
    # An attention hook without `**kwargs` that takes no keyword the layer now passes the cache under (HFC010).
    ErrorClass("HFC010", TypeError, re.compile(r"forward\w*\(\) got an unexpected keyword argument "
                                              r"'(past_key_values|cache)'")),
    ErrorClass("HFC010", TypeError, re.compile(r"\.update\(\) got an unexpected keyword argument '(kwargs)'|"
                                              r"got multiple values for argument '(next_sequence_length)'")),
    # A model subclass's forward with a fixed keyword list under generate (HFC010: the release table's generate_input:).
    ErrorClass("HFC010", TypeError, re.compile(r"\.forward\(\) got an unexpected keyword argument '(cache_position|cache)'")),
    # A decoding method defined in place of GenerationMixin's that generate's call cannot bind (HFC010: the release
    # table's `call:`); GenerationMixin's own helpers called by the project are HFC007's, above.
    ErrorClass("HFC010", TypeError, re.compile(r"(?:\w+\.)?(_sample|_beam_search|_assisted_decoding|\w+_sample)\(\) "
                                              r"(?:missing \d+ required|takes \d+ positional|got an unexpected keyword)")),
    # An override of a hook that the release's caller cannot bind (HFC010: `call:`), e.g. a fixed-keyword
    # `prepare_inputs_for_generation` handed 5.3's `next_sequence_length=`.
    ErrorClass("HFC010", TypeError, re.compile(r"prepare_inputs\w*\(\) (?:got an unexpected keyword "
                                              r"argument '(\w+)'|missing \d+ required)")),
    # The positions a hook reads (HFC011): gone from the attention layers' keywords and `Cache.update` (5.4).
    ErrorClass("HFC011", KeyError, re.compile(r"\A'(cache_position)'\Z")),
    ErrorClass("HFC011", TypeError, re.compile(r"\A'NoneType' object is not subscriptable\Z")),
    # A cache layer's or a GenerationConfig's method called with arguments the release's signature rejects
    # (`DynamicLayer.crop(max_length=3)` from 5.19.0: HFC007; after HFC010's `update` keywords, which win).
    ErrorClass("HFC007", TypeError, re.compile(r"^(\w+Layer|GenerationConfig)\.(\w+)\(\) (?:got an unexpected keyword "
                                               r"argument|got multiple values|takes|missing)")),
    ErrorClass("HFC011", AttributeError, re.compile(r"\A'NoneType' object has no attribute '(get)'\Z")),
)

# The deprecations HFC006 predicts: the FutureWarning of 5.24's `deprecate_kwarg` on generate's old cache
# keywords, and the deprecation 5.x logs when it builds a cache from a deprecated `cache_implementation` name.
WARNINGS: tuple[WarningClass, ...] = (
    WarningClass("HFC006", re.compile(r"`(past_key_values|cache_params)` is deprecated and will be removed in "
                                      r"version [\d.]+ for `\w+\.generate`")),
    WarningClass("HFC006", re.compile(r"Using `cache_implementation='\w+' is deprecated")),
)

# Every outcome kind a run can have: a rule's error, another exception, or none.
KINDS: tuple[str, ...] = (*dict.fromkeys(e.code for e in ERRORS), "OTHER", "OK")
# What a run that raises nothing may still show: a deprecation warning (`Outcome.warned`, `Outcome.verdict`).
WARNED_KINDS: tuple[str, ...] = tuple(dict.fromkeys(w.code for w in WARNINGS))


def _raised_inside_transformers(exc: BaseException) -> bool:
    """Whether transformers' own code read the missing attribute: the innermost frame of the traceback is in
    transformers and is no attribute hook. A removed member read by the user's code raises in the user's frame,
    in torch's `Module.__getattr__` or in transformers' lazy module `__getattr__` (`transformers.SinkCache`); a
    DynamicCache handed to a Mamba forward raises `no attribute 'ssm_states'` inside the model, which is no
    removed-API use."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is None:
        return False
    code = tb.tb_frame.f_code
    return "/transformers/" in code.co_filename.replace("\\", "/") and code.co_name != "__getattr__"


def classify(exc: BaseException | None) -> tuple[str, str]:
    """(kind, detail): the HFC code whose runtime error this is, or OTHER / OK."""
    if exc is None:
        return "OK", ""
    msg = str(exc)
    for error in ERRORS:
        if error.code == "HFC007" and error.type is AttributeError and _raised_inside_transformers(exc):
            continue
        if isinstance(exc, error.type):
            m = error.pattern.search(msg)
            if m:
                return error.code, next((g for g in m.groups() if g), "")
    return "OTHER", ""


def classify_warnings(messages: list[str]) -> str:
    """The code of the first warning class a recorded warning belongs to, else ""."""
    return next((w.code for w in WARNINGS if any(w.pattern.search(m) for m in messages)), "")
