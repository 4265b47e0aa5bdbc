"""Huginn / Raven, the recurrent-depth model of seal-rg/recurrent-pretraining: its remote-code cache
`HuginnDynamicCache(DynamicCache)` calls `super().__init__()`, then replaces the parent's storage with its own
`key_cache` / `value_cache` dicts keyed by recurrent step and token position and its own `_seen_tokens`; it
overrides `update(key_states, value_states, step_idx_tensor, lookup_strategy=None)` (storing every new position
and returning the stacked keys and values of that step), `get_seq_length(step_idx=0)` (returns `_seen_tokens`) and
adds `clear_last_k_entries(k)`. The checkpoint converter decodes with a manual loop that feeds
`past_tokens[:, past_key_values.get_seq_length():]` with positions from the same length.

Provenance (mechanisms read; this code is written here, not copied):
- seal-rg/recurrent-pretraining @59e0b69b2d96a59cbbe79c9d5034d89ecb5ab6f6
  recpre/raven_modeling_minimal.py (class HuginnDynamicCache: `__init__` with `super().__init__()`,
  `self._seen_tokens = 0`, `self.key_cache: dict[int, dict[int, torch.Tensor]] = {}`; `update` counting
  `_seen_tokens` on step 0, storing each position, returning `torch.stack(list(self.key_cache[step_idx].values()),
  dim=-2)` under the "full" strategy; `clear_last_k_entries`; `get_seq_length`), evaluate_raven/
  checkpoint_to_hf_converter.py (`past_key_values = HuginnDynamicCache()`, the loop on `past_key_values.get_seq_length()`).
Reduced: the recurrent block is transformers' Llama (its attention layers call the cache's `update` with their layer
index in place of the recurrent step); only the "full" lookup strategy.
"""

import torch
from transformers import AutoModelForCausalLM
from transformers.cache_utils import DynamicCache


class HuginnDynamicCache(DynamicCache):
    def __init__(self, lookup_strategy="full"):
        super().__init__()  # clean: rv_parent_init
        self._seen_tokens = 0  # clean: rv_own_seen_tokens
        self.key_cache = {}  # clean: rv_own_key_cache
        self.value_cache = {}
        self.lookup_strategy = lookup_strategy

    def update(self, key_states, value_states, step_idx_tensor, lookup_strategy=None):  # site: rv_update_signature
        step_idx = int(step_idx_tensor)
        if step_idx == 0:
            self._seen_tokens += key_states.shape[-2]
        self.key_cache.setdefault(step_idx, {})
        self.value_cache.setdefault(step_idx, {})
        for idx in range(key_states.shape[-2]):
            position = self._seen_tokens - key_states.shape[-2] + idx
            self.key_cache[step_idx][position] = key_states[:, :, idx, :]
            self.value_cache[step_idx][position] = value_states[:, :, idx, :]
        return (torch.stack(list(self.key_cache[step_idx].values()), dim=-2),
                torch.stack(list(self.value_cache[step_idx].values()), dim=-2))

    def clear_last_k_entries(self, k=0):
        self._seen_tokens = self._seen_tokens - k
        self.key_cache = {s: {p: t for p, t in c.items() if p < self._seen_tokens} for s, c in self.key_cache.items()}  # clean: rv_clear_keys
        self.value_cache = {s: {p: t for p, t in c.items() if p < self._seen_tokens}
                            for s, c in self.value_cache.items()}

    def get_seq_length(self, step_idx=0):  # site: rv_seq_length_signature
        return self._seen_tokens


model = AutoModelForCausalLM.from_pretrained("tomg-group-umd/huginn-0125")


def decode(past_tokens, steps=3):
    past_key_values = HuginnDynamicCache()
    with torch.no_grad():
        for _ in range(steps):
            input_length = past_tokens[:, past_key_values.get_seq_length():].shape[1]
            positions = past_key_values.get_seq_length() + torch.arange(input_length)
            out = model(input_ids=past_tokens[:, past_key_values.get_seq_length():], position_ids=positions[None],  # observe: rv_seq_length_signature
                        past_key_values=past_key_values, use_cache=True)
            past_tokens = torch.cat([past_tokens, out.logits[:, -1:].argmax(-1)], dim=-1)
    return past_tokens, past_key_values


def probe_cache_alone():
    cache = HuginnDynamicCache()
    cache.update(torch.zeros(1, 2, 5, 8), torch.zeros(1, 2, 5, 8), torch.tensor(0))
    cache.clear_last_k_entries(2)
    assert cache.get_seq_length() == 3 and len(cache.key_cache[0]) == 3


def probe_decode():
    tokens, cache = decode(torch.tensor([[1, 3, 5, 7]]))
    assert tokens.shape[1] == 7


def probe_update_only():
    class LengthByLayer(HuginnDynamicCache):
        def get_seq_length(self, layer_idx=0, **kwargs):
            return self._seen_tokens

    cache = LengthByLayer()
    with torch.no_grad():
        model(input_ids=torch.tensor([[1, 3, 5, 7]]), past_key_values=cache, use_cache=True)  # observe: rv_update_signature
    assert cache.get_seq_length() == 4 and len(cache.key_cache[0]) == 4
