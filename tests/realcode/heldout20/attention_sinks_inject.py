"""attention_sinks' drop-in models: after `from_pretrained`, the base model's forward is wrapped so that every output's
`past_key_values` goes through `AttentionSinkKVCache` (keep the first sink tokens and a recent window, measured as
`past_key_values[0][0].size(k_seq_dim)`), and the model's `_update_model_kwargs_for_generation` is replaced by a copy
that takes the cache with `self._extract_past_from_model_output(outputs, standardize_cache_format=...)` and trims the
attention mask to `model_kwargs["past_key_values"][0][0].size(2) + 1`.

Provenance (mechanisms read; this code is written here, not copied):
- tomaarsen/attention_sinks @d79f4d8bd2a4e4994bc3dfbbee5ff5ac217c62d0
  attention_sinks/inject_mixin.py (`_inject_attention_sink_kv_cache`: `wrapped_forward` sets
  `outputs.past_key_values = self.attention_sink_kv_cache(outputs.past_key_values)`; `model._update_model_kwargs_for_
  generation = types.MethodType(_update_model_kwargs_for_generation, model)`), attention_sinks/attention_sink_kv_cache.py
  (`__call__`: `seq_len = past_key_values[0][0].size(self.k_seq_dim)`, returned unchanged under the cache size),
  attention_sinks/generation/utils.py (`_update_model_kwargs_for_generation(self, outputs, model_kwargs,
  is_encoder_decoder=False, standardize_cache_format=False)`, `_extract_past_from_model_output`, the mask trimmed to
  the cache length).
Reduced: one model; the wrapper installed by a function instead of a from_pretrained mixin; sink and window sizes
large enough that the cache is returned unchanged (no eviction, no position-shift attention); a probe installs the
kwargs-update patch without the sink wrapper (a variant written here) so that patch is reached on every release;
the mask is only extended (its trimming to the cache length, after the line every release stops at, is left out).
"""

import types

import torch
from transformers import AutoModelForCausalLM


class AttentionSinkKVCache:
    def __init__(self, attention_sink_size=4, attention_sink_window_size=1020, k_seq_dim=2, v_seq_dim=2):
        self.attention_sink_size = attention_sink_size
        self.attention_sink_window_size = attention_sink_window_size
        self.cache_size = attention_sink_size + attention_sink_window_size
        self.k_seq_dim = k_seq_dim
        self.v_seq_dim = v_seq_dim

    def __call__(self, past_key_values):
        if past_key_values is None:
            return None
        seq_len = past_key_values[0][0].size(self.k_seq_dim)  # site: as_sink_len
        if seq_len <= self.cache_size:
            return past_key_values
        raise NotImplementedError("eviction is not reduced here")


def _update_model_kwargs_for_generation(self, outputs, model_kwargs, is_encoder_decoder=False,
                                        standardize_cache_format=False):
    model_kwargs["past_key_values"] = self._extract_past_from_model_output(  # site: as_extract_past
        outputs, standardize_cache_format=standardize_cache_format
    )
    if "attention_mask" in model_kwargs:
        attention_mask = model_kwargs["attention_mask"]
        model_kwargs["attention_mask"] = torch.cat(
            [attention_mask, attention_mask.new_ones((attention_mask.shape[0], 1))], dim=-1)
    return model_kwargs


def inject_attention_sinks(model, patch_kwargs_update=True, sink_cache=True):
    base = model.model
    base.attention_sink_kv_cache = AttentionSinkKVCache()
    old_forward = base.forward

    def wrapped_forward(self, *args, **kwargs):
        outputs = old_forward(*args, **kwargs)
        outputs.past_key_values = self.attention_sink_kv_cache(outputs.past_key_values)  # clean: as_wrap_output
        return outputs

    if sink_cache:
        base.forward = types.MethodType(wrapped_forward, base)
    if patch_kwargs_update:
        model._update_model_kwargs_for_generation = types.MethodType(_update_model_kwargs_for_generation, model)
    return model


def load(patch_kwargs_update=True, sink_cache=True):
    model = AutoModelForCausalLM.from_pretrained("mistralai/Mistral-7B-v0.1")
    return inject_attention_sinks(model, patch_kwargs_update, sink_cache)


input_ids = torch.tensor([[1, 15, 87, 19, 26]])


def probe_forward_no_cache():
    model = load(patch_kwargs_update=False)
    out = model(input_ids, use_cache=False)
    assert out.logits.shape[1] == 5


def probe_generate_wrapped():
    model = load(patch_kwargs_update=False)
    out = model.generate(input_ids, max_new_tokens=4, min_new_tokens=4, do_sample=False)
    assert out.shape[1] == 9


def probe_generate_patched_update():
    model = load(sink_cache=False)
    out = model.generate(input_ids, attention_mask=torch.ones_like(input_ids), max_new_tokens=4, min_new_tokens=4,
                         do_sample=False)
    assert out.shape[1] == 9
