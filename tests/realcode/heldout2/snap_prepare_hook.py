"""A SnapKV-style model class: the prompt's cache is compressed in prefill, and a copied 4.3x/4.4x
`prepare_inputs_for_generation` decides how many input ids are new from the cache's counters.

Provenance (mechanisms read; this code is written here, not copied):
- FasterDecoding/SnapKV snapkv/monkeypatch/llama_hijack_4_37.py @395b54dce7866cb2cffdebdc9f641fd0821a2c30
  (prepare_inputs_for_generation reads `past_key_values.seen_tokens` and `get_max_length()` when the cache is a
  `Cache`; the patched attention asks `past_key_value.get_usable_length(kv_seq_len, layer_idx)`)
"""

import torch
from transformers import Cache, DynamicCache, LlamaForCausalLM

prompt = torch.tensor([[1, 3, 5, 7, 9, 11]])


class SeenTokensLM(LlamaForCausalLM):
    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, attention_mask=None, **kwargs):
        if isinstance(past_key_values, Cache) and past_key_values.get_seq_length() > 0:
            past_length = past_key_values.seen_tokens  # site: sk_seen_tokens
            input_ids = input_ids[:, past_length:]
        return {"input_ids": input_ids, "past_key_values": past_key_values, "use_cache": True}


class LengthHookLM(LlamaForCausalLM):
    lengths = []

    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, attention_mask=None, **kwargs):  # site: sk_named_past
        if past_key_values is not None and past_key_values.get_seq_length() > 0:
            input_ids = input_ids[:, past_key_values.get_seq_length():]
        self.lengths.append(input_ids.shape[1])
        return {"input_ids": input_ids, "past_key_values": past_key_values, "use_cache": True}


class SafeHookLM(LlamaForCausalLM):
    lengths = []

    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, attention_mask=None, **kwargs):
        past_key_values = kwargs.pop("cache", past_key_values)  # clean: sk_cache_pop
        if past_key_values is not None and past_key_values.get_seq_length() > 0:
            input_ids = input_ids[:, past_key_values.get_seq_length():]
        self.lengths.append(input_ids.shape[1])
        return {"input_ids": input_ids, "past_key_values": past_key_values, "cache": past_key_values,
                "use_cache": True}


def usable(cache, new_len):
    return cache.get_usable_length(new_len, 0)  # site: sk_usable_length


def probe_seen():
    m = SeenTokensLM.from_pretrained("mistralai/Mistral-7B-Instruct-v0.2")
    out = m.generate(prompt, max_new_tokens=3, min_new_tokens=3, do_sample=False)
    assert out.shape[1] <= 9


def probe_named_past():
    m = LengthHookLM.from_pretrained("mistralai/Mistral-7B-Instruct-v0.2")
    m.generate(prompt, max_new_tokens=3, min_new_tokens=3, do_sample=False)
    assert m.lengths[1:] == [1, 1], f"sk_named_past: {m.lengths}"  # observe: sk_named_past


def probe_safe_hook():
    m = SafeHookLM.from_pretrained("mistralai/Mistral-7B-Instruct-v0.2")
    m.generate(prompt, max_new_tokens=3, min_new_tokens=3, do_sample=False)
    assert m.lengths[1:] == [1, 1], f"sk_cache_pop: {m.lengths}"


def probe_usable():
    m = LlamaForCausalLM.from_pretrained("mistralai/Mistral-7B-Instruct-v0.2")
    cache = DynamicCache()
    m(prompt, past_key_values=cache, use_cache=True)
    assert usable(cache, 1) == 6
