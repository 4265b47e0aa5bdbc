"""The first version of a streaming music model's rolling context: the cache a cached-prompt `generate` returns is
copied layer by layer as four tensors (self-attention key and value, cross-attention key and value), the
self-attention part is trimmed to a window, newly generated caches are appended by unpacking each layer into
its four tensors, and the window goes back to `generate` as a tuple of four-tensor layers.

Provenance (mechanisms read; this code is written here, not copied):
- liammchugh/MUSE-User-Sensitive-musical-Expression @20de79c281dbc280a24c085bc955a0f659ae9c6b
  src/musicgen_ext/rolling_kv.py (RollingKVCache.init_from: `self.kv = [[t.clone() for t in layer_kv] for
  layer_kv in past_kv]`; `_trim_to_window`; `append(new_pkv)`: `for layer_idx, new_layer in enumerate(new_pkv):
  k_new, v_new, kx_old, vx_old = new_layer`; `as_tuple()`: `tuple(tuple(layer) for layer in self.kv)` "in the
  exact tuple-of-tuples format expected by `model.generate(past_key_values=...)`")
- liammchugh/MUSE-User-Sensitive-musical-Expression @1d8ed9bb63b1bd42d2cb7fd6c3f47391191fd2f0
  src/musicgen_ext/context_model.py (the prompt cache from `generate(..., return_dict_in_generate=True)`;
  `generate(..., past_key_values=self._pkv, use_cache=True, ...)`)
Reduced: the encoder-decoder is T5 (the oracle builds no tiny MusicGen); like MusicGen's it returns an
EncoderDecoderCache.
"""

import torch
from transformers import T5ForConditionalGeneration

model = T5ForConditionalGeneration.from_pretrained("google/flan-t5-small")
text_ids = torch.tensor([[5, 6, 7, 8, 1]])


class RollingKVCache:
    def __init__(self, max_frames=2500):
        self.max_frames = max_frames
        self.kv = None

    def init_from(self, past_kv):
        self.kv = [[t.clone() for t in layer_kv] for layer_kv in past_kv]  # site: rw_copy_layers
        self._trim_to_window()

    def _trim_to_window(self):
        for layer in self.kv:
            k_self, v_self = layer[0], layer[1]
            if k_self.size(-2) > self.max_frames:
                k_self = k_self[..., -self.max_frames:, :]
                v_self = v_self[..., -self.max_frames:, :]
            layer[0], layer[1] = k_self, v_self

    def append(self, new_pkv):
        if self.kv is None:
            self.init_from(new_pkv)
            return
        for layer_idx, new_layer in enumerate(new_pkv):  # site: rw_append_layers
            k_new, v_new, kx_old, vx_old = new_layer  # observe: rw_append_layers
            k_old, v_old, _, _ = self.kv[layer_idx]
            k_cat = torch.cat([k_old, k_new], dim=-2)
            v_cat = torch.cat([v_old, v_new], dim=-2)
            if k_cat.size(-2) > self.max_frames:
                keep = k_cat.size(-2) - self.max_frames
                k_cat = k_cat[..., keep:, :]
                v_cat = v_cat[..., keep:, :]
            self.kv[layer_idx] = [k_cat, v_cat, kx_old, vx_old]

    def as_tuple(self):
        return tuple(tuple(layer) for layer in self.kv)


def cache_prompt(input_ids, new_tokens):
    out = model.generate(input_ids, return_dict_in_generate=True, max_new_tokens=new_tokens,
                         min_new_tokens=new_tokens, do_sample=False)
    return out.past_key_values  # clean: rw_prompt_cache


def continue_from(window, input_ids, new_tokens):
    return model.generate(input_ids=input_ids, past_key_values=window.as_tuple(), use_cache=True,  # site: rw_window_generate
                          max_new_tokens=new_tokens, min_new_tokens=new_tokens)


def probe_init():
    window = RollingKVCache(max_frames=2)
    window.init_from(cache_prompt(text_ids, 3))
    assert len(window.kv) == 2 and window.kv[0][0].shape[2] == 2


def probe_append():
    window = RollingKVCache(max_frames=8)
    cache = cache_prompt(text_ids, 3)
    window.kv = [[layer.keys, layer.values, cross.keys, cross.values]
                 for layer, cross in zip(cache.self_attention_cache.layers, cache.cross_attention_cache.layers)]
    new_cache = cache_prompt(text_ids, 2)
    expected = window.kv[0][0].shape[2] + new_cache.self_attention_cache.get_seq_length()
    window.append(new_cache)
    assert window.kv[0][0].shape[2] == expected


def probe_continue():
    window = RollingKVCache(max_frames=8)
    cache = cache_prompt(text_ids, 3)
    window.kv = [[layer.keys, layer.values, cross.keys, cross.values]
                 for layer, cross in zip(cache.self_attention_cache.layers, cache.cross_attention_cache.layers)]
    out = continue_from(window, text_ids, 2)
    assert out.shape[1] >= 2


def probe_prompt():
    assert cache_prompt(text_ids, 3).get_seq_length() >= 3
