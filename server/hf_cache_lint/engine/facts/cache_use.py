"""The fact kind `cache_use`: one use of a transformers cache or model object, wherever the interpreter followed it
(built here, returned by a model's forward or generate, held in an attribute, passed as a parameter by a caller of
the module or annotated `Cache`, returned by a helper).

The receiver is a transformers cache or model only where the code says so (engine/interpreter/values.py `CacheVal`, a
`ModelState` of transformers): a class the project defines never is, whatever its name or methods. Recorded by the
interpreter (engine/interpreter/cache_uses.py) for:

| op | what | `name` |
|---|---|---|
| `read` | `cache.attr` (not called) | the attribute |
| `write` | `cache.attr = value` | the attribute |
| `call` | `cache.method(...)`, with `arguments` | the method |
| `iterate` | `for ... in cache` (`targets`: the names unpacked per item; `index`: the loop variable when the body unpacks it, `for layer in cache: k, v = layer`; `listed`: the loop runs over `list(cache)`) | `""` |
| `subscript` | `cache[i]` (`index`: `i` as written) | `""` |
| `unpack` | `a, b = cache` (`targets`) | `""` |
| `len` | `len(cache)` | `""` |
| `construct` | a quantized cache class built with the config of a model the code says has sliding-window layers (`QuantizedCache(backend="quanto", config=model.config)`; `window`: the model's family) | the class |
| `forward` | a cache passed to a model's forward pass (the receiver is the cache); or, with `what == "model"`, a forward pass given a cache keyword (`arguments`: every argument) | the keyword / `forward` |

A model's uses are recorded for its cache-related members only (a name with `cache` in it: `_supports_cache_class`,
`_get_cache(...)`), the generate helpers of `GENERATION_HELPERS`, `READ_HELPERS` and `SIGNATURE_HELPERS`, and
forward passes given a cache keyword: that is all a cache rule reads of a model.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from hf_cache_lint.engine.base.findings import Position, Span
from hf_cache_lint.engine.facts import FactKind

CacheOp = Literal["read", "write", "call", "iterate", "subscript", "unpack", "len", "forward", "construct"]
# What the argument's value is, as the interpreter knows it.
ArgKind = Literal["cache", "tuple", "model", "constant", "unknown"]


@dataclass(frozen=True)
class UseArgument:
    """One argument of a call recorded with the use: its keyword (None: positional or spread), its source text,
    what its value is, and the constant when it is one."""

    name: str | None
    text: str
    kind: ArgKind
    constant: str | int | float | bool | None = None


# The description of an `EncoderDecoderCache`'s part (`cache.self_attention_cache`), whose class the code does not
# say (engine/interpreter/output_values.py `sub_cache`).
SUB_CACHE = "a part of an `EncoderDecoderCache` (`self_attention_cache`, `cross_attention_cache`)"
# What a model subclass's `prepare_inputs_for_generation` override gets as `past_key_values` (class unsaid):
# engine/interpreter/narrowing.py `generate_fills`.
GENERATE_CACHE = "the cache generate passes"
# What a model subclass's `_reorder_cache(past, beam_idx)` override gets as `past` (class unsaid): generate's beam
# search calls it with the cache at every step on every release (4.57.6 to 5.25.0: `if hasattr(self,
# "_reorder_cache")`), where the module runs generate with beams (engine/interpreter/narrowing.py `beam_fills`).
BEAM_CACHE = "the cache generate's beam search passes to `_reorder_cache`"


@dataclass(frozen=True)
class CacheUse:
    """One use (the module docstring's table).

    `what`: a transformers `cache` or `model`; `receiver_class`: the transformers class as known (`DynamicCache`,
    `StaticCache`, `LlamaForCausalLM`; None: a model output's cache whose class the code does not say, or an Auto
    model), with `module` the transformers module that defines it (for the release table); `description`: what
    the code says the receiver is, for messages ("the cache returned by the forward pass"); `receiver`: its source
    text; `span`: the attribute's or method's name, the subscript's brackets, the iterated or unpacked expression,
    the cache argument's value, or the whole forward call (`none_test`: see the field); `whole`: the receiver through the use (the call's
    closing parenthesis, the subscript's bracket); `layered`: the cache has `.layers` of `.keys`/`.values` (4.57
    and 5.x: not an `EncoderDecoderCache`, nor the cache of a model not known to be decoder-only).
    """

    op: CacheOp
    name: str
    what: Literal["cache", "model", "config", "layer"]
    receiver_class: str | None
    module: str
    description: str
    receiver: str
    span: Span
    whole: Span | None = None
    arguments: tuple[UseArgument, ...] = ()
    index: str | None = None
    targets: int | None = None
    layered: bool = True
    window: str | None = None
    # `call` of `get_max_length`: the source text of the None test the code applies to its result (`n is None`,
    # `not n`, through a local name or a helper's return: engine/interpreter/none_tests.py), None without one.
    none_test: str | None = None
    # An instance of the project's own subclass of `receiver_class` (engine/interpreter/cache_uses.py): its class's
    # name, the one the error shows; the member used is transformers' (the subclass does not define it).
    subclass: str | None = None
    # The `isinstance(x, Cache)` test, as written, that alone says the receiver is a transformers cache (on its
    # branch: engine/interpreter/narrowing.py); None where anything else says so.
    guard: str | None = None
    # `call` of `get_max_length` / `get_max_cache_shape` bound to a name as a `try` body's one statement, with a
    # handler binding the same name by another method of the same receiver (engine/interpreter/except_fallbacks.py):
    # "except:<the handler's method>" on the try's call, "try:<the try's method>" on the handler's.
    paired: str | None = None
    # Where `guard`'s test names the class (None without a guard): a use in a helper the guarded code hands the
    # cache to is still that test's (engine/interpreter/narrowing.py `reached`).
    guard_at: Position | None = None
    # Where the value `none_test` reads is made, in the function holding the test (the call, or the call of the
    # helper that returned it; None without a test): a value made behind a line that always raises is never tested
    # (rules/hfc007_removed_cache_api, engine/syntax/dominance.py).
    none_test_at: Position | None = None
    # Only `guard` says the receiver is a cache: the name held nothing the code says more of (a hook's parameter
    # run on its own). False for a cache the code built or a model returned that the test confirmed (a direct call
    # of the hook with a forward's cache): engine/interpreter/narrowing.py `reached` drops only the former on a hook
    # parameter the target no longer fills.
    narrowed: bool = False
    # `iterate`: the loop runs over `list(cache)` (held in `receiver`), not over the cache itself: a list of the items
    # the cache iterates as (engine/interpreter/values.py `ListVal.items_of`); its class has no `.layers`.
    listed: bool = False

    @property
    def cls(self) -> str | None:
        """The transformers class as the code says it (None: a model output's cache, a model of an Auto class)."""
        return self.receiver_class


# The compiled names a module holding a cache use has one of, besides a model's sources the gate lets through on
# their own (`from_pretrained`, a pipeline, a value imported from the workspace: engine/screen/gate.py): a cache
# class's name (built, annotated), `from_legacy_cache`, `return_dict_in_generate` (a generate output's cache),
# `from_config` (a model built from a config), the cache members the interpreter reads on a model or a cache the
# release table knows (but `cache_implementation`, a generation setting); tests/engine/test_cache_use.py checks it
# against data/releases.json (read here, the table would cost every start-up its 0.1 s load). Not the words
# `past_key_values`, `cache`, `cache_params` themselves: an output holding a cache needs a model or generate first,
# and as a keyword they are in nearly every modeling file.
# The private `GenerationMixin` helpers a release in the table had and the newest lacks (tests/engine/
# test_generation_helpers.py derives them from the release table), which code copying generate's set-up calls on a
# loaded model (`model._get_logits_warper(config)`, gone in 4.45.0): recorded on a model like its cache members.
# Not the encoder-decoder ones (`_prepare_encoder_decoder_kwargs_for_generation`, `_get_decoder_start_token_id`):
# such models define their own, which the table does not read.
GENERATION_HELPERS = frozenset({
    "_beam_sample", "_constrained_beam_search", "_contrastive_search", "_dola_decoding",
    "_extract_past_from_model_output", "_get_logits_warper", "_greedy_search", "_group_beam_search",
    "_prefill_chunking", "_supports_num_logits_to_keep", "_validate_assistant", "_validate_model_class",
})


# The private `GenerationMixin` helpers whose reads off their arguments the release table holds (`reads:`,
# scripts/release_table.py HELPER_READS): code running generate's steps itself calls them on a loaded model with a
# config or dict generate would have prepared (`model._get_stopping_criteria(generation_config=...)`).
READ_HELPERS = frozenset({"_get_stopping_criteria", "_update_model_kwargs_for_generation"})


# The private `GenerationMixin` helpers a copied decode loop calls whose signature the release table holds and
# changed: `_has_unfinished_sequences` took `cur_len=` and `max_length=` on 4.44.0-4.49.0 only (Baichuan-Audio's
# loop, written for them: TypeError from 4.50.0; engine/interpreter/removed_members.py `_misfit`).
SIGNATURE_HELPERS = frozenset({"_has_unfinished_sequences"})
# Transformers' hook called by the code itself with a cache (ARGS' reward-guided search): what it cuts by is the
# release's (rules/hfc010_hook_loses_cache/hand_loop.py `direct_findings`).
HOOK_CALLS = frozenset({"prepare_inputs_for_generation"})


def model_member_recorded(name: str) -> bool:
    """A model member the interpreter records a use of: a cache-related one, a gone generate helper, one whose
    reads the release table holds, or a loop helper whose signature changed."""
    return "cache" in name.lower() or name in GENERATION_HELPERS or name in READ_HELPERS or \
        name in SIGNATURE_HELPERS or name in HOOK_CALLS


PARSE_NAMES = frozenset({
    *GENERATION_HELPERS,
    *READ_HELPERS,
    *SIGNATURE_HELPERS,
    # a model subclass's `prepare_inputs_for_generation` override: its `past_key_values` is generate's cache
    "prepare_inputs_for_generation",
    "Cache", "from_config", "return_dict_in_generate", "seen_tokens", "get_usable_length", "ssm_states",
    "max_batch_size", "DFlashCache", "DynamicCache", "EncoderDecoderCache", "FalconHybridMambaAttentionDynamicCache",
    "FalconMambaCache", "HQQQuantizedCache", "HybridCache", "HybridChunkedCache", "HybridMambaAttentionDynamicCache",
    "Lfm2HybridConvCache", "Mamba2Cache", "MambaCache", "MtpCache", "NemotronHHybridDynamicCache", "OffloadedCache",
    "OffloadedHybridCache", "OffloadedStaticCache", "QuantizedCache", "QuantoQuantizedCache",
    "Qwen3NextDynamicCache", "SinkCache", "SlidingWindowCache", "StaticCache",
    "TorchExportableModuleWithStaticCache", "Zamba2HybridDynamicCache", "ZambaHybridDynamicCache",
    "_cache_dependant_input_preparation", "_cache_dependant_input_preparation_exporting", "_get_cache",
    "_get_initial_cache_position", "_get_layer_device_map_for_cache_init", "_get_static_cache",
    "_get_static_cache_init_shape", "_prepare_cache_for_generation", "_prepare_static_cache", "_reorder_cache",
    "_supports_cache_class", "_supports_default_dynamic_cache", "_supports_quantized_cache",
    "_supports_static_cache", "_temporary_reorder_cache",
    "cache_processor", "cache_type", "check_dynamic_cache", "conv_L_cache", "conv_cache", "cos_sin_rerotation_cache",
    "cross_attention_cache", "device_key_cache", "device_value_cache", "from_legacy_cache", "get_max_cache_shape",
    "initialise_cache_layer", "key_cache", "max_cache_len", "reorder_cache",
    "self_attention_cache", "to_legacy_cache", "value_cache",
})


# No cache or model use without one of these words: a cache class, an output's cache, a model's cache member
# (the interpreter records none in a text without them: engine/interpreter/cache_uses.py).
KIND: FactKind[CacheUse] = FactKind("cache_use", CacheUse, triggers=("Cache", "cache", "past_key_values",
                                                                     *sorted(READ_HELPERS),
                                                                     *sorted(SIGNATURE_HELPERS)),
                                    parse_names=PARSE_NAMES, source="object", distinct=True)
