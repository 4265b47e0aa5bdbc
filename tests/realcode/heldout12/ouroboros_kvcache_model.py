"""Ouroboros (thunlp/Ouroboros, speculative decoding with a lookahead-drafted small model): `KVCacheModelSimple`
wraps a model, keeps `self._past_key_values` (the output's cache) and `self._prob_history`; each step it counts
the cached tokens with `for kv in self._past_key_values: k, v = kv; cached_len = k.shape[2]`, feeds only the
uncached ids with `past_key_values=self._past_key_values, use_cache=True` and appends the logits; `rollback(end_pos)`
rebuilds the cache as a list `[(k[:, :, :end_pos, :], v[:, :, :end_pos, :]) ...]` that the next step is handed.

Provenance (mechanisms read; this code is written here, not copied):
- thunlp/Ouroboros @bccf7c5f95ff6813b23f1cbf02021d5ce2b62d32
  ouroboros/kv_cache_model.py (KVCacheModelSimple: __init__, _forward_with_kvcache's prefill and cached branches,
  _generate_with_kvcache, generate, rollback).
Reduced: greedy only; the lookahead (`KVCacheModelLade`) and guess (`KVCacheModelSimpleWithGuess`) wrappers,
whose forwards are the repository's own model methods, are left out.
"""

import torch
from transformers import AutoModelForCausalLM


class KVCacheModelSimple:
    def __init__(self, model):
        self._model = model
        self._past_key_values = None
        self._prob_history = None

    def _forward_with_kvcache(self, input_ids):
        if self._past_key_values is None:
            outputs = self._model(input_ids)  # clean: og_prefill
            self._prob_history = outputs.logits
            self._past_key_values = outputs.past_key_values  # clean: og_keep_past
            last_q = self._prob_history[:, -1, :]
        else:
            cached_len = 0
            for kv in self._past_key_values:
                k, v = kv  # site: og_count_cached
                cached_len = k.shape[2]
            last_input_id = input_ids[:, cached_len:]
            outputs = self._model(last_input_id, past_key_values=self._past_key_values, use_cache=True)  # site: og_step_forward
            not_cached_q = outputs.logits
            self._prob_history = torch.cat([self._prob_history, not_cached_q], dim=1)
            last_q = not_cached_q[:, -1, :]
            self._past_key_values = outputs.past_key_values
        return last_q

    def _generate_with_kvcache(self, prefix, gamma):
        x = prefix
        for _ in range(gamma):
            q = self._forward_with_kvcache(x)
            next_tok = q.argmax(dim=-1, keepdim=True)
            x = torch.cat((x, next_tok), dim=1)
        return x

    @torch.no_grad()
    def generate(self, input, gamma):
        return self._generate_with_kvcache(input, gamma)

    @torch.no_grad()
    def rollback(self, end_pos):
        past_key_values_trimmed = []
        assert self._past_key_values
        for kv in self._past_key_values:
            k, v = kv  # site: og_rollback
            k = k[:, :, :end_pos, :]
            v = v[:, :, :end_pos, :]
            past_key_values_trimmed.append((k, v))
        self._past_key_values = past_key_values_trimmed
        self._prob_history = self._prob_history[:, :end_pos, :]


draft = AutoModelForCausalLM.from_pretrained("JackFram/llama-68m")
prefix = torch.tensor([[1, 45, 67, 89, 12]])


def probe_prefill():
    approx = KVCacheModelSimple(draft)
    out = approx.generate(prefix, 1)
    assert out.shape[1] == 6 and approx._prob_history.shape[1] == 5


def probe_draft_steps():
    approx = KVCacheModelSimple(draft)
    out = approx.generate(prefix, 3)
    assert out.shape[1] == 8


def probe_rollback():
    approx = KVCacheModelSimple(draft)
    approx.generate(prefix, 1)
    approx.rollback(3)
    assert approx._past_key_values[0][0].shape[2] == 3


@torch.no_grad()
def probe_step_after_rollback():
    cfg = draft.config
    head_dim = getattr(cfg, "head_dim", None) or cfg.hidden_size // cfg.num_attention_heads
    shape = (1, cfg.num_key_value_heads, 4, head_dim)
    approx = KVCacheModelSimple(draft)
    approx._past_key_values = [(torch.zeros(shape), torch.zeros(shape)) for _ in range(cfg.num_hidden_layers)]
    approx._prob_history = torch.zeros(1, 4, cfg.vocab_size)
    approx._forward_with_kvcache(prefix)
