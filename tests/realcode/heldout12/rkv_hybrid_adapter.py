"""R-KV (Zefan-Cai/R-KV, redundancy-aware KV-cache compression for reasoning models), its native-Transformers
hybrid adapter: `HybridRKVAdapter` walks the model's attention modules (those with `q_proj` and `layer_idx` on a
`full_attention` layer of `config.get_text_config().layer_types`), registers a forward pre-hook per module that
binds the call's arguments and records `bound.arguments.get("past_key_values")` in `self._calls[layer_idx]`; the
attention step then pops that cache, passes through when it is None, refuses a cache without `layers`, keeps
per-layer state in `cache._rkv_hybrid_states` and on `cache.layers[index]`, and compression replaces a
`DynamicLayer`'s `keys` / `values` and its `get_seq_length` with the logical length.

Provenance (mechanisms read; this code is written here, not copied):
- Zefan-Cai/R-KV @27690e8f727617e5aebad7062db8cf2fbe1e6a23
  HuggingFace/rkv/hybrid.py (HybridRKVAdapter.__init__'s module walk and `register_forward_pre_hook(self._capture,
  with_kwargs=True)`, _capture, _attention's cache checks and `_LayerState` bookkeeping, _compress's
  `type(layer).__name__ != "DynamicLayer"` check, `layer.keys, layer.values = key, value`,
  `layer.get_seq_length = logical_length`).
Reduced: the attention-backend interception (`ALL_ATTENTION_FUNCTIONS`) is a forward hook on the same modules doing
the bookkeeping after the native attention ran; the R1KV selector keeps the most recent `budget` tokens; no
shared-KV layers, statistics or mask selection.
"""

import inspect
from dataclasses import dataclass

import torch
from transformers import DynamicCache, Qwen2ForCausalLM


@dataclass
class _LayerState:
    seen: int
    positions: torch.Tensor
    decode_calls: int = 0


class HybridRKVAdapter:
    def __init__(self, model, budget=None, compression_interval=128):
        self.budget = budget
        self.compression_interval = compression_interval
        text_config = model.config.get_text_config()
        self.layer_types = list(text_config.layer_types)
        self._modules = {}
        self._calls = {}
        self._hooks = []
        for module in model.modules():
            if not hasattr(module, "q_proj") or not hasattr(module, "layer_idx"):
                continue
            if self.layer_types[module.layer_idx] != "full_attention":
                continue
            self._modules[module.layer_idx] = module
            self._hooks.append(module.register_forward_pre_hook(self._capture, with_kwargs=True))
            self._hooks.append(module.register_forward_hook(self._after_attention, with_kwargs=True))

    def _capture(self, module, args, kwargs):
        bound = inspect.signature(module.forward).bind_partial(*args, **kwargs)
        self._calls[module.layer_idx] = bound.arguments.get("past_key_values")  # site: rk_capture_cache

    def _after_attention(self, module, args, kwargs, output):
        index = module.layer_idx
        cache = self._calls.pop(index)
        if self.budget is None or cache is None:
            return None
        if not hasattr(cache, "layers"):  # clean: rk_has_layers
            raise TypeError("the hybrid adapter requires a modern Transformers dynamic cache")
        if not hasattr(cache, "_rkv_hybrid_states"):
            cache._rkv_hybrid_states = {}
        states = cache._rkv_hybrid_states
        layer = cache.layers[index]  # clean: rk_layer_lookup
        state = states.get(index)
        if state is None:
            positions = torch.arange(layer.keys.shape[-2]).view(1, 1, -1).expand(layer.keys.shape[:3])
            state = _LayerState(layer.keys.shape[-2], positions)
            states[index] = state
            layer._rkv_hybrid_state = state
        else:
            state.seen += 1
            state.decode_calls += 1
        return None

    def _compress(self, cache, index, state):
        layer = cache.layers[index]
        if type(layer).__name__ != "DynamicLayer":  # clean: rk_layer_type
            raise TypeError("only native DynamicLayer full caches can be compressed")
        key, value = layer.keys[:, :, -self.budget:], layer.values[:, :, -self.budget:]
        state.positions = state.positions[:, :, -self.budget:]
        layer.keys, layer.values = key, value  # clean: rk_replace_kv

        def logical_length():
            if not layer.is_initialized or layer.keys.numel() == 0:
                return 0
            return state.seen

        layer.get_seq_length = logical_length  # clean: rk_logical_length
        return key, value


model = Qwen2ForCausalLM.from_pretrained("Qwen/Qwen2.5-Math-7B", attn_implementation="sdpa")
prompt = torch.tensor([[151, 12, 7, 99, 300, 41, 5, 18]])


@torch.no_grad()
def probe_prefill_state():
    adapter = HybridRKVAdapter(model, budget=4)
    cache = DynamicCache()
    model(prompt, past_key_values=cache, use_cache=True)
    assert hasattr(cache, "_rkv_hybrid_states"), "rk_capture_cache: the adapter never saw the generation cache"  # observe: rk_capture_cache
    assert cache._rkv_hybrid_states[0].seen == prompt.shape[1]


@torch.no_grad()
def probe_compress():
    adapter = HybridRKVAdapter(model, budget=4)
    cache = DynamicCache()
    model(prompt, past_key_values=cache, use_cache=True)  # clean: rk_prefill
    state = _LayerState(prompt.shape[1], torch.arange(prompt.shape[1]).view(1, 1, -1))
    adapter._compress(cache, 0, state)
    assert cache.layers[0].keys.shape[-2] == 4 and cache.layers[0].get_seq_length() == prompt.shape[1]


@torch.no_grad()
def probe_pass_through():
    adapter = HybridRKVAdapter(model, budget=None)
    out = model(prompt, use_cache=False)
    assert out.logits.shape[1] == prompt.shape[1] and not adapter._calls
