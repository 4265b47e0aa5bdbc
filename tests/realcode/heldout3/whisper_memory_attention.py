"""A speech-LLM memory module with a vendored 4.4x Whisper attention and decoder: the attention reads the
encoder-decoder cache's `is_updated` flags, takes the cross-attention keys straight from the cross cache's
per-layer lists once they are filled, and writes the self-attention keys with explicit cache positions; the
decoder wraps a plain cache or converts legacy tuples on the way in, and converts back on the way out.

Provenance (mechanisms read; this code is written here, not copied):
- bishwajyotichaudhary46/Audio_LLM_Memory MemoryModule/ADAMIX/last_layer_ada_mix.py
  @a2f6fda2ec382e8640402f810a518fe4b608be74 (attention forward: `is_updated =
  past_key_value.is_updated.get(self.layer_idx)`, `past_key_value.is_updated[self.layer_idx] = True`,
  `past_key_value.cross_attention_cache` / `.self_attention_cache`, `key_states =
  past_key_value.key_cache[self.layer_idx]` when the cross cache is filled, else `past_key_value.update(key_states,
  value_states, self.layer_idx, {"cache_position": cache_position})`; decoder forward:
  `EncoderDecoderCache(past_key_values, DynamicCache())` for a plain Cache, `EncoderDecoderCache.from_legacy_cache(
  past_key_values)` otherwise, `past_key_values.get_seq_length()`, then `.self_attention_cache` or
  `.to_legacy_cache()` for the returned cache)
Reduced: one attention module of width 64 and the decoder's cache handling, without the Whisper layers around them.
"""

import torch
from torch import nn
from transformers.cache_utils import Cache, DynamicCache, EncoderDecoderCache


class MemoryWhisperAttention(nn.Module):
    def __init__(self, dim=64, layer_idx=0):
        super().__init__()
        self.layer_idx = layer_idx
        self.q_proj = nn.Linear(dim, dim)
        self.k_proj = nn.Linear(dim, dim, bias=False)
        self.v_proj = nn.Linear(dim, dim)

    def _shape(self, states, bsz):
        return states.view(bsz, -1, 1, 64).transpose(1, 2)

    def forward(self, hidden_states, key_value_states=None, past_key_value=None, cache_position=None):
        is_cross_attention = key_value_states is not None
        bsz = hidden_states.shape[0]
        query_states = self._shape(self.q_proj(hidden_states), bsz)
        if past_key_value is not None:
            is_updated = past_key_value.is_updated.get(self.layer_idx)  # clean: wm_is_updated
            if is_cross_attention:
                past_key_value.is_updated[self.layer_idx] = True
                past_key_value = past_key_value.cross_attention_cache
            else:
                past_key_value = past_key_value.self_attention_cache
        current_states = key_value_states if is_cross_attention else hidden_states
        if is_cross_attention and past_key_value and is_updated:
            key_states = past_key_value.key_cache[self.layer_idx]  # site: wm_cross_key_cache
            value_states = past_key_value.value_cache[self.layer_idx]
        else:
            key_states = self._shape(self.k_proj(current_states), bsz)
            value_states = self._shape(self.v_proj(current_states), bsz)
            if past_key_value is not None:
                cache_position = cache_position if not is_cross_attention else None
                key_states, value_states = past_key_value.update(  # clean: wm_update_positions
                    key_states, value_states, self.layer_idx, {"cache_position": cache_position})
        weights = torch.matmul(query_states, key_states.transpose(2, 3)).softmax(-1)
        return torch.matmul(weights, value_states)


def decoder_cache(past_key_values, use_cache=True):
    return_legacy_cache = False
    return_self_attention_cache = False
    if use_cache or past_key_values is not None:
        if isinstance(past_key_values, Cache) and not isinstance(past_key_values, EncoderDecoderCache):
            return_self_attention_cache = True
            past_key_values = EncoderDecoderCache(past_key_values, DynamicCache())  # clean: wm_wrap_self
        elif not isinstance(past_key_values, EncoderDecoderCache):
            return_legacy_cache = True
            past_key_values = EncoderDecoderCache.from_legacy_cache(past_key_values)  # site: wm_from_legacy
    return past_key_values, return_legacy_cache, return_self_attention_cache


def returned_cache(past_key_values, return_legacy_cache, return_self_attention_cache):
    if return_self_attention_cache:
        return past_key_values.self_attention_cache  # clean: wm_self_cache
    if return_legacy_cache:
        return past_key_values.to_legacy_cache()  # site: wm_to_legacy
    return past_key_values


audio = torch.ones(1, 5, 64)


def probe_self_steps():
    attn = MemoryWhisperAttention()
    cache, legacy, own = decoder_cache(DynamicCache())
    attn(torch.ones(1, 3, 64), past_key_value=cache, cache_position=torch.arange(3))
    attn(torch.ones(1, 1, 64), past_key_value=cache, cache_position=torch.tensor([3]))
    assert returned_cache(cache, legacy, own).get_seq_length() == 4


def probe_cross_reuse():
    attn = MemoryWhisperAttention()
    cache = EncoderDecoderCache(DynamicCache(), DynamicCache())
    first = attn(torch.ones(1, 1, 64), key_value_states=audio, past_key_value=cache)
    second = attn(torch.ones(1, 1, 64), key_value_states=audio, past_key_value=cache)
    assert first.shape == second.shape


def probe_legacy_in():
    cache, legacy, own = decoder_cache(None)
    assert legacy and cache.get_seq_length() == 0


def probe_legacy_out():
    cache = EncoderDecoderCache(DynamicCache(), DynamicCache())
    MemoryWhisperAttention()(torch.ones(1, 2, 64), past_key_value=cache, cache_position=torch.arange(2))
    legacy = returned_cache(cache, True, False)
    assert legacy[0][0].shape[2] == 2
