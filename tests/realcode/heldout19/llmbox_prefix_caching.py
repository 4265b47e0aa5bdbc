"""LLMBox's prefix caching for evaluation: a shared prompt prefix (the few-shot demonstrations) is run once and its
KV kept in `SequenceCache`, a `DynamicCache` subclass that never calls the base initialiser and keeps its own
`key_cache` / `value_cache` lists (one tensor per layer) plus the real length of each sequence, so it can be trimmed,
unbound per sequence and expanded to the number of options of a multiple-choice question. A model output's cache is
read back into it with an overridden `from_legacy_cache` classmethod (`past_key_values[0][0].shape`, then `for
key_states, value_states in past_key_values`), and it is handed to the model by `to_legacy_cache`, which fills a
fresh `DynamicCache()` by assigning its `key_cache` / `value_cache` attributes.

Provenance (mechanisms read; this code is written here, not copied):
- RUCAIBox/LLMBox @5a1cfe2ca6d296f2fdc171119012d8fa2cf2fc41
  utilization/model/model_utils/prefix_caching.py (`class SequenceCache(DynamicCache)`, `__init__` setting
  `self.key_cache: List[torch.Tensor] = []`, `self.value_cache`, `self.real_seq_length`, `self.token_ids`;
  `from_legacy_cache(cls, past_key_values)`: `batch_size, _, seq_len, _ = past_key_values[0][0].shape`, `for
  key_states, value_states in past_key_values: cache.key_cache.append(key_states.detach())`; `trim`: `self.key_cache[
  layer_idx] = self.key_cache[layer_idx][..., num_l:-num_r, :]`; `expand_seq`: `cache.key_cache.append(key.expand(
  repeat_times, -1, -1, -1))`; `to_legacy_cache`: `legacy_cache = DynamicCache()`, `legacy_cache.key_cache = self.
  key_cache`, `legacy_cache.value_cache = self.value_cache`) and utilization/model/huggingface_model.py (`get_cache`:
  `past_key_values = prefix_cache.to_legacy_cache()`, `results = self.model(input_ids=..., attention_mask=...,
  past_key_values=past_key_values, use_cache=True, position_ids=...)`, `cache = SequenceCache.from_legacy_cache(
  results.past_key_values)` when `return_caches`, else the logits only).
The prefix's attention mask and the continuation's positions come from `_get_prefix_mask`, which asks the cache for
`get_seq_length()`, the method `SequenceCache` inherits from `DynamicCache` without overriding it.
Also read: utilization/model/huggingface_model.py's start-up checks (`self.model(position_ids=None)` and `self.model(
use_cache=True, past_key_values=None)` in `try`, a `TypeError` meaning unsupported) and `_get_prefix_mask` (`max_prefix_len = prefix_cache.get_seq_length()`,
`prefix_mask = torch.ones((batch_size, max_prefix_len))`, `prefix_mask[seq_idx, :-prefix_len] = 0`, `input_pos` from
`torch.arange(prefix_len, prefix_len + max_input_len)`).
Reduced: no tokenizer, conversation or prefix-sampler (token ids in), one sequence per prefix, `unbind`,
`pad_and_stack` and the generation path dropped, positions continue from the cached length.
"""

from typing import List, Optional, Tuple

import torch
from transformers import AutoModelForCausalLM, DynamicCache

_LegacyCache = Tuple[Tuple[torch.FloatTensor, torch.FloatTensor], ...]


class SequenceCache(DynamicCache):
    def __init__(self) -> None:
        self.key_cache: List[torch.Tensor] = []
        self.value_cache: List[torch.Tensor] = []
        self.real_seq_length: List[int] = []
        self.token_ids: Optional[torch.Tensor] = None

    @classmethod
    def from_legacy_cache(cls, past_key_values: Optional[_LegacyCache] = None) -> "SequenceCache":
        cache = SequenceCache()
        if past_key_values is not None:
            batch_size, _, seq_len, _ = past_key_values[0][0].shape  # site: lb_from_output
            for key_states, value_states in past_key_values:
                cache.key_cache.append(key_states.detach())
                cache.value_cache.append(value_states.detach())
            cache.real_seq_length = [seq_len] * batch_size
        return cache

    def get_seq_num(self) -> int:
        return len(self.real_seq_length)

    def trim(self, num_l: int = 0, num_r: int = 0):
        if num_l > 0 or num_r > 0:
            self.real_seq_length = [n - num_l - num_r for n in self.real_seq_length]
            for layer_idx in range(len(self.key_cache)):
                self.key_cache[layer_idx] = self.key_cache[layer_idx][..., num_l:-num_r, :]  # clean: lb_trim_keys
                self.value_cache[layer_idx] = self.value_cache[layer_idx][..., num_l:-num_r, :]

    def expand_seq(self, repeat_times: int) -> "SequenceCache":
        assert self.get_seq_num() == 1
        cache = SequenceCache()
        cache.real_seq_length = self.real_seq_length * repeat_times
        for key, value in zip(self.key_cache, self.value_cache):
            cache.key_cache.append(key.expand(repeat_times, -1, -1, -1))  # clean: lb_expand_keys
            cache.value_cache.append(value.expand(repeat_times, -1, -1, -1))
        return cache

    def to_legacy_cache(self) -> Optional[DynamicCache]:
        if len(self.key_cache) == 0 or any(s == 0 for s in self.key_cache[0].shape):
            return None
        legacy_cache = DynamicCache()
        legacy_cache.key_cache = self.key_cache  # site: lb_write_keys
        legacy_cache.value_cache = self.value_cache  # observe: lb_write_keys
        return legacy_cache


