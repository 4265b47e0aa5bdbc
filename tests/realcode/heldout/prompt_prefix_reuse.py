"""Prompt (prefix) caching: a system prompt's cache is computed once, copied per request and handed to
generate; a chat session keeps its cache on the object and cuts it back to the prefix the next prompt shares.
Prompt-lookup decoding is switched on for long, repetitive inputs.

Provenance (mechanisms read; this code is written here, not copied):
- huggingface/huggingface-llama-recipes prompt_reuse.py @93dae9691222e3646fa0d7b0ba59af2492d5d857
  (`model(**inputs, past_key_values=DynamicCache()).past_key_values`, then `copy.deepcopy` per request into
  `generate(past_key_values=...)`)
- apoorvumang/prompt-lookup-decoding transformers_example.py @cada4fe6ec7368d41c386ec3fb94fa11268971eb
  (`generate(..., prompt_lookup_num_tokens=...)`)
"""

import copy

import torch
from transformers import AutoModelForCausalLM, DynamicCache

model = AutoModelForCausalLM.from_pretrained("meta-llama/Meta-Llama-3.1-8B-Instruct")
system = torch.tensor([[1, 10, 20, 30, 40]])


@torch.no_grad()
def build_prefix(ids):
    return model(ids, past_key_values=DynamicCache(), use_cache=True).past_key_values  # clean: pp_build_prefix


def answer(prefix, question):
    ids = torch.cat([system, question], dim=-1)
    return model.generate(ids, past_key_values=copy.deepcopy(prefix), max_new_tokens=3, do_sample=False)  # clean: pp_generate_copy


def shared_prefix(a, b):
    n = 0
    for x, y in zip(a[0].tolist(), b[0].tolist()):
        if x != y:
            break
        n += 1
    return n


class ChatSession:
    def __init__(self):
        self.cache = DynamicCache()
        self.ids = None

    def feed(self, ids):
        if self.ids is not None:
            self.cache.crop(shared_prefix(self.ids, ids))  # site: pp_session_crop
            ids_new = ids[:, self.cache.get_seq_length():]
        else:
            ids_new = ids
        model(ids_new, past_key_values=self.cache, use_cache=True)
        self.ids = ids
        return self.cache.get_seq_length()


def lookup_answer(ids):
    return model.generate(ids, prompt_lookup_num_tokens=2, max_new_tokens=4, do_sample=False)  # clean: pp_prompt_lookup


def probe_reuse():
    model.generation_config.min_new_tokens = 3  # fixed length: the random tiny model's EOS must not end generate early (the labelled line stays as written)
    prefix = build_prefix(system)
    out = answer(prefix, torch.tensor([[50, 60]]))
    assert out.shape[1] <= 10 and prefix.get_seq_length() == 5


def probe_session():
    chat = ChatSession()
    chat.feed(torch.tensor([[1, 10, 20, 30, 40, 50]]))
    assert chat.feed(torch.tensor([[1, 10, 20, 30, 99, 98, 97]])) == 7


def probe_lookup():
    model.generation_config.min_new_tokens = 4
    ids = torch.tensor([[1, 5, 6, 7, 5, 6, 7, 5, 6]])
    assert lookup_answer(ids).shape[1] <= 13
