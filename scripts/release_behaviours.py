"""Hand-written behaviours (what a signature does not show), copied into releases.json by release_table.py.

Each entry:
- `id`, `what` (the use), `effect` (from `first` on: the exact error, or the silent effect), `before` (what the
  same use did on the release before `first`), `first` (the first release with the effect), `gone` (optional: the
  first release without it again);
- `evidence`: `{"file", "contains"}` (the first release whose file contains the string is `first`) or
  `{"file", "lacks"}` (the first release whose file no longer contains it, after one that did, is `first`).
  release_table.py refuses to write the table when the wheels disagree;
- `match` (a substring of the error every release from `first` raises), `before_match` (the same before `first`,
  when the use already raised something else there), `oracle` (the case in tests/oracle/release_cases.py, which
  tests/oracle/test_releases.py runs at `first` and at the release before it: it raises from `first` on, with
  `match` in the message, and runs clean, or raises `before_match`, before).

Found by reading the wheels (`first` below), then run on the oracle at both releases. UPGRADE-SURFACE.md gave
5.23.0 for several of these ("absent in 5.0.0, present in 5.23.0"); the wheels put them earlier.
"""

from __future__ import annotations

from typing import Any

BEHAVIOURS: list[dict[str, Any]] = [
    {
        "id": "cache_subscript",
        "what": "`cache[i]` on a transformers cache (the legacy `(keys, values)` of layer i)",
        "before": "returns layer i's `(keys, values)` (EncoderDecoderCache: a 4-tuple)",
        "effect": "TypeError: 'DynamicCache' object is not subscriptable",
        "match": "object is not subscriptable",
        "first": "5.0.0",
        "evidence": {"file": "transformers/cache_utils.py", "lacks": "def __getitem__"},
        "oracle": "cache_subscript",
    },
    {
        "id": "cache_iterates_triples",
        "what": "`for k, v in cache:` over a DynamicCache",
        "before": "yields each layer's `(keys, values)`",
        "effect": "ValueError: too many values to unpack (expected 2)",
        "match": "too many values to unpack (expected 2)",
        "first": "5.0.0",
        "evidence": {"file": "transformers/cache_utils.py",
                     "contains": 'yield layer.keys, layer.values, getattr(layer, "_sliding_window_tensor", None)'},
        "oracle": "cache_iterates_triples",
    },
    {
        "id": "tuple_cache_to_generate",
        "what": "a tuple (the legacy format) passed to `generate` as the cache",
        "before": "converted to a DynamicCache with a deprecation warning",
        "effect": "ValueError: Passing a tuple of `past_key_values` is not supported anymore. Please use a `Cache` "
                  "instance.",
        "match": "is not supported anymore. Please use a `Cache` instance.",
        "first": "5.0.0",
        "evidence": {"file": "transformers/generation/utils.py",
                     "contains": "is not supported anymore. Please use a `Cache` instance."},
        "oracle": "tuple_cache_to_generate",
    },
    {
        "id": "static_cache_ignores_cache_position",
        "what": "`cache_position` given to `StaticCache.update` (the 4th argument's `cache_position`) or to a forward",
        "before": "the static layer writes at those positions (a rollback re-sending positions overwrites them)",
        "effect": "silent: the static layer writes at its own running length (`cumulative_length`); the positions "
                  "are ignored",
        "match": "BEHAVIOUR static_cache_ignores_cache_position",
        "first": "5.4.0",
        "evidence": {"file": "transformers/cache_utils.py", "lacks": 'cache_kwargs.get("cache_position")'},
        "oracle": "static_cache_ignores_cache_position",
    },
    {
        "id": "crop_zero_keeps",
        "what": "`cache.crop(0)`",
        "before": "empties the cache (keeps the first 0 tokens)",
        "effect": "silent: a no-op, the cache keeps every token",
        "match": "BEHAVIOUR crop_zero_keeps",
        "first": "5.14.0",
        "evidence": {"file": "transformers/cache_utils.py", "lacks": "if max_length < 0:"},
        "oracle": "crop_zero_keeps",
    },
    {
        "id": "sliding_crop_needs_recording",
        "what": "`crop` on a cache whose sliding-window layer has seen more tokens than its window",
        "before": "ValueError: Cannot `crop` a `DynamicSlidingWindowLayer` after it has seen more tokens than "
                  "itssliding window (otherwise some states are lost)",
        "before_match": "Cannot `crop` a `DynamicSlidingWindowLayer`",
        "effect": "RuntimeError: `crop` was called, but the current layer does not track past states, and the "
                  "sliding window size was already reached. Call `activate_past_recording` before `crop` to be "
                  "able to rollback the cache.",
        "match": "does not track past states",
        "first": "5.15.0",
        "evidence": {"file": "transformers/cache_utils.py", "lacks": "after it has seen more tokens than its"},
        "oracle": "sliding_crop_needs_recording",
    },
    {
        "id": "quantized_cache_full_attention_only",
        "what": "a QuantizedCache (or `cache_implementation=\"quantized\"`) for a model with sliding-window or "
                "linear-attention layers",
        "before": "built and used",
        "effect": "ValueError: `QuantizedCache` is only supported for models with only full attention layers. We "
                  "found the following invalid layer types: {'sliding_attention'}",
        "match": "is only supported for models with only full attention layers",
        "first": "5.14.0",
        "evidence": {"file": "transformers/cache_utils.py",
                     "contains": "is only supported for models with only full attention layers"},
        "oracle": "quantized_cache_full_attention_only",
    },
    {
        "id": "crop_positive_raises",
        "what": "`cache.crop(n)` with n > 0 (keep the first n tokens)",
        "before": "keeps the first n tokens (5.15.0-5.19.0 with a deprecation warning)",
        "effect": "ValueError: Calling `crop` with a positive value (`2`) is not supported. Please use a negative "
                  "integer to remove that number of tokens from the cache instead.",
        "match": "Calling `crop` with a positive value",
        "first": "5.20.0",
        "evidence": {"file": "transformers/cache_utils.py", "contains": "with a positive value (`"},
        "oracle": "crop_positive_raises",
    },
    {
        "id": "cache_reaches_hooks_as_cache",
        "what": "a `prepare_inputs_for_generation` override (or a `model_kwargs` reader) that takes the cache as "
                "`past_key_values`",
        "before": "receives the cache as `past_key_values`",
        "effect": "silent: the cache arrives as `cache=` (in `**kwargs`); `past_key_values` is None, so an override "
                  "that slices the input when it has a cache re-runs the whole sequence every step",
        "match": "BEHAVIOUR cache_reaches_hooks_as_cache",
        "first": "5.24.0",
        "evidence": {"file": "transformers/generation/utils.py", "contains": 'model_kwargs["cache"]'},
        "oracle": "cache_reaches_hooks_as_cache",
    },
    {
        "id": "model_inputs_hold_cache",
        "what": "the model inputs transformers' own `prepare_inputs_for_generation` returns (to a wrapper of it, "
                "or to an override through `super()`), read or swapped by their `\"past_key_values\"` key",
        "before": "hold the cache under `\"past_key_values\"`",
        "effect": "silent: the cache is under `\"cache\"`; `inputs.get(\"past_key_values\")` is None, "
                  "`inputs[\"past_key_values\"]` raises KeyError: 'past_key_values', and a cache stored under "
                  "`\"past_key_values\"` is ignored by the forward (FutureWarning: Both `past_key_values` and "
                  "`cache` are set ... ignoring deprecated `past_key_values=...`)",
        "match": "BEHAVIOUR model_inputs_hold_cache",
        "first": "5.24.0",
        "evidence": {"file": "transformers/generation/utils.py", "contains": 'model_inputs["cache"] = cache'},
        "oracle": "model_inputs_hold_cache",
    },
    {
        "id": "encoder_decoder_cache_iterates_six",
        "what": "`for sk, sv, ck, cv in cache:` over an EncoderDecoderCache (self- and cross-attention per layer)",
        "before": "yields each layer's `(self_keys, self_values, cross_keys, cross_values)`",
        "effect": "ValueError: too many values to unpack (expected 4) (each layer is `(self_keys, self_values, "
                  "self_sliding, cross_keys, cross_values, cross_sliding)`: `layer[2]` is no longer the cross keys)",
        "match": "too many values to unpack (expected 4)",
        "first": "5.0.0",
        "evidence": {"file": "transformers/cache_utils.py",
                     "contains": "self_attn_k, self_attn_v, self_attn_sliding, cross_attn_k"},
        "oracle": "encoder_decoder_cache_iterates_six",
    },
    {
        "id": "tuple_cache_to_forward",
        "what": "a tuple (the legacy format) passed to a model's forward as the cache",
        "before": "model by model: GPT-2, BART, T5-era and other older architectures convert it with a deprecation "
                  "warning; Llama-style decoders already raise the same AttributeError (checked on 4.57.6)",
        "effect": "AttributeError: 'tuple' object has no attribute 'get_seq_length' (every model: no forward "
                  "converts a legacy tuple any more)",
        "match": "object has no attribute 'get_seq_length'",
        "first": "5.0.0",
        "evidence": {"file": "transformers/models/gpt2/modeling_gpt2.py",
                     "lacks": "DynamicCache.from_legacy_cache(past_key_values)"},
        "oracle": "tuple_cache_to_forward",
    },
    {
        "id": "sink_cache_moved",
        "what": "`SinkCache(...)` (the class is still exported; its constructor only raises)",
        "before": "a SinkCache (window_length, num_sink_tokens) is built",
        "effect": "NotImplementedError: `SinkCache` has been moved as a `custom_generate` repository on the Hub: "
                  "https://huggingface.co/transformers-community/sink_cache. See the repository for usage examples.",
        "match": "`SinkCache` has been moved as a `custom_generate` repository",
        "first": "4.53.0",
        "gone": "5.0.0",  # the class itself is gone: the import fails first (HFC007)
        "evidence": {"file": "transformers/cache_utils.py",
                     "contains": "`SinkCache` has been moved as a `custom_generate` repository"},
        "oracle": "sink_cache_moved",
    },
    {
        "id": "update_gets_no_cache_kwargs",
        "what": "a `Cache.update` override reading its fourth argument (`cache_kwargs[\"cache_position\"]`, "
                "`cache_kwargs.get(...)`)",
        "before": "the attention layers pass `{\"sin\", \"cos\", \"cache_position\"}` as the fourth argument",
        "effect": "TypeError: 'NoneType' object is not subscriptable (`.get`: AttributeError: 'NoneType' object has "
                  "no attribute 'get'): the attention layers call `update(key_states, value_states, layer_idx)`",
        "match": "'NoneType' object is not subscriptable",
        "first": "5.4.0",
        "evidence": {"file": "transformers/models/llama/modeling_llama.py", "lacks": "self.layer_idx, cache_kwargs)"},
        "oracle": "update_gets_no_cache_kwargs",
    },
    {
        "id": "update_called_with_kwargs",
        "what": "a `Cache.update` override without `**kwargs`",
        "before": "called as `update(key_states, value_states, layer_idx[, cache_kwargs])`",
        "effect": "TypeError: PressCache.update() got an unexpected keyword argument 'kwargs': the attention layers "
                  "call `update(key_states, value_states, layer_idx, kwargs=kwargs)`",
        "match": "got an unexpected keyword argument 'kwargs'",
        "first": "5.24.0",
        "evidence": {"file": "transformers/models/llama/modeling_llama.py",
                     "contains": "self.layer_idx, kwargs=kwargs)"},
        "oracle": "update_called_with_kwargs",
    },
]