model = AutoModelForCausalLM.from_pretrained("meta-llama/Meta-Llama-3-8B").eval()


def support_flags():
    support_position_ids = support_cache = True
    try:
        model(position_ids=None)
    except TypeError:
        support_position_ids = False
    except Exception:
        support_position_ids = True
    try:
        model(use_cache=True, past_key_values=None)  # clean: lb_support_cache
    except TypeError:
        support_cache = False
    except Exception:
        support_cache = True
    return support_position_ids, support_cache


def _get_prefix_mask(prefix_cache, max_input_len=None):
    max_prefix_len = prefix_cache.get_seq_length()  # site: lb_inherited_length
    batch_size = prefix_cache.get_seq_num()
    prefix_mask = torch.ones((batch_size, max_prefix_len), dtype=torch.long)
    prefix_lengths = []
    input_pos = []
    for seq_idx in range(batch_size):
        prefix_len = prefix_cache.real_seq_length[seq_idx]
        prefix_mask[seq_idx, :-prefix_len] = 0
        prefix_lengths.append(prefix_len)
        if max_input_len is not None:
            input_pos.append(torch.arange(prefix_len, prefix_len + max_input_len))
    return prefix_mask, (torch.stack(input_pos) if input_pos else None), prefix_lengths


def get_cache(input_ids, prefix_cache=None, return_caches=True):
    prefix_len = prefix_cache.real_seq_length[0] if prefix_cache is not None else 0
    attention_mask = torch.ones(input_ids.shape[0], prefix_len + input_ids.shape[1], dtype=torch.long)
    position_ids = torch.arange(prefix_len, prefix_len + input_ids.shape[1]).unsqueeze(0).expand(input_ids.shape[0], -1)
    if prefix_cache is not None:
        past_key_values = prefix_cache.to_legacy_cache()
        if attention_mask.shape[1] == input_ids.shape[1]:
            past_key_values = None
    else:
        past_key_values = None
    with torch.no_grad():
        results = model(  # clean: lb_forward
            input_ids=input_ids,
            attention_mask=attention_mask,
            past_key_values=past_key_values,
            use_cache=True,
            position_ids=position_ids,
        )
    if not return_caches:
        return results
    return SequenceCache.from_legacy_cache(results.past_key_values)


prefix = torch.tensor([[1, 70, 71, 72, 73]])
option = torch.tensor([[80, 81]])


def _hand_built_prefix(length=5):
    head_dim = model.config.hidden_size // model.config.num_attention_heads
    cache = SequenceCache()
    for _ in range(model.config.num_hidden_layers):
        cache.key_cache.append(torch.randn(1, model.config.num_key_value_heads, length, head_dim))
        cache.value_cache.append(torch.randn(1, model.config.num_key_value_heads, length, head_dim))
    cache.real_seq_length = [length]
    return cache


def probe_support():
    assert support_flags() == (True, True)


def probe_score():
    results = get_cache(prefix, return_caches=False)
    assert results.logits.shape[:2] == (1, 5)


def probe_prefix_cache():
    cache = get_cache(prefix)
    assert cache.real_seq_length == [5] and len(cache.key_cache) == model.config.num_hidden_layers


def probe_options():
    cache = _hand_built_prefix(7)
    cache.trim(1, 1)
    expanded = cache.expand_seq(3)
    assert expanded.key_cache[0].shape[0] == 3 and expanded.key_cache[0].shape[2] == 5


def probe_prefix_mask():
    cache = _hand_built_prefix()
    prefix_mask, input_pos, prefix_lengths = _get_prefix_mask(cache, max_input_len=2)
    assert prefix_mask.shape == (1, 5) and prefix_lengths == [5] and input_pos.tolist() == [[5, 6]]


def probe_continue():
    cache = _hand_built_prefix()
    results = get_cache(option, prefix_cache=cache, return_caches=False)
    seen = results.past_key_values.get_seq_length()
    assert seen == 7, f"lb_write_keys: the model saw {seen} cached tokens, not the prefix's 5 and the option's 2"  # observe: lb_write_keys
