"""A decoding session written for 4.4x: it keeps its cache in an attribute set in `__init__`, fills it in one
method and asks it for its length and its per-layer lists in others; a pruning helper takes the cache as an
annotated parameter, and an uncalled compat helper reads it through the layers."""

from typing import Optional

import torch
from transformers import AutoModelForCausalLM, Cache, DynamicCache

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")
prompt = torch.tensor([[1, 5, 9, 14, 20]])


class Session:
    def __init__(self):
        self.cache = DynamicCache()

    def prefill(self, ids):
        model(ids, past_key_values=self.cache, use_cache=True)

    def seen(self):
        return self.cache.seen_tokens  # site: session_seen_tokens

    def first_keys(self):
        return self.cache.key_cache[0]  # site: session_key_cache

    def length(self):
        return self.cache.get_seq_length()  # clean: session_seq_length


def usable(cache: Optional[Cache], n: int):
    return cache.get_usable_length(n, 0)  # site: annotated_usable_length


def usable_compat(cache: Optional[Cache]):
    return cache.get_seq_length(0)  # clean: annotated_seq_length


def probe_seen():
    s = Session()
    s.prefill(prompt)
    assert s.seen() == 5


def probe_keys():
    s = Session()
    s.prefill(prompt)
    assert s.first_keys().shape[-2] == 5


def probe_length():
    s = Session()
    s.prefill(prompt)
    assert s.length() == 5
    assert usable_compat(s.cache) == 5


def probe_usable():
    s = Session()
    s.prefill(prompt)
    assert usable(s.cache, 1) == 5
