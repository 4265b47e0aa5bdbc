"""A small speculative-decoding framework: the project defines its own `DynamicCache` (a wrapper holding a
transformers DynamicCache as `.cache`, with `update`, `crop(num_tokens_crop)` removing that many tokens from the
end, a length and a layer count), a no-update subclass for models that fill the cache themselves, a Qwen3 model
wrapper that forwards with `past_key_values=kv_cache.cache`, and a draft/verify loop that crops the rejected
draft tokens off both caches.

Provenance (mechanisms read; this code is written here, not copied):
- VioletsOleander/naive-speculate @544b2cf2af5ee1c456c8a0f09c72a86aacf333ff
  src/naive_speculate/infer/impl/kvcache/dynamic_cache.py (class DynamicCache(KVCache, Sequence) with
  `self.cache = transformers.DynamicCache()`, `update` calling `self.cache.update(key_states=k, value_states=v,
  layer_idx=layer_idx)`, `crop(num_tokens_crop)`: `length = self.cache.get_seq_length(0)` then
  `self.cache.crop(length - num_tokens_crop)`, `get_num_tokens`, `__len__` as `len(self.cache.layers)`)
- VioletsOleander/naive-speculate @bbddea289c7dfc0d4138845d387a2fa9e1825c3a
  src/naive_speculate/infer/impl/kvcache/dynamic_no_update_cache.py (DynamicNoUpdateCache(DynamicCache) with a
  no-op `update`) and src/naive_speculate/infer/impl/inferencer/concrete/qwen3.py (Qwen3Model.forward:
  `self.hf_model.forward(input_ids=..., logits_to_keep=0, use_cache=True, past_key_values=kv_cache.cache)`)
- VioletsOleander/naive-speculate @27c1986fa6a5018c0af8ffa0ecc53388da814a78
  src/naive_speculate/infer/impl/inferencer/abstract/basic.py (the forward/sample/update generation stream)
Reduced: the protocols, sampling strategies and the config-driven container are left out; greedy verification.
"""

import torch
import transformers
from transformers import Qwen3ForCausalLM


class DynamicCache:
    def __init__(self):
        self.cache = transformers.DynamicCache()  # clean: nv_new_cache

    def update(self, kv_states):
        for layer_idx, (k, v) in enumerate(kv_states):
            self.cache.update(key_states=k, value_states=v, layer_idx=layer_idx)  # clean: nv_update

    def crop(self, num_tokens_crop):
        if num_tokens_crop <= 0:
            return
        length = self.cache.get_seq_length(0)  # clean: nv_length
        if num_tokens_crop >= length:
            raise ValueError(f"Cannot crop {num_tokens_crop} tokens from cache with length {length}.")
        self.cache.crop(length - num_tokens_crop)  # site: nv_crop_keep

    def get_num_tokens(self):
        return self.cache.get_seq_length(0)

    def __len__(self):
        return len(self.cache.layers)  # clean: nv_layer_count


class DynamicNoUpdateCache(DynamicCache):
    def update(self, kv_states):
        """The model fills `self.cache` during its forward."""


class Qwen3Model:
    def __init__(self, model_name):
        self.hf_model = Qwen3ForCausalLM.from_pretrained(model_name, device_map="auto", torch_dtype="auto")

    def forward(self, query_token_ids, kv_cache):
        if not isinstance(kv_cache, DynamicNoUpdateCache):
            raise TypeError(f"Expected kv_cache to be of type DynamicNoUpdateCache, but got {type(kv_cache)}.")
        forward_out = self.hf_model.forward(input_ids=query_token_ids, logits_to_keep=0, use_cache=True,
                                            past_key_values=kv_cache.cache)  # clean: nv_forward
        return forward_out.logits


def draft(model, query_token_ids, kv_cache, num_draft_tokens):
    tokens = []
    for _ in range(num_draft_tokens):
        logits = model.forward(query_token_ids, kv_cache)
        query_token_ids = logits[:, -1:].argmax(-1)
        tokens.append(query_token_ids)
    return torch.cat(tokens, dim=1)


def speculate_step(drafter, verifier, draft_cache, verify_cache, last_token, num_draft_tokens=3):
    draft_ids = draft(drafter, last_token, draft_cache, num_draft_tokens)
    logits = verifier.forward(torch.cat([last_token, draft_ids], dim=1), verify_cache)
    target = logits[:, :-1].argmax(-1)
    accepted = int((target == draft_ids).long().cumprod(dim=1).sum())
    rejected = num_draft_tokens - accepted
    draft_cache.crop(rejected)
    verify_cache.crop(rejected)
    return draft_ids[:, :accepted], logits[:, accepted].argmax(-1, keepdim=True)


prompt = torch.tensor([[1, 3, 5, 7, 9, 11]])


def probe_prefill():
    model = Qwen3Model("Qwen/Qwen3-0.6B")
    kv_cache = DynamicNoUpdateCache()
    model.forward(prompt, kv_cache)
    assert kv_cache.get_num_tokens() == 6 and len(kv_cache) == 2


def probe_own_update():
    kv_cache = DynamicCache()
    kv_cache.update([(torch.ones(1, 1, 4, 8), torch.ones(1, 1, 4, 8))] * 2)
    assert kv_cache.get_num_tokens() == 4


def probe_rollback():
    model = Qwen3Model("Qwen/Qwen3-0.6B")
    kv_cache = DynamicNoUpdateCache()
    model.forward(prompt, kv_cache)
    kv_cache.crop(2)
    assert kv_cache.get_num_tokens() == 4



def probe_crop_guard():
    model = Qwen3Model("Qwen/Qwen3-0.6B")
    kv_cache = DynamicNoUpdateCache()
    model.forward(prompt, kv_cache)
    try:
        kv_cache.crop(6)
    except ValueError as err:
        assert "Cannot crop 6 tokens" in str(err)
    else:
        raise AssertionError("the wrapper's guard did not fire")
