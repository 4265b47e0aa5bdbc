"""ExecuTorch (pytorch/executorch): two generations of its Hugging Face export caches. The phi-3-mini example wraps
`Phi3ForCausalLM` in a module that owns an `ETStaticCache(StaticCache)` (built with the config, batch size, length,
device and dtype keywords) and calls the model's forward with `past_key_values=self.cache`; the subclass overrides
`get_seq_length` to count the filled slots of `self.key_cache[layer_idx][0, 0]`, and `get_usable_length` to return
it. The MLX backend's `HFStaticCache(StaticCache)` (2026) keeps its own per-layer key/value buffers: after the
parent constructor it calls `early_initialization(...)` with per-layer head counts, falls back to each layer's
`lazy_initialization` (one or two fake tensors, chosen by its signature) on a TypeError, and overrides
`update(key_states, value_states, layer_idx, cache_kwargs=None)`, taking the write position from
`cache_kwargs["cache_position"]` or else from the layer's `cumulative_length`; its exportable wrapper runs the model
with `cache_position=`, `attention_mask=None` and `past_key_values=self.static_cache`.

Provenance (mechanisms read; this code is written here, not copied):
- pytorch/executorch @4f9a5786f966620cb309d2670ab33e788128542a examples/models/phi-3-mini/static_cache.py
  (ETStaticCache: `super().__init__(config=..., max_batch_size=..., max_cache_len=..., device=..., dtype=...)`,
  `get_seq_length`: `(self.key_cache[layer_idx][0, 0].any(dim=-1)).sum().item()`, `get_usable_length`);
  examples/models/phi-3-mini/phi_3_mini.py @16a90827075bf388cc5e16194c55a0791241ef0e (Phi3Mini.forward:
  `self.model.forward(input_ids=..., use_cache=True, return_dict=True, past_key_values=self.cache).logits`);
  examples/models/phi-3-mini/eager.py (the same cache given to the first forward); written for transformers 4.44.2.
- pytorch/executorch @cff6f4dd32e630945b7188512c1f2b4f102b05ad backends/mlx/llm/cache.py (HFStaticCache.__init__,
  update, get_seq_length) and backends/mlx/llm/exportable.py (TorchExportableModuleWithStaticCacheAndHidden.forward).
Reduced: tiny Phi-3 and Llama built from configs; the MLX `KVCache` (a custom op) is a slice write into two
buffers; no torch.export, no hidden-state taps, no Gemma layer layouts (one head count and head size per layer).
"""

import inspect

import torch
from torch import nn
from transformers import LlamaConfig, LlamaForCausalLM, Phi3Config, Phi3ForCausalLM, StaticCache

phi3 = Phi3ForCausalLM(Phi3Config(vocab_size=320, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                  num_attention_heads=4, num_key_value_heads=2, pad_token_id=0, bos_token_id=1,
                                  eos_token_id=2)).eval()
llama = LlamaForCausalLM(LlamaConfig(vocab_size=320, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                     num_attention_heads=4, num_key_value_heads=2)).eval()


class ETStaticCache(StaticCache):
    def __init__(self, config, max_batch_size, max_cache_len, device, dtype=torch.float32):
        super().__init__(config=config, max_batch_size=max_batch_size, max_cache_len=max_cache_len,  # clean: ex_et_init
                         device=device, dtype=dtype)

    def get_seq_length(self, layer_idx=0):
        return (self.key_cache[layer_idx][0, 0].any(dim=-1)).sum().item()  # site: ex_key_cache_len

    def get_usable_length(self, new_seq_length, layer_idx=0):
        return self.get_seq_length(layer_idx)


class Phi3Mini(nn.Module):
    def __init__(self, model, max_batch_size, max_seq_len):
        super().__init__()
        self.model = model
        self.cache = ETStaticCache(config=model.config, max_batch_size=max_batch_size, max_cache_len=max_seq_len,
                                   device=model.device, dtype=model.dtype)

    def forward(self, input_ids):
        return self.model.forward(input_ids=input_ids, use_cache=True, return_dict=True,
                                  past_key_values=self.cache).logits


