"""MoA (Mixture of Sparse Attention, thu-nics): the StreamingLLM baseline installs `LlamaModel_Streamingllm_forward`
on the model with `types.MethodType`; when caching it creates the project's `StreamingllmDynamicCache` if none was
given and asks it for `get_usable_length(seq_length)` to offset the position ids. That cache subclasses
transformers' `Cache` without calling its __init__ and keeps its own `key_cache` / `value_cache` lists, with the
legacy `__getitem__` / `__iter__` / `__len__` protocol, its own `get_seq_length`, and an `update` that also takes
`global_size` / `band_size` and then keeps only the global and band windows.

Provenance (mechanisms read; this code is written here, not copied):
- thu-nics/MoA @e224fe3e00cf5e10a2fca36b52b026fc18669931
  MoA/attention/cache_utils.py (class StreamingllmDynamicCache(Cache): `def __init__(self): self.key_cache = []`,
  `self.value_cache = []`, `self.cache_position = 0`; `__getitem__` returning `(self.key_cache[layer_idx],
  self.value_cache[layer_idx])`; `__iter__`; `__len__` = `len(self.key_cache)`; update(..., update_cache_position=None,
  global_size=None, band_size=None): append or `torch.cat([self.key_cache[layer_idx], key_states], dim=-2)`, and when
  `band_size + global_size < self.key_cache[layer_idx].shape[2]` keep `[:, :, :global_size, :]` and `[:, :,
  -band_size:, :]`; get_seq_length; get_max_length returning None) and MoA/models/llama/modeling_llama.py
  (LlamaModel_Streamingllm_forward: `if use_cache: if past_key_values is None: past_key_values =
  StreamingllmDynamicCache()`, `past_key_values_length = past_key_values.get_usable_length(seq_length)`, `position_ids
  = torch.arange(past_key_values_length, seq_length + past_key_values_length, ...)`; the installer `model.forward =
  MethodType(LlamaModel_Streamingllm_forward, model)`).
Reduced: the patched model forward keeps its cache and position prologue, then hands over to transformers' Llama
forward; the streaming attention kernels and masks are gone; the cache's update is reached directly by a probe.
"""

from types import MethodType
from typing import Any, Dict, List, Optional

import torch
from torch import Tensor
from transformers import AutoModelForCausalLM
from transformers.cache_utils import Cache
from transformers.models.llama.modeling_llama import LlamaModel


class StreamingllmDynamicCache(Cache):
    def __init__(self) -> None:  # site: mo_skip_base_init
        self.key_cache: List[Tensor] = []
        self.value_cache: List[Tensor] = []
        self.cache_position = 0

    def __getitem__(self, layer_idx: int):
        if layer_idx < len(self):
            return (self.key_cache[layer_idx], self.value_cache[layer_idx])  # clean: mo_own_getitem
        raise KeyError(f"Cache only has {len(self)} layers, attempted to access layer with index {layer_idx}")

    def __iter__(self):
        for layer_idx in range(len(self)):
            yield (self.key_cache[layer_idx], self.value_cache[layer_idx])

    def __len__(self):
        return len(self.key_cache)

    def update(self, key_states: Tensor, value_states: Tensor, layer_idx: int,
               cache_kwargs: Optional[Dict[str, Any]] = None, update_cache_position: Optional[int] = None,
               global_size: Optional[int] = None, band_size: Optional[int] = None):
        if layer_idx == 0:
            self.cache_position += update_cache_position if update_cache_position is not None else key_states.shape[-2]
        if len(self.key_cache) <= layer_idx:
            self.key_cache.append(key_states)  # clean: mo_own_append
            self.value_cache.append(value_states)
        else:
            self.key_cache[layer_idx] = torch.cat([self.key_cache[layer_idx], key_states], dim=-2)  # clean: mo_own_cat
            self.value_cache[layer_idx] = torch.cat([self.value_cache[layer_idx], value_states], dim=-2)
            if band_size is not None and global_size is not None and (band_size + global_size < self.key_cache[layer_idx].shape[2]):
                self.key_cache[layer_idx] = torch.cat([self.key_cache[layer_idx][:, :, :global_size, :],
                                                       self.key_cache[layer_idx][:, :, -band_size:, :]], dim=-2)
                self.value_cache[layer_idx] = torch.cat([self.value_cache[layer_idx][:, :, :global_size, :],
                                                         self.value_cache[layer_idx][:, :, -band_size:, :]], dim=-2)
        return self.key_cache[layer_idx], self.value_cache[layer_idx]

    def get_seq_length(self, layer_idx: Optional[int] = 0) -> int:
        if len(self.key_cache) <= layer_idx:
            return 0
        return self.key_cache[layer_idx].shape[-2]

    def get_max_length(self) -> Optional[int]:
        return None


def LlamaModel_Streamingllm_forward(self, input_ids=None, attention_mask=None, position_ids=None, past_key_values=None,
                                    inputs_embeds=None, use_cache=None, **kwargs):
    use_cache = use_cache if use_cache is not None else self.config.use_cache
    batch_size, seq_length = input_ids.shape[:2]
    past_key_values_length = 0
    if use_cache:
        if past_key_values is None:
            past_key_values = StreamingllmDynamicCache()
        past_key_values_length = past_key_values.get_usable_length(seq_length)  # site: mo_usable_length
    if position_ids is None:
        position_ids = torch.arange(past_key_values_length, seq_length + past_key_values_length,
                                    dtype=torch.long, device=input_ids.device).unsqueeze(0)
    return LlamaModel.forward(self, input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids,
                              past_key_values=past_key_values, inputs_embeds=inputs_embeds, use_cache=use_cache)


def streamingllm_patch(model):
    model.forward = MethodType(LlamaModel_Streamingllm_forward, model)  # clean: mo_install_forward


lm = AutoModelForCausalLM.from_pretrained("lmsys/vicuna-7b-v1.5-16k", torch_dtype=torch.float32)


def probe_own_cache():
    cache = StreamingllmDynamicCache()
    for step in range(3):
        cache.update(torch.randn(1, 1, 4, 64), torch.randn(1, 1, 4, 64), 0, global_size=2, band_size=6)
    keys, values = cache[0]
    pairs = [k.shape[2] for k, v in cache]
    assert keys.shape[2] == 8 and pairs == [8] and cache.get_seq_length() == 8 and len(cache) == 1


def probe_patched_model():
    streamingllm_patch(lm.model)
    with torch.no_grad():
        lm(torch.tensor([[1, 140, 141, 142]]), use_cache=True)


def probe_install():
    streamingllm_patch(lm.model)
    assert lm.model.forward.__func__ is LlamaModel_Streamingllm_forward


def probe_generate_own_cache():
    cache = StreamingllmDynamicCache()
    out = lm.generate(torch.tensor([[1, 150, 151]]), past_key_values=cache, max_new_tokens=2, min_new_tokens=2, do_sample=False)  # observe: mo_skip_base_init
    assert out.shape[1] == 5 and cache.get_seq_length() == 4
