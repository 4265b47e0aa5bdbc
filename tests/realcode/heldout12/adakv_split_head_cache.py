"""AdaKV (FFY0/AdaKV, adaptive per-head budget for SnapKV-style KV-cache eviction): a head-wise cache
`DynamicCacheSplitHeadFlatten(Cache)` built with `super().__init__()` and its own `key_cache` / `value_cache` /
`_seen_tokens`, `get_seq_length`, `get_max_length`, `to_legacy_cache` and a `from_legacy_cache` classmethod; a
replacement `LlamaModel.forward` that wraps a legacy cache with `from_legacy_cache` and reads
`past_key_values.get_usable_length(seq_length)` for the position ids; and a replacement
`prepare_inputs_for_generation` that resets every attention's `kv_seq_len` on the first step and, for a `Cache`,
reads `get_seq_length()`, `seen_tokens` and `get_max_length()` to cut the prompt, installed with
`LlamaForCausalLM.prepare_inputs_for_generation = prepare_inputs_for_generation_llama`.

Provenance (mechanisms read; this code is written here, not copied):
- FFY0/AdaKV @0ae8e19f73ee98adc60b710679d1d7f52207759f
  adaptive_snapkv/monkeypatch/snapkv_utils.py (DynamicCacheSplitHeadFlatten: `super().__init__()`, the lists,
  `__len__`, `__getitem__`, `update`, `get_seq_length`, `get_max_length`, `to_legacy_cache`, `from_legacy_cache`),
  adaptive_snapkv/monkeypatch/adaptive_llama_hijack.py (adaptive_LlamaModel_forward: `use_legacy_cache`,
  `from_legacy_cache`, `get_usable_length`; prepare_inputs_for_generation_llama: `kv_seq_len = 0`,
  `get_seq_length()`, `seen_tokens`, the three input-cutting cases, the returned dict).
Reduced: no flash-attn varlen kernel, no per-head compression: update appends on the token axis; the model forward
keeps only its cache handling (the length it computes), split into two helpers, each reached by its own probe;
the override's `get_max_length()` read (after `seen_tokens`) and its attention-mask crop are left out.
"""

import torch
from transformers import LlamaForCausalLM
from transformers.cache_utils import Cache, DynamicCache


class DynamicCacheSplitHeadFlatten(Cache):
    def __init__(self) -> None:
        super().__init__()  # site: ak_base_init
        self.key_cache = []
        self.value_cache = []
        self._seen_tokens = 0

    def __len__(self):
        return len(self.key_cache)

    def update(self, key_states, value_states, layer_idx, cache_kwargs=None):
        if len(self.key_cache) <= layer_idx:
            self.key_cache.append(key_states)
            self.value_cache.append(value_states)
        else:
            self.key_cache[layer_idx] = torch.cat([self.key_cache[layer_idx], key_states], dim=-2)
            self.value_cache[layer_idx] = torch.cat([self.value_cache[layer_idx], value_states], dim=-2)
        return self.key_cache[layer_idx], self.value_cache[layer_idx]

    def get_seq_length(self, layer_idx=0):
        if len(self.key_cache) <= layer_idx:
            return 0
        return self.key_cache[layer_idx].shape[-2]

    def get_max_length(self):
        return None

    @classmethod
    def from_legacy_cache(cls, past_key_values=None):
        cache = cls()
        if past_key_values is not None:
            for layer_idx in range(len(past_key_values)):
                key_states, value_states = past_key_values[layer_idx]
                cache.update(key_states, value_states, layer_idx)
        return cache


def as_cache(past_key_values):
    use_legacy_cache = not isinstance(past_key_values, Cache)
    if use_legacy_cache:
        past_key_values = DynamicCache.from_legacy_cache(past_key_values)  # site: ak_from_legacy
    return past_key_values, use_legacy_cache


def adaptive_past_length(past_key_values, seq_length, use_cache=True):
    past_key_values_length = 0
    if use_cache:
        past_key_values, use_legacy_cache = as_cache(past_key_values)
        past_key_values_length = past_key_values.get_usable_length(seq_length)  # site: ak_usable_length
    return past_key_values_length


def prepare_inputs_for_generation_llama(self, input_ids, past_key_values=None, attention_mask=None,
                                        inputs_embeds=None, **kwargs):
    if past_key_values is None:  # clean: ak_first_step
        for layer in self.model.layers:
            layer.self_attn.kv_seq_len = 0
    if past_key_values is not None:
        if isinstance(past_key_values, Cache):
            cache_length = past_key_values.get_seq_length()
            past_length = past_key_values.seen_tokens  # site: ak_seen_tokens
        else:
            cache_length = past_length = self.model.layers[0].self_attn.kv_seq_len
        if attention_mask is not None and attention_mask.shape[1] > input_ids.shape[1]:
            input_ids = input_ids[:, -(attention_mask.shape[1] - past_length):]
        elif past_length < input_ids.shape[1]:
            input_ids = input_ids[:, past_length:]
    position_ids = kwargs.get("position_ids", None)
    if attention_mask is not None and position_ids is None:
        position_ids = attention_mask.long().cumsum(-1) - 1
        position_ids.masked_fill_(attention_mask == 0, 1)
        if past_key_values:
            position_ids = position_ids[:, -input_ids.shape[1]:]
    if inputs_embeds is not None and past_key_values is None:
        model_inputs = {"inputs_embeds": inputs_embeds}
    else:
        model_inputs = {"input_ids": input_ids}
    model_inputs.update({"position_ids": position_ids, "past_key_values": past_key_values,  # clean: ak_return_cache
                         "use_cache": kwargs.get("use_cache"), "attention_mask": attention_mask})
    return model_inputs


LlamaForCausalLM.prepare_inputs_for_generation = prepare_inputs_for_generation_llama
model = LlamaForCausalLM.from_pretrained("meta-llama/Meta-Llama-3-8B-Instruct")
ids = torch.tensor([[1, 20, 30, 40, 50, 60]])


def probe_split_head_cache():
    cache = DynamicCacheSplitHeadFlatten()
    cache.update(torch.zeros(1, 1, 3, 8), torch.zeros(1, 1, 3, 8), 0)
    assert cache.get_seq_length() == 3


def probe_first_step():
    inputs = model.prepare_inputs_for_generation(ids, past_key_values=None, attention_mask=torch.ones_like(ids),
                                                 use_cache=True)
    assert inputs["input_ids"].shape[1] == 6 and model.model.layers[0].self_attn.kv_seq_len == 0


@torch.no_grad()
def probe_later_step():
    past = model(ids[:, :5], use_cache=True).past_key_values
    inputs = model.prepare_inputs_for_generation(ids, past_key_values=past, attention_mask=torch.ones_like(ids),
                                                 use_cache=True)
    assert inputs["input_ids"].shape[1] == 1


def probe_legacy_prefill():
    cache, legacy = as_cache(None)
    assert legacy and cache.get_seq_length() == 0


def probe_cache_length():
    assert adaptive_past_length(DynamicCache(), 6) == 0