class KVCache(nn.Module):
    def __init__(self, max_batch_size, max_context_length, n_heads, head_dim, dtype=torch.float32):
        super().__init__()
        shape = (max_batch_size, n_heads, max_context_length, head_dim)
        self.register_buffer("k_cache", torch.zeros(shape, dtype=dtype))
        self.register_buffer("v_cache", torch.zeros(shape, dtype=dtype))

    def update(self, input_pos, k_val, v_val):
        start = int(input_pos[0].item())
        self.k_cache[:, :, start:start + k_val.shape[2]] = k_val
        self.v_cache[:, :, start:start + v_val.shape[2]] = v_val
        return self.k_cache, self.v_cache


class HFStaticCache(StaticCache):
    def __init__(self, config, max_batch_size=1, max_cache_len=None, device=None, dtype=torch.float32):
        head_dim = getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads
        num_heads = [config.num_key_value_heads] * config.num_hidden_layers
        head_dims = [head_dim] * config.num_hidden_layers
        max_cache_len = max_cache_len or getattr(config, "max_position_embeddings", 2048)
        super().__init__(config=config, max_batch_size=max_batch_size, max_cache_len=max_cache_len,  # clean: mx_parent_init
                         device=device, dtype=dtype)
        try:
            self.early_initialization(batch_size=max_batch_size, num_heads=num_heads,  # clean: mx_early_init
                                      head_dim=head_dims, dtype=dtype, device=device)
        except TypeError:
            for layer, n_heads, dim in zip(self.layers, num_heads, head_dims):
                fake_keys = torch.zeros((max_batch_size, n_heads, 0, dim), dtype=dtype, device=device)
                if len(inspect.signature(layer.lazy_initialization).parameters) == 1:  # clean: mx_lazy_init
                    layer.lazy_initialization(fake_keys)
                else:
                    layer.lazy_initialization(fake_keys, torch.zeros_like(fake_keys))
        self.num_layers = len(self.layers)
        self.kv_cache = nn.ModuleList([KVCache(max_batch_size, max_cache_len, n, d, dtype=dtype)
                                       for n, d in zip(num_heads, head_dims)])

    def update(self, key_states, value_states, layer_idx, cache_kwargs=None):  # site: mx_update_signature
        if cache_kwargs is not None:
            cache_position = cache_kwargs.get("cache_position")
        else:
            cache_position = None
        if cache_position is None:
            if hasattr(self.layers[layer_idx], "cumulative_length"):
                cache_position = self.layers[layer_idx].cumulative_length.reshape(1)
            else:
                raise RuntimeError("cache_position was not provided and the layer has no cumulative_length")
        return self.kv_cache[layer_idx].update(cache_position, key_states, value_states)

    def get_seq_length(self, layer_idx=0):
        return (self.kv_cache[layer_idx].k_cache[0, 0, :, 0] != 0).sum().item()


class ExportableWithStaticCache(nn.Module):
    def __init__(self, model, max_cache_len):
        super().__init__()
        self.model = model
        self.static_cache = HFStaticCache(model.config, max_batch_size=1, max_cache_len=max_cache_len)

    def forward(self, input_ids, cache_position):
        outs = self.model(input_ids=input_ids, cache_position=cache_position, attention_mask=None,  # observe: mx_update_signature
                          past_key_values=self.static_cache, use_cache=True)
        return outs.logits


def probe_phi3_export_step():
    module = Phi3Mini(phi3, max_batch_size=1, max_seq_len=16)
    logits = module(torch.tensor([[1, 5, 6, 7]]))
    assert logits.shape == (1, 4, 320)


def probe_et_cache_built():
    cache = ETStaticCache(phi3.config, 1, 16, device="cpu")
    assert isinstance(cache, StaticCache) and len(cache.layers) == 2


def probe_mlx_cache_built():
    cache = HFStaticCache(llama.config, max_batch_size=1, max_cache_len=16)
    assert cache.num_layers == 2 and cache.get_seq_length() == 0


def probe_mlx_prefill_decode():
    module = ExportableWithStaticCache(llama, max_cache_len=16)
    module(torch.tensor([[1, 5, 6, 7]]), torch.arange(4))
    module(torch.tensor([[9]]), torch.tensor([4]))
    assert module.static_cache.get_seq_length() == 5, "mx_update_signature: the decode step overwrote the prompt"  # observe: mx_update_signature
