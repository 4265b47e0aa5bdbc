"""Hand-written beam search utilities (constrained decoding / reranking projects run their own beam loop on
the model's forward): beams are reordered and pruned between steps.

Provenance (mechanisms read; this code is written here, not copied):
- alipay/PainlessInferenceAcceleration lookahead/common/pretrained_model_batch.py (imports BeamSearchScorer and
  runs its own search over `past_key_values`; search excerpt)
- transformers' 4.x `_reorder_cache` idiom: `tuple(tuple(s.index_select(0, beam_idx) for s in layer) for layer
  in past)`, copied by many remote-code models
"""

import torch
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B-Instruct")
beams = torch.tensor([[1, 4, 6], [1, 4, 7], [1, 5, 6]])


def reorder_old(past, beam_idx):
    return tuple(tuple(s.index_select(0, beam_idx) for s in layer) for layer in past)  # site: br_reorder_tuples


def reorder(past, beam_idx):
    past.reorder_cache(beam_idx)  # clean: br_reorder
    return past


def prune(past, keep):
    past.batch_select_indices(keep)  # clean: br_select
    return past


def probe_old():
    out = model(beams, use_cache=True)
    past = reorder_old(out.past_key_values, torch.tensor([2, 0, 0]))
    step = model(torch.tensor([[3], [3], [3]]), past_key_values=past, use_cache=True)  # observe: br_reorder_tuples
    assert step.logits.shape[0] == 3


def probe_new():
    out = model(beams, use_cache=True)
    past = reorder(out.past_key_values, torch.tensor([2, 0, 0]))
    past = prune(past, torch.tensor([0, 1]))
    step = model(torch.tensor([[3], [3]]), past_key_values=past, use_cache=True)
    assert step.logits.shape[0] == 2
