"""Prompt (prefix) caching: a system prompt is prefilled once, copied per request and extended."""

import copy

import torch
from transformers import AutoModelForCausalLM, DynamicCache

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")
system = torch.tensor([[1, 5, 9, 14, 20]])


class PrefixCache:
    def __init__(self):
        self.cache = DynamicCache()
        with torch.no_grad():
            model(system, past_key_values=self.cache, use_cache=True)  # clean: prefix_prefill

    def answer(self, question):
        cache = copy.deepcopy(self.cache)  # clean: prefix_deepcopy
        ids = torch.cat([system, question], dim=-1)
        return model.generate(ids, past_key_values=cache, max_new_tokens=3, min_new_tokens=3, do_sample=False)  # clean: prefix_generate

    def prefix_keys(self, layer):
        return self.cache[layer][0]  # site: prefix_index_layer

    def prefix_length(self):
        return self.cache.get_seq_length()  # clean: prefix_seq_len


def probe_answer():
    pc = PrefixCache()
    out = pc.answer(torch.tensor([[33, 34]]))
    assert out.shape[-1] == 10
    assert pc.prefix_length() == 5


def probe_prefix_keys():
    pc = PrefixCache()
    assert pc.prefix_keys(0).shape[-2] == 5
