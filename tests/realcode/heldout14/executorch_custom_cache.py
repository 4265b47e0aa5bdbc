"""optimum-executorch's custom KV cache: `ETCustomStaticCache`, a `StaticCache` subclass for export to ExecuTorch,
builds the base cache, initializes its layers early (`early_initialization(batch_size=..., num_heads=...,
head_dim=..., dtype=..., device=...)`), then makes one ExecuTorch `CustomKVCache` per layer from each layer's
`max_batch_size`, `max_cache_len`, `num_heads` and `head_dim`; its `update` writes at
`cache_kwargs.get("cache_position")` into the custom layer buffers, and its `get_seq_length` counts the occupied
slots of layer 0.

Provenance (mechanisms read; this code is written here, not copied):
- huggingface/optimum-executorch @02860798f27cfb58e19080c7994949928e6ac7fc
  optimum/executorch/attentions/custom_kv_cache.py (`from transformers.cache_utils import HybridCache,
  StaticCache`; ETCustomStaticCache.__init__: `super().__init__(config=config, max_batch_size=max_batch_size,
  max_cache_len=max_cache_len, device=device, dtype=dtype)`, `self.early_initialization(...)`, `for layer in
  self.layers: CustomKVCache(max_batch_size=layer.max_batch_size, max_context_length=layer.max_cache_len,
  n_heads=layer.num_heads, head_dim=layer.head_dim, dtype=dtype)`; update: `cache_position =
  cache_kwargs.get("cache_position")`, `layer_cache.update(input_pos=cache_position, k_val=key_states,
  v_val=value_states)`; get_seq_length: `(self.kv_cache[layer_idx].k_cache[0, :, 0].any(dim=-1)).sum()`;
  `replace_with_et_custom_kv_cache` choosing the static or the hybrid class) and optimum/executorch/modeling.py
  (the decode loop passing `cache_position=torch.tensor([i])` per token).
Reduced: ExecuTorch's CustomKVCache written here as an `index_copy_` into (batch, seq, heads, dim) buffers, the
`assert cache_kwargs is not None` guard dropped, the HybridCache import moved into the function that picks the
hybrid class (the module imports it at the top), no export.
"""

import torch
from transformers import AutoModelForCausalLM
from transformers.cache_utils import StaticCache


class CustomKVCache(torch.nn.Module):
    def __init__(self, max_batch_size, max_context_length, n_heads, head_dim, dtype=torch.float32):
        super().__init__()
        shape = (max_batch_size, max_context_length, n_heads, head_dim)
        self.register_buffer("k_cache", torch.zeros(shape, dtype=dtype))
        self.register_buffer("v_cache", torch.zeros(shape, dtype=dtype))

    def update(self, input_pos, k_val, v_val):
        self.k_cache.index_copy_(1, input_pos, k_val.transpose(1, 2))
        self.v_cache.index_copy_(1, input_pos, v_val.transpose(1, 2))
        return self.k_cache.transpose(1, 2), self.v_cache.transpose(1, 2)


class ETCustomStaticCache(StaticCache):
    def __init__(self, config, max_batch_size, max_cache_len=None, device=None, dtype=torch.float32):
        super().__init__(config=config, max_batch_size=max_batch_size, max_cache_len=max_cache_len, device=device,
                         dtype=dtype)
        head_dim = getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads
        num_heads = getattr(config, "num_key_value_heads", None) or config.num_attention_heads
        self.early_initialization(batch_size=max_batch_size, num_heads=num_heads, head_dim=head_dim, dtype=dtype,
                                  device=device)
        self.kv_cache = torch.nn.ModuleList()
        for layer in self.layers:
            layer_cache = CustomKVCache(max_batch_size=layer.max_batch_size, max_context_length=layer.max_cache_len,  # site: ex_layer_fields
                                        n_heads=layer.num_heads, head_dim=layer.head_dim, dtype=dtype)
            self.kv_cache.append(layer_cache)

    def update(self, key_states, value_states, layer_idx, cache_kwargs=None):  # site: ex_update_signature
        cache_position = cache_kwargs.get("cache_position")  # observe: ex_update_signature
        torch._assert(cache_position is not None, "cache_position must be provided")
        layer_cache = self.kv_cache[layer_idx]
        return layer_cache.update(input_pos=cache_position, k_val=key_states, v_val=value_states)

    def get_seq_length(self, layer_idx=0):
        if layer_idx is None:
            layer_idx = 0
        return (self.kv_cache[layer_idx].k_cache[0, :, 0].any(dim=-1)).sum()  # clean: ex_occupied_slots


def pick_cache_class(config):
    if getattr(config, "sliding_window", None):
        from transformers.cache_utils import HybridCache  # site: ex_hybrid_import
        return HybridCache
    return StaticCache


model = AutoModelForCausalLM.from_pretrained("HuggingFaceTB/SmolLM2-135M")
prompt = torch.tensor([[1, 4, 6, 8, 10]])


def probe_build():
    cache = ETCustomStaticCache(config=model.config, max_batch_size=1, max_cache_len=16)
    assert len(cache.kv_cache) == model.config.num_hidden_layers


def probe_decode():
    cache = StaticCache(config=model.config, max_batch_size=1, max_cache_len=16)
    cache.__class__ = ETCustomStaticCache
    cache.kv_cache = torch.nn.ModuleList(
        CustomKVCache(1, 16, model.config.num_key_value_heads, model.config.hidden_size // model.config.num_attention_heads)
        for _ in range(model.config.num_hidden_layers))
    with torch.no_grad():
        model(prompt, past_key_values=cache, cache_position=torch.arange(5))  # observe: ex_update_signature
        model(torch.tensor([[12]]), past_key_values=cache, cache_position=torch.tensor([5]))
    assert int(cache.get_seq_length()) == 6


def probe_plain_static():
    cache = StaticCache(config=model.config, max_batch_size=1, max_cache_len=16)  # clean: ex_static_ctor
    with torch.no_grad():
        model(prompt, past_key_values=cache, cache_position=torch.arange(5))  # clean: ex_plain_static
    assert int(cache.get_seq_length()) == 5


def probe_occupied_slots():
    cache = StaticCache(config=model.config, max_batch_size=1, max_cache_len=16)
    cache.__class__ = ETCustomStaticCache
    cache.kv_cache = torch.nn.ModuleList([CustomKVCache(1, 16, 2, 4)])
    cache.kv_cache[0].update(torch.arange(3), torch.ones(1, 2, 3, 4), torch.ones(1, 2, 3, 4))
    assert int(cache.get_seq_length()) == 3


def probe_hybrid_class():
    model.config.sliding_window = 4
    cls = pick_cache_class(model.config)
    assert cls is not StaticCache
