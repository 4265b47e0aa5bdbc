"""A KV-cache quantization research project (log-distributed / streaming quantized caches): a `DynamicCache`
subclass written against 4.4x sets its own sink lists and quantized lists, calls the base constructor, and in
`update` counts seen tokens on the first layer, then appends to or concatenates into the base class's
`key_cache`/`value_cache` lists (sink tokens and a recent window kept in full precision, the middle quantized);
its length comes from `_seen_tokens`; the example hands it to `generate` as `past_key_values`.

Provenance (mechanisms read; this code is written here, not copied):
- Concyclics/LogQuantKV @1ada9581e9eec0d3d28606eb9c2c5e5ae8962255 src/LogQuant.py (`StreamingQuantizedCache(
  DynamicCache).__init__(cache_config)`: `self._quantized_key_cache = []`, `self.sink_key_cache = []`, ...,
  `super().__init__()`; `update(key_states, value_states, layer_idx, cache_kwargs)`: `if layer_idx == 0:
  self._seen_tokens += key_states.shape[-2]`, `if len(self.key_cache) <= layer_idx:` first-call split into sink /
  quantized / window with `self.key_cache.append(...)`, else dequantize and `torch.cat`; `get_seq_length` returns
  `self._seen_tokens`; `QuantoStreamingQuantizedCache` quantizes with quanto), example1.py (`cache =
  QuantoStreamingQuantizedCache(config)`, `model.generate(input_ids, max_new_tokens=128, past_key_values=cache)`)
Reduced: a plain dataclass holds the settings (the original subclasses transformers' CacheConfig: that import is
logquant_config_imports.py); an int8 round-trip stands in for quanto; the re-quantization of a full window and
the partial variants are left out; `update` reads the base lists once into locals.
"""

from dataclasses import dataclass

import torch
from transformers import AutoModelForCausalLM, DynamicCache


@dataclass
class StreamingQuantizedCacheConfig:
    nbits: int = 4
    window_length: int = 8
    sink_length: int = 4


class StreamingQuantizedCache(DynamicCache):
    def __init__(self, cache_config):
        self._quantized_key_cache = []  # clean: lq_own_lists
        self._quantized_value_cache = []
        self.sink_key_cache = []
        self.sink_value_cache = []
        self.window_length = cache_config.window_length
        self.sink_length = cache_config.sink_length
        super().__init__()  # clean: lq_base_init

    def update(self, key_states, value_states, layer_idx, cache_kwargs=None):
        if layer_idx == 0:
            self._seen_tokens += key_states.shape[-2]  # site: lq_seen_tokens_update
        key_cache, value_cache = self.key_cache, self.value_cache  # site: lq_key_cache_read
        if len(key_cache) <= layer_idx:
            middle = slice(self.sink_length, -self.window_length)
            self._quantized_key_cache.append(self._quantize(key_states[..., middle, :]))
            self._quantized_value_cache.append(self._quantize(value_states[..., middle, :]))
            self.sink_key_cache.append(key_states[..., :self.sink_length, :])
            self.sink_value_cache.append(value_states[..., :self.sink_length, :])
            key_cache.append(key_states[..., -self.window_length:, :])
            value_cache.append(value_states[..., -self.window_length:, :])
            return key_states, value_states
        keys = torch.cat([self.sink_key_cache[layer_idx], self._dequantize(self._quantized_key_cache[layer_idx]),
                          key_cache[layer_idx], key_states], dim=-2)
        values = torch.cat([self.sink_value_cache[layer_idx], self._dequantize(self._quantized_value_cache[layer_idx]),
                            value_cache[layer_idx], value_states], dim=-2)
        key_cache[layer_idx] = torch.cat([key_cache[layer_idx], key_states], dim=-2)
        value_cache[layer_idx] = torch.cat([value_cache[layer_idx], value_states], dim=-2)
        return keys, values

    def get_seq_length(self, layer_idx=0):
        return self._seen_tokens if layer_idx == 0 else self._seen_tokens - 1  # site: lq_seen_tokens_read

    def _quantize(self, tensor):
        scale = tensor.abs().amax().clamp(min=1e-6) / 127
        return torch.round(tensor / scale).to(torch.int8), scale

    def _dequantize(self, packed):
        qtensor, scale = packed
        return qtensor.to(torch.float32) * scale


model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen1.5-7B-Chat", torch_dtype="auto")
input_ids = torch.arange(1, 21)[None]


def probe_build():
    cache = StreamingQuantizedCache(StreamingQuantizedCacheConfig(nbits=2, window_length=8, sink_length=4))
    assert cache.sink_key_cache == []


def probe_generate():
    cache = StreamingQuantizedCache(StreamingQuantizedCacheConfig(nbits=2, window_length=8, sink_length=4))
    output = model.generate(input_ids, max_new_tokens=6, min_new_tokens=6, past_key_values=cache)
    assert output.shape[1] == 26


def probe_first_layer_update():
    cache = StreamingQuantizedCache(StreamingQuantizedCacheConfig(nbits=2, window_length=8, sink_length=4))
    keys, _ = cache.update(torch.ones(1, 1, 20, 64), torch.ones(1, 1, 20, 64), layer_idx=0)
    assert keys.shape[-2] == 20


def probe_second_layer_update():
    cache = StreamingQuantizedCache(StreamingQuantizedCacheConfig(nbits=2, window_length=8, sink_length=4))
    keys, _ = cache.update(torch.ones(1, 1, 20, 64), torch.ones(1, 1, 20, 64), layer_idx=1)
    assert keys.shape[-2] == 20
