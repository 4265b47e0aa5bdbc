"""A prompt-prefix cache for a chat wrapper: the prefix's cache is computed once, deep-copied into an exact-match
store and handed back on a hit; a delta is run on top of it, then a greedy loop decodes token by token from the
returned caches. A second script continues generation from a prefilled prefix by giving `generate` only the
delta ids with their cache positions.

Provenance (mechanisms read; this code is written here, not copied):
- nancynigam/llm-context-cache @2fcf230dcaf6b7a67530abafb33d649f07901adf context_cache/model_wrapper.py
  (`get_past_for_prefix_exact`: `copy.deepcopy(cached)` on a hit, `self.exact_cache.put(key,
  copy.deepcopy(past))` after `outputs.past_key_values`; `generate_with_reuse`: `self.model(input_ids=delta_ids,
  past_key_values=past_prefix, use_cache=True)`, then a loop feeding `generated[:, -1:]` with
  `past_key_values=past_kv` and taking `step_outputs.past_key_values`), dummy/hello_kv_cache.py
  (`prefill_prefix` keeps `out.past_key_values` and the prefix length; `generate_with_pkv`:
  `model.generate(input_ids=delta["input_ids"], attention_mask=delta_mask, cache_position=torch.arange(prefix_len,
  prefix_len + delta_len), past_key_values=past_key_values, ...)`)
"""

import copy

import torch
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("gpt2-medium")
prefix_ids = torch.tensor([[11, 12, 13, 14, 15]])
delta_ids = torch.tensor([[21, 22]])


class ExactStore:
    def __init__(self):
        self.entries = {}

    def get(self, key):
        return self.entries.get(key)

    def put(self, key, past):
        self.entries[key] = past


store = ExactStore()


def past_for_prefix(input_ids):
    key = tuple(input_ids[0].tolist())
    cached = store.get(key)
    if cached is not None:
        return copy.deepcopy(cached)
    with torch.no_grad():
        past = model(input_ids=input_ids, use_cache=True).past_key_values
    store.put(key, copy.deepcopy(past))  # clean: cx_deepcopy_store
    return past


def generate_with_reuse(max_new_tokens=3):
    past_prefix = past_for_prefix(prefix_ids)
    with torch.no_grad():
        delta_outputs = model(input_ids=delta_ids, past_key_values=past_prefix, use_cache=True)  # clean: cx_delta_forward
    past_kv = delta_outputs.past_key_values
    generated = delta_ids[:, -1:]
    with torch.no_grad():
        for _ in range(max_new_tokens):
            step_outputs = model(input_ids=generated[:, -1:], past_key_values=past_kv, use_cache=True)  # clean: cx_step_forward
            past_kv = step_outputs.past_key_values
            generated = torch.cat([generated, step_outputs.logits[:, -1].argmax(-1, keepdim=True)], dim=-1)
    return generated, past_kv


def generate_with_pkv(past_key_values, prefix_len, max_new_tokens=3):
    cache_position = torch.arange(prefix_len, prefix_len + delta_ids.shape[-1], dtype=torch.long)
    return model.generate(input_ids=delta_ids, attention_mask=torch.ones_like(delta_ids),  # site: cx_generate_delta
                          cache_position=cache_position, past_key_values=past_key_values,
                          max_new_tokens=max_new_tokens, min_new_tokens=max_new_tokens, do_sample=False,
                          use_cache=True)


def probe_reuse():
    first, cache = generate_with_reuse()
    again, _ = generate_with_reuse()
    assert first.shape == again.shape
    assert cache.get_seq_length() == prefix_ids.shape[1] + delta_ids.shape[1] + 3


def probe_pkv():
    with torch.no_grad():
        past = model(input_ids=prefix_ids, use_cache=True).past_key_values
    out = generate_with_pkv(past, prefix_ids.shape[1])
    assert out.shape[1] >= delta_ids.shape[1] + 3
