"""Higgs Audio's serving engine (boson-ai): the engine pre-allocates one StaticCache per length bucket (a
`StaticCache(config=..., max_batch_size=1, max_cache_len=length, device=..., dtype=...)` per entry of
`kv_cache_lengths`) and resets them all before each request; the model picks the smallest bucket that fits the
prompt, and when the prompt grows past it (audio features merged into the text embeddings) promotes to a larger
bucket, copying the filled keys and values over layer by layer (`to_cache.key_cache[i][:, :, :n, :] =
from_cache.key_cache[i]`); bucket sizes come from `get_max_cache_shape()`; positions from `get_seq_length()` when no
`cache_position` is given.

Provenance (mechanisms read; this code is written here, not copied):
- boson-ai/higgs-audio @f04f5df76a6a7b14674e0d6d715b436c422883c6
  boson_multimodal/serve/serve_engine.py (HiggsAudioServeEngine.__init__: `self.kv_caches = {length:
  StaticCache(config=cache_config, max_batch_size=1, max_cache_len=length, device=self.model.device,
  dtype=self.model.dtype) for length in sorted(kv_cache_lengths)}`; `_prepare_kv_caches`: `kv_cache.reset()` for
  each; generate passing `past_key_values_buckets=self.kv_caches`) and
  boson_multimodal/model/higgs_audio/modeling_higgs_audio.py (forward: `if past_key_values_buckets is not None and
  inputs_embeds.shape[1] > past_key_values.get_max_cache_shape():` promote with `self._prepare_kv_cache(...)`;
  `past_seen_tokens = past_key_values.get_seq_length()`, `cache_position = torch.arange(...)`; `_prepare_kv_cache`:
  the first bucket `cache_length >= current_sequence_length`, `_copy_kv_cache` from the current one;
  `_copy_kv_cache`: `from_cache.get_max_cache_shape()`, `to_cache.key_cache[layer_idx][:, :, :from_cache_size, :] =
  from_cache.key_cache[layer_idx]`, the same for `value_cache`).
Reduced: the audio tower is a linear projection of random frames appended to the text embeddings, the dual-FFN
audio layers are gone (the body is transformers' Llama), a greedy text-only decode loop instead of the model's own
`_sample`; the bucket size is read through one helper, and the key and value copies are split into two helpers, each
reached by its own probe.
"""

from collections import OrderedDict
from copy import deepcopy

import torch
from transformers import LlamaForCausalLM
from transformers.cache_utils import DynamicCache, StaticCache


def _cache_capacity(cache):
    return cache.get_max_cache_shape()  # site: hs_capacity


def _copy_keys(from_cache, to_cache, layer_idx, from_cache_size):
    to_cache.key_cache[layer_idx][:, :, :from_cache_size, :] = from_cache.key_cache[layer_idx]  # site: hs_copy_keys


def _copy_values(from_cache, to_cache, layer_idx, from_cache_size):
    to_cache.value_cache[layer_idx][:, :, :from_cache_size, :] = from_cache.value_cache[layer_idx]  # site: hs_copy_values


class HiggsAudioModel(LlamaForCausalLM):
    current_past_key_values_bucket = None

    def _copy_kv_cache(self, from_cache, to_cache):
        from_cache_size = _cache_capacity(from_cache)
        assert _cache_capacity(to_cache) >= from_cache_size
        for layer_idx in range(self.config.num_hidden_layers):
            _copy_keys(from_cache, to_cache, layer_idx, from_cache_size)
            _copy_values(from_cache, to_cache, layer_idx, from_cache_size)

    def _prepare_kv_cache(self, current_sequence_length, current_past_key_values_bucket, past_key_values_buckets):
        for cache_length in past_key_values_buckets.keys():
            if cache_length >= current_sequence_length:
                if current_past_key_values_bucket is not None and cache_length != current_past_key_values_bucket:
                    self._copy_kv_cache(past_key_values_buckets[current_past_key_values_bucket],
                                        past_key_values_buckets[cache_length])
                return past_key_values_buckets[cache_length], cache_length
        raise ValueError(f"The current sequence length {current_sequence_length} is larger than all buckets.")

    def forward(self, input_ids=None, audio_features=None, past_key_values=None, past_key_values_buckets=None,
                cache_position=None, use_cache=None, **kwargs):
        inputs_embeds = self.get_input_embeddings()(input_ids)
        if audio_features is not None:
            inputs_embeds = torch.cat([inputs_embeds, self.audio_projector(audio_features)], dim=1)
        if past_key_values_buckets is not None and inputs_embeds.shape[1] > _cache_capacity(past_key_values):
            past_key_values, self.current_past_key_values_bucket = self._prepare_kv_cache(
                inputs_embeds.shape[1], self.current_past_key_values_bucket, past_key_values_buckets)
        if use_cache and past_key_values is None:
            past_key_values = DynamicCache()
        if cache_position is None:
            past_seen_tokens = past_key_values.get_seq_length() if past_key_values is not None else 0
            cache_position = torch.arange(past_seen_tokens, past_seen_tokens + inputs_embeds.shape[1])
        return super().forward(inputs_embeds=inputs_embeds, past_key_values=past_key_values,
                               cache_position=cache_position, use_cache=use_cache, **kwargs)


model = HiggsAudioModel.from_pretrained("bosonai/higgs-audio-v2-generation-3B-base").eval()
model.audio_projector = torch.nn.Linear(16, model.config.hidden_size)


class HiggsAudioServeEngine:
    def __init__(self, model, kv_cache_lengths=(16, 32)):
        self.model = model
        cache_config = deepcopy(self.model.config)
        self.kv_caches = OrderedDict(
            (length, StaticCache(config=cache_config, max_batch_size=1, max_cache_len=length,  # clean: hs_bucket_caches
                                 device=self.model.device, dtype=self.model.dtype))
            for length in sorted(kv_cache_lengths))

    def _prepare_kv_caches(self):
        for kv_cache in self.kv_caches.values():
            kv_cache.reset()  # clean: hs_reset

    @torch.inference_mode()
    def generate(self, input_ids, audio_features=None, max_new_tokens=3):
        self._prepare_kv_caches()
        past_key_values, self.model.current_past_key_values_bucket = self.model._prepare_kv_cache(
            input_ids.shape[1], None, self.kv_caches)
        out = self.model(input_ids=input_ids, audio_features=audio_features, past_key_values=past_key_values,
                         past_key_values_buckets=self.kv_caches, use_cache=True)
        tokens = [out.logits[:, -1].argmax(-1, keepdim=True)]
        for _ in range(max_new_tokens - 1):
            out = self.model(input_ids=tokens[-1], past_key_values=out.past_key_values,
                             past_key_values_buckets=self.kv_caches, use_cache=True)
            tokens.append(out.logits[:, -1].argmax(-1, keepdim=True))
        return torch.cat(tokens, dim=-1), out.past_key_values


engine = HiggsAudioServeEngine(model)


def probe_engine_reset():
    engine._prepare_kv_caches()
    assert list(engine.kv_caches) == [16, 32]


def probe_generate_short():
    tokens, cache = engine.generate(torch.tensor([[1, 4, 8, 12, 16, 20]]))
    assert tokens.shape == (1, 3) and int(cache.get_seq_length()) == 8


def probe_copy_keys():
    engine._prepare_kv_caches()
    _copy_keys(engine.kv_caches[16], engine.kv_caches[32], 0, 16)


def probe_copy_values():
    engine._prepare_kv_caches()
    _copy_values(engine.kv_caches[16], engine.kv_caches[32], 0, 16)
