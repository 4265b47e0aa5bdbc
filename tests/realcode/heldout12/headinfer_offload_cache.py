"""HeadInfer (wdlctc/headinfer, head-wise KV-cache offloading for million-token inference): `headinfer/mp.py`
imports the attention classes it patches (`LlamaSdpaAttention`, `LlamaFlashAttention2`) and the cache classes
(`Cache, DynamicCache, StaticCache, OffloadedCache, OffloadedStaticCache, QuantizedCacheConfig, HQQQuantizedCache`)
from transformers; `mp_headinfer` renumbers every attention's `layer_idx` by key/value head; `mp_simulate_decode`
fills a transformers `OffloadedCache()` head by head with `past_key_values.update(key_states, value_states,
module.layer_idx + i, cache_kwargs)`. `headinfer/cache.py` defines its own `OffloadedCache(DynamicCache)`
(`super().__init__()`, `original_device`, `_seen_tokens`, an `update` that appends to `self.key_cache` /
`self.value_cache`), and `main.py` builds one per prefill and resets `max_cache_len`, `_seen_tokens` and
`_next_seen_tokens` on it before the chunked forwards.

Provenance (mechanisms read; this code is written here, not copied):
- wdlctc/headinfer @7e08b64f98ad8af8a2cf1dd5ef4d457781bdc34d
  headinfer/mp.py (the imports, mp_headinfer's layer renumbering, mp_simulate_decode), main.py (the prefill loop's
  cache construction and attribute resets).
- wdlctc/headinfer @ff621df00a2ee9ddb9f70c0a8c83826e2a1aa301
  headinfer/cache.py (OffloadedCache(DynamicCache): __init__, update, `from_legacy_cache = None`).
Reduced: no CUDA streams or prefetch/evict (CPU only), no patched flash attention; mp.py's imports are made in
helpers, one per import line, so each is probed alone; the simulated decode fills two heads of 4 tokens into a DynamicCache (transformers' OffloadedCache needs CUDA),
and main.py's per-prefill cache set-up is a helper.
"""

import torch
from transformers import LlamaForCausalLM
from transformers.cache_utils import DynamicCache


def import_patched_attention():
    from transformers.models.llama.modeling_llama import LlamaFlashAttention2, LlamaSdpaAttention  # site: hi_import_attention
    return LlamaSdpaAttention, LlamaFlashAttention2


def import_offloaded_caches():
    from transformers.cache_utils import Cache, OffloadedCache, OffloadedStaticCache, StaticCache  # site: hi_import_offloaded
    return Cache, StaticCache, OffloadedCache, OffloadedStaticCache


def import_quantized_caches():
    from transformers.cache_utils import HQQQuantizedCache, QuantizedCacheConfig  # site: hi_import_quant_config
    return QuantizedCacheConfig, HQQQuantizedCache


class OffloadedCache(DynamicCache):
    def __init__(self) -> None:
        super().__init__()  # clean: hi_own_init
        self.original_device = []
        self.beam_idx = None
        self._seen_tokens = 0  # clean: hi_own_seen_tokens
        self._next_seen_tokens = 0

    def update(self, key_states, value_states, layer_idx, cache_kwargs=None):
        if layer_idx == 0:
            self._next_seen_tokens = self._seen_tokens
            self._seen_tokens += key_states.shape[-2]
        if len(self.key_cache) < layer_idx:  # site: hi_own_key_cache
            raise ValueError("OffloadedCache does not support model usage where layers are skipped. Use DynamicCache.")
        elif len(self.key_cache) == layer_idx:
            self.key_cache.append(key_states)
            self.value_cache.append(value_states)
            self.original_device.append(key_states.device)
        return self.key_cache[layer_idx], self.value_cache[layer_idx]

    from_legacy_cache = None
    to_legacy_cache = None


def mp_headinfer(model):
    layer_idx = 0
    for idx, layer in enumerate(model.model.layers):
        module = layer.self_attn
        module.layer_idx = layer_idx
        layer_idx += model.config.num_key_value_heads
        module.head_group = 8


def mp_simulate_decode(model, cache_class, start_length=4):
    past_key_values = cache_class()
    config = model.config
    for idx, layer in enumerate(model.model.layers):
        module = layer.self_attn
        cache_shape = (1, 1, start_length, module.head_dim)
        key_states = torch.zeros(cache_shape)
        value_states = torch.zeros(cache_shape)
        for i in range(config.num_key_value_heads):
            cache_kwargs = {"full_head": None}
            key_states, value_states = past_key_values.update(key_states, value_states, module.layer_idx + i, cache_kwargs)  # clean: hi_simulate_update
    return past_key_values


def new_prefill_cache():
    past_key_values = OffloadedCache()
    past_key_values.max_cache_len = 0  # site: hi_reset_max_cache_len
    past_key_values._seen_tokens = 0
    past_key_values._next_seen_tokens = 0
    return past_key_values


model = LlamaForCausalLM.from_pretrained("gradientai/Llama-3-8B-Instruct-Gradient-1048k")
mp_headinfer(model)


def probe_patch_imports():
    import_patched_attention()


def probe_cache_imports():
    cache, static, offloaded, offloaded_static = import_offloaded_caches()
    assert issubclass(static, cache)


def probe_quantized_imports():
    import_quantized_caches()


def probe_prefill_cache():
    assert new_prefill_cache().get_seq_length() == 0


def probe_own_cache():
    past_key_values = OffloadedCache()
    assert past_key_values.get_seq_length() == 0 and past_key_values._seen_tokens == 0


def probe_simulate_decode():
    assert mp_simulate_decode(model, DynamicCache).get_seq_length() == 4


def probe_own_update():
    past_key_values = OffloadedCache()
    past_key_values.update(torch.zeros(1, 1, 3, 64), torch.zeros(1, 1, 3, 64), 0)
