"""DynaSD's speculative-decoding baselines: `KVCacheModel` wraps the draft (or target) model, keeps the forward's
cache on itself (`self._past_key_values = outputs.past_key_values`), finds the cached length by unpacking every
layer of that cache as `k, v = kv`, feeds only the uncached ids, and on rejection rolls the cache back by unpacking
each layer again and slicing `k[:, :, :end_pos, :]`; the plain autoregressive baseline trims its input with
`input_ids[:, past_key_values[0][0].size(2):]` before every forward.

Provenance (mechanisms read; this code is written here, not copied):
- JackZeng0208/DynaSD @a27952ff3dea71a5a3926987ef991f1c3d1f57fd
  evaluation/speculative_decoding/kvcache_model.py (`KVCacheModel._forward_with_kvcache`: the prefill `outputs =
  self._model(input_ids)`, `self._past_key_values = outputs.past_key_values`; later steps `for kv in
  self._past_key_values: k, v = kv; cached_len = k.shape[2]`, `outputs = self._model(last_input_id,
  past_key_values=self._past_key_values, use_cache=True)`; `rollback(end_pos)`: `for kv in self._past_key_values:
  k, v = kv`, `k[:, :, :end_pos, :]`, `self._past_key_values = past_key_values_trimmed` (a list of tuples)),
  inference/generate.py (the baseline loop: `pruned_input_ids = input_ids[:, past_key_values[0][0].size(2):]`,
  `self.model(input_ids=pruned_input_ids, use_cache=True, past_key_values=past_key_values, return_dict=True)`,
  `past_key_values = outputs.past_key_values`), inference/strategies.py (the tree drafter: `past_key_values =
  list(outputs.past_key_values)`, `input_ids[:, past_key_values[0][0].size(2):]` on that list, every layer's pair
  `repeat_interleave(step_k, dim=0)` for the branches, the list handed back as `past_key_values=`).
Reduced: greedy sampling only, no probability history normalisation, no Bloom branch; the baseline loop runs a fixed
number of steps instead of stopping at EOS; the tree drafter reduced to one branching step.
"""

import torch
from transformers import AutoModelForCausalLM

draft = AutoModelForCausalLM.from_pretrained("JackFram/llama-68m")
prefix = torch.tensor([[1, 14, 28, 42, 56]])


class KVCacheModel:
    def __init__(self, model):
        self._model = model
        self._past_key_values = None
        self._prob_history = None

    def _forward_with_kvcache(self, input_ids):
        if self._past_key_values is None:
            outputs = self._model(input_ids)  # clean: ds_prefill
            self._prob_history = outputs.logits
            self._past_key_values = outputs.past_key_values  # clean: ds_keep_cache
        else:
            cached_len = 0
            for kv in self._past_key_values:
                k, v = kv  # site: ds_cached_len
                cached_len = k.shape[2]
            last_input_id = input_ids[:, cached_len:]
            outputs = self._model(last_input_id, past_key_values=self._past_key_values, use_cache=True)
            self._prob_history = torch.cat([self._prob_history, outputs.logits], dim=1)
            self._past_key_values = outputs.past_key_values
        return self._prob_history[:, -1, :]

    @torch.no_grad()
    def generate(self, prefix, gamma):
        x = prefix
        for _ in range(gamma):
            q = self._forward_with_kvcache(x)
            x = torch.cat((x, q.argmax(-1, keepdim=True)), dim=1)
        return x

    @torch.no_grad()
    def rollback(self, end_pos):
        past_key_values_trimmed = []
        for kv in self._past_key_values:
            k, v = kv  # site: ds_rollback_unpack
            past_key_values_trimmed.append((k[:, :, :end_pos, :], v[:, :, :end_pos, :]))
        self._past_key_values = past_key_values_trimmed
        self._prob_history = self._prob_history[:, :end_pos, :]


@torch.no_grad()
def baseline_generate(model, input_ids, steps=3):
    past_key_values = None
    for _ in range(steps):
        if past_key_values is not None:
            pruned_input_ids = input_ids[:, past_key_values[0][0].size(2):]  # site: ds_index_len
        else:
            pruned_input_ids = input_ids
        outputs = model(input_ids=pruned_input_ids, use_cache=True,  # clean: ds_baseline_forward
                        past_key_values=past_key_values, return_dict=True)
        past_key_values = outputs.past_key_values  # clean: ds_baseline_keep
        input_ids = torch.cat([input_ids, outputs.logits[:, -1:].argmax(-1)], dim=-1)
    return input_ids


@torch.no_grad()
def expand_branches(model, input_ids, step_k=2):
    outputs = model(input_ids=input_ids, use_cache=True)
    past_key_values = list(outputs.past_key_values)
    pruned_input_ids = input_ids[:, past_key_values[0][0].size(2):]  # clean: ds_list_length
    for i in range(len(past_key_values)):
        past_key_values[i] = (
            past_key_values[i][0].repeat_interleave(step_k, dim=0),
            past_key_values[i][1].repeat_interleave(step_k, dim=0),
        )
    next_ids = torch.cat([input_ids, outputs.logits[:, -1:].argmax(-1)], dim=-1).repeat_interleave(step_k, dim=0)
    return past_key_values, next_ids[:, past_key_values[0][0].size(2):]


@torch.no_grad()
def tree_draft_step(model, input_ids, step_k=2):
    past_key_values, pruned_input_ids = expand_branches(model, input_ids, step_k)
    return model(input_ids=pruned_input_ids, past_key_values=past_key_values, use_cache=True)  # site: ds_list_forward


def probe_prefill():
    approx = KVCacheModel(draft)
    out = approx.generate(prefix, 1)
    assert out.shape[1] == 6 and approx._past_key_values.get_seq_length() == 5


def probe_draft_gamma():
    approx = KVCacheModel(draft)
    out = approx.generate(prefix, 3)
    assert out.shape[1] == 8


def probe_rollback():
    approx = KVCacheModel(draft)
    approx.generate(prefix, 1)
    approx.rollback(4)
    assert approx._prob_history.shape[1] == 4


def probe_baseline_first_step():
    out = baseline_generate(draft, prefix, steps=1)
    assert out.shape[1] == 6


def probe_baseline():
    out = baseline_generate(draft, prefix, steps=3)
    assert out.shape[1] == 8


def probe_tree_step():
    out = tree_draft_step(draft, prefix)
    assert out.logits.shape[0] == 2


def probe_expand_branches():
    past_key_values, pruned = expand_branches(draft, prefix)
    assert past_key_values[0][0].shape[0] == 2 and pruned.shape == (2, 1)
