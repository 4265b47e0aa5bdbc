"""Heavy-hitter (H2O) KV eviction: a DynamicCache subclass whose `update` reads the rotary tables the attention
passes in `cache_kwargs`, beside the project's own store with legacy-style names (imported from a module).

Provenance (mechanisms read; this code is written here, not copied):
- meta-llama/llama-recipes recipes/experimental/long_context/H2O/utils/llama.py @4d382612640533e6dce2c685d59c540cc4d1763e
  (attention passes cache_kwargs={"sin", "cos", "cache_position"} to `update`; the project's own HHCache with
  `from_legacy_cache`/`to_legacy_cache`)
- meta-llama/llama-recipes recipes/experimental/long_context/H2O/utils/streaming.py @8374ea85d4e5a04cac265e2e43069f88df389082
"""

import torch
from _hitter_store import HitterStore
from transformers import AutoModelForCausalLM, DynamicCache

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf")
prompt = torch.tensor([[1, 3, 5, 7, 9, 11]])


class HeavyHitterCache(DynamicCache):
    """Records whether the attention handed over its rotary tables (the scores need them)."""

    def __init__(self):
        super().__init__()
        self.rotary_seen = []

    def update(self, key_states, value_states, layer_idx, cache_kwargs=None):
        self.rotary_seen.append(cache_kwargs.get("sin") is not None)  # site: hh_update_kwargs_get
        return super().update(key_states, value_states, layer_idx, cache_kwargs)


class BudgetCache(DynamicCache):
    """Counts tokens written per layer; takes whatever the caller passes on."""

    def __init__(self):
        super().__init__()
        self.written = {}

    def update(self, key_states, value_states, layer_idx, cache_kwargs=None, **kwargs):
        self.written[layer_idx] = self.written.get(layer_idx, 0) + key_states.shape[-2]  # clean: hh_budget_update
        return super().update(key_states, value_states, layer_idx, cache_kwargs, **kwargs)


def pairs_of(n):
    return tuple((torch.ones(1, 1, n, 64), torch.ones(1, 1, n, 64)) for _ in range(2))


def probe_update_kwargs():
    cache = HeavyHitterCache()
    model(prompt, past_key_values=cache, use_cache=True)  # observe: hh_update_kwargs_get
    assert cache.get_seq_length() == 6


def probe_budget():
    cache = BudgetCache()
    model(prompt, past_key_values=cache, use_cache=True)
    assert cache.written == {0: 6, 1: 6}


def probe_own_store():
    store = HitterStore.from_legacy_cache(pairs_of(4))  # clean: hh_own_from_legacy
    assert store.get_usable_length(1) == 4  # clean: hh_own_usable_length
    k, v = store.update(torch.ones(1, 1, 1, 64), torch.ones(1, 1, 1, 64), 0)
    assert len(store.to_legacy_cache()) == 2  # clean: hh_own_to_legacy
    assert store.key_cache[0].shape[-2] == 5 and store.seen_tokens == 4  # clean: hh_own_key_cache
