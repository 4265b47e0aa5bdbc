"""llama-to-coreml (andmev/llama-to-coreml): converts Llama 3.x to a stateful Core ML model the way Apple's "On Device
Llama 3.1 with Core ML" article does. `SliceUpdateKeyValueCache(Cache)` holds one key and one value tensor of shape
(layers, batch, kv heads, context, head dim), created in its `__init__` after `super().__init__()`; its `update`
writes the new states at `[past_seen_tokens, past_seen_tokens + len(cache_position))` and returns the slices up to
the end, `get_seq_length` returns `past_seen_tokens`. `KvCacheStateLlamaForCausalLM` builds that cache, registers
its two tensors as buffers (`keyCache`, `valueCache`, the Core ML states), and in `forward(input_ids, causal_mask)`
sets `past_seen_tokens` from the mask's width before running the Llama with `past_key_values=self.kv_cache`.

Provenance (mechanisms read; this code is written here, not copied):
- andmev/llama-to-coreml @17c924e24e8d38fc47dec5d556237f0f1014a0a8 src/cache.py (SliceUpdateKeyValueCache), src/model.py
  (KvCacheStateLlamaForCausalLM), src/converter.py (the traced example inputs: two tokens, a (1, 1, 2, 5) mask),
  scripts/convert_model.py; requirements.txt pins transformers==4.44.2.
Reduced: a tiny Llama from a config instead of `LlamaForCausalLM.from_pretrained(model_path)`; no tracing, Core ML
conversion or quantization (the wrapper is run eagerly, as the tracer runs it once).
"""

import torch
from transformers import LlamaConfig, LlamaForCausalLM
from transformers.cache_utils import Cache

llama = LlamaForCausalLM(LlamaConfig(vocab_size=320, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                     num_attention_heads=4, num_key_value_heads=2)).eval()


class SliceUpdateKeyValueCache(Cache):
    def __init__(self, *, shape, dtype=torch.float32):
        super().__init__()  # site: cm_base_init
        self.past_seen_tokens = 0
        self.k = torch.zeros(shape, dtype=dtype)
        self.v = torch.zeros(shape, dtype=dtype)

    def update(self, k_state, v_state, layer_idx, cache_kwargs=None):
        position = cache_kwargs.get("cache_position", None)
        assert position is not None, "cache_position required to update cache."
        begin, end = self.past_seen_tokens, self.past_seen_tokens + position.shape[-1]
        self.k[layer_idx, :, : k_state.shape[1], begin:end, :] = k_state
        self.v[layer_idx, :, : v_state.shape[1], begin:end, :] = v_state
        return self.k[layer_idx, :, :, :end, :], self.v[layer_idx, :, :, :end, :]

    def get_seq_length(self, _=0):
        return self.past_seen_tokens


class KvCacheStateLlamaForCausalLM(torch.nn.Module):
    def __init__(self, model, *, batch_size=1, context_size=32):
        super().__init__()
        self.model = model
        config = model.config
        self.kv_cache_shape = (config.num_hidden_layers, batch_size, config.num_key_value_heads, context_size,
                               config.hidden_size // config.num_attention_heads)
        self.kv_cache = SliceUpdateKeyValueCache(shape=self.kv_cache_shape)
        self.register_buffer("keyCache", self.kv_cache.k)
        self.register_buffer("valueCache", self.kv_cache.v)

    @torch.no_grad()
    def forward(self, input_ids, causal_mask):
        self.kv_cache.past_seen_tokens = causal_mask.shape[-1] - input_ids.shape[-1]
        return self.model(input_ids, attention_mask=causal_mask, past_key_values=self.kv_cache, use_cache=True).logits


def probe_convert_wrapper():
    wrapper = KvCacheStateLlamaForCausalLM(llama, batch_size=1, context_size=32)
    assert tuple(wrapper.keyCache.shape) == wrapper.kv_cache_shape
