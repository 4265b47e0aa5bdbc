"""Self-speculative decoding (dilab-zju/self-speculative-decoding, "Draft & Verify"): the same model drafts with some
layers skipped (`with model.self_draft():`) and verifies with all of them. After a full step the draft starts from
`draft_past_key_values = past_key_values`, feeds its drafted tokens one at a time with
`past_key_values=draft_past_key_values`, then the full model verifies the drafted tokens on `past_key_values`; on a
mismatch the rejected positions are cut from the cache with `[(k[:, :, :-n], v[:, :, :-n]) for k, v in
past_key_values]`, and that list is the cache the next draft step receives.

Provenance (mechanisms read; this code is written here, not copied):
- dilab-zju/self-speculative-decoding @688db8b74a782af21777b7ad5aeb399d7eb26faf
  decoding.py (self_speculative_sample: the step-0 call `model(input_ids=current_input_ids, past_key_values=
  past_key_values, return_dict=True, use_cache=True)`, `past_key_values = output['past_key_values']`,
  `draft_past_key_values = past_key_values`, the draft loop under `model.self_draft()` storing
  `draft_output['past_key_values']`, the verify call on `drafted_input_ids` with `past_key_values`, `max_matched`,
  the list-comprehension rollback).
Reduced: the layer skipping is a context manager over `model.model.layers` (the repository patches its own Llama);
greedy only; the draft, verify and rollback steps split into helpers, each reached by its own probe; the token
loop and the auto threshold dropped.
"""

from contextlib import contextmanager

import torch
from torch import nn
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-13b-hf")


@contextmanager
def self_draft(model, skip=(1,)):
    layers = model.model.layers
    model.model.layers = nn.ModuleList([layer for i, layer in enumerate(layers) if i not in skip])
    try:
        yield
    finally:
        model.model.layers = layers


def full_step(input_ids, past_key_values=None):
    output = model(input_ids=input_ids, past_key_values=past_key_values, return_dict=True, use_cache=True)  # clean: sd_full_step
    past_key_values = output["past_key_values"]  # clean: sd_keep_past
    return output["logits"][:, -1:].argmax(-1), past_key_values


def draft(current_input_ids, past_key_values, max_step_draft=2):
    draft_current_input_ids = current_input_ids
    draft_past_key_values = past_key_values  # site: sd_share_past
    drafted = [current_input_ids]
    for _ in range(max_step_draft):
        with self_draft(model):
            draft_output = model(input_ids=draft_current_input_ids, past_key_values=draft_past_key_values,  # site: sd_draft_step
                                 return_dict=True, use_cache=True)
        draft_current_input_ids = draft_output["logits"].argmax(-1)
        drafted.append(draft_current_input_ids)
        draft_past_key_values = draft_output["past_key_values"]
    return torch.cat(drafted, dim=-1)


def verify(drafted_input_ids, past_key_values):
    output = model(input_ids=drafted_input_ids, past_key_values=past_key_values, return_dict=True, use_cache=True)  # clean: sd_verify
    return output["logits"].argmax(-1), output["past_key_values"]


def rollback(past_key_values, n):
    return [(k[:, :, :-n], v[:, :, :-n]) for k, v in past_key_values]  # site: sd_rollback


prompt = torch.tensor([[1, 14, 15, 92, 65]])


@torch.no_grad()
def probe_shared_draft():
    token, past = full_step(prompt)
    before = past.get_seq_length()
    drafted = draft(token, past)
    assert past.get_seq_length() == before, "sd_share_past: the draft wrote its tokens into the verified cache"  # observe: sd_share_past
    verify(drafted, past)


@torch.no_grad()
def probe_verify():
    token, past = full_step(prompt)
    out, past = verify(torch.cat([token, token], dim=-1), past)
    assert past.get_seq_length() == 7


@torch.no_grad()
def probe_rollback():
    _, past = full_step(prompt)
    cut = rollback(past, 2)
    assert cut[0][0].shape[2] == 3


@torch.no_grad()
def probe_draft_after_rollback():
    cfg = model.config
    head_dim = getattr(cfg, "head_dim", None) or cfg.hidden_size // cfg.num_attention_heads
    shape = (1, cfg.num_key_value_heads, 5, head_dim)
    cut = [(torch.zeros(shape), torch.zeros(shape)) for _ in range(cfg.num_hidden_layers)]
    draft(torch.tensor([[7]]), cut)
