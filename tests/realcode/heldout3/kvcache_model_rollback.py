"""Speculative sampling with a draft and a target wrapped in the same cache-keeping class: each wrapper finds its
cached length by walking the cache as (key, value) pairs, feeds only the new ids, and after a rejection rolls
back by slicing every pair and storing the list of trimmed pairs as its new past.

Provenance (mechanisms read; this code is written here, not copied):
- feifeibear/LLMSpeculativeSampling sampling/kvcache_model.py @59a209d37b2e463459057a784f8bd31c1136a58b
  (KVCacheModel keeps `self._past_key_values = outputs.past_key_values`; `for kv in self._past_key_values: k, v =
  kv; cached_len = k.shape[2]`; `self._model(last_input_id, past_key_values=self._past_key_values,
  use_cache=True)`; `rollback(end_pos)` appends `(k[:, :, :end_pos, :], v[:, :, :end_pos, :])` to a list and
  stores the list), sampling/speculative_sampling.py (same commit: `approx_model_cache.rollback(n+1)`)
"""

import torch
from transformers import AutoModelForCausalLM

target = AutoModelForCausalLM.from_pretrained("JackFram/llama-68m")
prefix = torch.tensor([[1, 3, 5, 7, 9]])


class KVCacheModel:
    def __init__(self, model, temperature=1.0):
        self._model = model
        self._temperature = temperature
        self._past_key_values = None
        self._prob_history = None

    def _forward_with_kvcache(self, input_ids):
        if self._past_key_values is None:
            outputs = self._model(input_ids)
            self._prob_history = (outputs.logits / self._temperature).softmax(-1)
            self._past_key_values = outputs.past_key_values
        else:
            cached_len = 0
            for kv in self._past_key_values:  # site: km_iter_len
                k, v = kv  # observe: km_iter_len
                cached_len = k.shape[2]
            last_input_id = input_ids[:, cached_len:]
            outputs = self._model(last_input_id, past_key_values=self._past_key_values, use_cache=True)  # site: km_list_forward
            q = (outputs.logits / self._temperature).softmax(-1)
            self._prob_history = torch.cat([self._prob_history, q], dim=1)
            self._past_key_values = outputs.past_key_values
        return self._prob_history[:, -1, :]

    def generate(self, prefix_ids, gamma):
        x = prefix_ids
        for _ in range(gamma):
            q = self._forward_with_kvcache(x)
            x = torch.cat((x, q.argmax(-1, keepdim=True)), dim=1)
        return x

    def rollback(self, end_pos):
        trimmed = []
        for kv in self._past_key_values:  # site: km_rollback_iter
            k, v = kv  # observe: km_rollback_iter
            trimmed.append((k[:, :, :end_pos, :], v[:, :, :end_pos, :]))
        self._past_key_values = trimmed
        self._prob_history = self._prob_history[:, :end_pos, :]


def probe_draft_steps():
    draft = KVCacheModel(target)
    out = draft.generate(prefix, 3)
    assert out.shape[1] == 8 and draft._prob_history.shape[1] == 7


def probe_rollback():
    draft = KVCacheModel(target)
    draft.generate(prefix, 1)
    draft.rollback(4)
    assert draft._prob_history.shape[1] == 4


def probe_list_forward():
    draft = KVCacheModel(target)
    draft.generate(prefix, 1)
    cache = draft._past_key_values
    draft._past_key_values = [(layer.keys[:, :, :4], layer.values[:, :, :4]) for layer in cache.layers]
    draft._prob_history = draft._prob_history[:, :4]
    draft._forward_with_kvcache(torch.tensor([[1, 3, 5, 7, 11]]))
    assert draft._prob_history.shape[1] == 5
