"""Streaming music generation with a rolling context: a generation-model subclass caches a prompt with
`generate(..., return_dict_in_generate=True)` and keeps `out.past_key_values`; a rolling window converts whatever
cache it is given to the legacy per-layer tuples, keeps the last frames of each layer's self-attention keys and
values, and hands them back as a tuple of (key, value) pairs for the next `generate(past_key_values=...)`.

Provenance (mechanisms read; this code is written here, not copied):
- liammchugh/MUSE-User-Sensitive-musical-Expression @2e6f017217a080fd955e85cd01b343e0a1b7e0c6
  src/musicgen_ext/rolling_kv.py (`try: from transformers.cache_utils import Cache` / `except Exception: Cache =
  None`; `_to_legacy_layers(past_kv)`: `if Cache is not None and isinstance(past_kv, Cache): return
  past_kv.to_legacy_cache()`; `_extract_self_kv` taking the first two tensors of a layer entry;
  RollingKVCache.init_from / append / `as_tuple()` returning `tuple((k, v) for (k, v) in self.kv)`)
- liammchugh/MUSE-User-Sensitive-musical-Expression @1d8ed9bb63b1bd42d2cb7fd6c3f47391191fd2f0
  src/musicgen_ext/context_model.py (MusicgenWithContext(MusicgenForConditionalGeneration): `cache_past_tokens`
  sets `return_dict_in_generate`/`max_new_tokens` defaults, `out = super().generate(input_ids, **gen_kwargs)`,
  `self._pkv = out.past_key_values`; `generate_continuation` calls `super().generate(input_ids=...,
  past_key_values=self._pkv, use_cache=True, max_new_tokens=..., **gen_kwargs)`)
Reduced: the encoder-decoder is T5 (the oracle builds no tiny MusicGen); like MusicGen's it returns an
EncoderDecoderCache whose legacy layers carry self- and cross-attention tensors.
"""

import torch
from transformers import T5ForConditionalGeneration

try:
    from transformers.cache_utils import Cache
except Exception:
    Cache = None


def _to_legacy_layers(past_kv):
    if Cache is not None and isinstance(past_kv, Cache):
        return past_kv.to_legacy_cache()  # site: mu_to_legacy
    return past_kv


def _extract_self_kv(layer_entry):
    if isinstance(layer_entry, (list, tuple)):
        if len(layer_entry) and isinstance(layer_entry[0], (list, tuple)):
            return layer_entry[0][0], layer_entry[0][1]
        if len(layer_entry) >= 2:
            return layer_entry[0], layer_entry[1]
    raise TypeError(f"Unsupported past_kv layer format: {type(layer_entry)}")


class RollingKVCache:
    def __init__(self, max_frames=2500):
        self.max_t = max_frames
        self.kv = None

    def length(self):
        if self.kv is None:
            return 0
        return self.kv[0][0].size(2)

    def init_from(self, past_kv):
        layers = _to_legacy_layers(past_kv)
        self.kv = []
        for layer in layers:
            k, v = _extract_self_kv(layer)
            self.kv.append([k[:, :, -self.max_t:].contiguous(), v[:, :, -self.max_t:].contiguous()])

    def as_tuple(self):
        return tuple((k, v) for (k, v) in self.kv)


class MusicgenWithContext(T5ForConditionalGeneration):
    @torch.inference_mode()
    def cache_past_tokens(self, input_ids, **gen_kwargs):
        gen_kwargs.setdefault("return_dict_in_generate", True)
        gen_kwargs.setdefault("max_new_tokens", 1)
        gen_kwargs.setdefault("min_new_tokens", 1)
        gen_kwargs.setdefault("do_sample", False)
        out = super().generate(input_ids, **gen_kwargs)
        self._pkv = out.past_key_values  # clean: mu_generate_cache
        return self._pkv

    @torch.inference_mode()
    def generate_continuation(self, input_ids=None, max_new_tokens=4, **gen_kwargs):
        if not hasattr(self, "_pkv"):
            raise RuntimeError("Call cache_past_tokens() first.")
        gen_kwargs.pop("past_key_values", None)
        return super().generate(input_ids=input_ids, past_key_values=self._pkv, use_cache=True,  # site: mu_rolling_generate
                                max_new_tokens=max_new_tokens, min_new_tokens=max_new_tokens, **gen_kwargs)


text_ids = torch.tensor([[5, 6, 7, 8, 1]])


def probe_cache_prompt():
    model = MusicgenWithContext.from_pretrained("google/flan-t5-small")
    pkv = model.cache_past_tokens(text_ids)
    assert pkv.get_seq_length() >= 1


def probe_roll():
    model = MusicgenWithContext.from_pretrained("google/flan-t5-small")
    window = RollingKVCache(max_frames=2)
    window.init_from(model.cache_past_tokens(text_ids, max_new_tokens=3, min_new_tokens=3))
    assert window.length() == 2


def probe_continue():
    model = MusicgenWithContext.from_pretrained("google/flan-t5-small")
    pkv = model.cache_past_tokens(text_ids, max_new_tokens=3, min_new_tokens=3)
    window = RollingKVCache(max_frames=2)
    window.kv = [[layer.keys, layer.values] for layer in pkv.self_attention_cache.layers]
    model._pkv = window.as_tuple()
    out = model.generate_continuation(text_ids, max_new_tokens=2)
    assert out.shape[1] >= 2
