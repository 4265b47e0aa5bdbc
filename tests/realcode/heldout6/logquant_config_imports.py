"""The configuration half of the same KV-cache quantization project: its streaming and log-distributed cache
configurations subclass transformers' `CacheConfig` (imported, with `QuantizedCacheConfig`, from the top-level
package at the head of the module) and validate their fields the way the quantized cache config did in 4.4x.

Provenance (mechanisms read; this code is written here, not copied):
- Concyclics/LogQuantKV @1ada9581e9eec0d3d28606eb9c2c5e5ae8962255 src/LogQuant.py (`from transformers import
  CacheConfig, QuantizedCacheConfig, DynamicCache`; `@dataclass class StreamingQuantizedCacheConfig(CacheConfig)`
  with backend, nbits, axis_key, axis_value, q_group_size, window_length, sink_length, compute_dtype, device and
  a `validate()` raising ValueError on bad values)
Reduced: one configuration class with three of its fields and their checks (the cache classes are
logquant_streaming_cache.py).
"""

from dataclasses import dataclass

from transformers import CacheConfig, DynamicCache, QuantizedCacheConfig  # site: lq_config_imports


@dataclass
class StreamingQuantizedCacheConfig(CacheConfig):
    nbits: int = 4
    window_length: int = 64
    sink_length: int = 4

    def validate(self):
        if self.nbits not in [1, 2, 3, 4, 8]:
            raise ValueError(f"`nbits` should be 2 or 4 or 8 but found {self.nbits}")
        if self.window_length < 0 or self.sink_length < 0:
            raise ValueError("window_length and sink_length should be positive integers")


def probe_config():
    StreamingQuantizedCacheConfig(nbits=2).validate()
    assert issubclass(StreamingQuantizedCacheConfig, CacheConfig) and DynamicCache and QuantizedCacheConfig
