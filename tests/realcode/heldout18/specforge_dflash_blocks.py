"""SpecForge's DFlash block drafting (speculative decoding where a small drafter fills a whole block of masked
positions at once and the target verifies the block): the target and the drafter each get a fresh `DynamicCache()`;
the target prefills with `logits_to_keep=1, output_hidden_states=True`; every round the drafter runs on the block
from `past_key_values_draft.get_seq_length()` and is cut back with `past_key_values_draft.crop(start)`, the target
verifies the block and, after the acceptance count, is cut back with `past_key_values_target.crop(start)` where
`start` is the absolute number of tokens kept.

Provenance (mechanisms read; this code is written here, not copied):
- sgl-project/SpecForge @a6b6b0230009d15ec2a97a57384e6f53f0f96946
  specforge/modeling/draft/dflash.py (`spec_generate`: `past_key_values_target = DynamicCache()`,
  `past_key_values_draft = DynamicCache()`, the prefill `target(input_ids, position_ids=..., past_key_values=
  past_key_values_target, use_cache=True, logits_to_keep=1, output_hidden_states=True)`, the draft call with
  `position_ids[:, past_key_values_draft.get_seq_length() : start + block_size]`, `past_key_values_draft.crop(start)`,
  the verify call `target(block_output_ids, position_ids=block_position_ids, past_key_values=past_key_values_target,
  use_cache=True, output_hidden_states=True)`, the acceptance by `cumprod`, `start += acceptance_length + 1`,
  `past_key_values_target.crop(start)`).
Reduced: the DFlash drafter (conditioned on the target's hidden states, non-causal over the block) replaced by a
tiny causal Llama fed the block's ids; greedy sampling; one or two rounds; the drafter's and the target's rounds
split into helpers, each reached by its own probe.
"""

import torch
from transformers import AutoModelForCausalLM
from transformers.cache_utils import DynamicCache

target = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.1-8B-Instruct")
drafter = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")
block_size = 4
mask_token_id = 0
prompt = torch.tensor([[1, 12, 23, 34, 45]])


@torch.no_grad()
def prefill(input_ids, max_length):
    output_ids = torch.full((1, max_length + block_size), mask_token_id, dtype=torch.long)
    position_ids = torch.arange(output_ids.shape[1]).unsqueeze(0)
    past_key_values_target = DynamicCache()  # clean: sf_target_cache
    output = target(input_ids, position_ids=position_ids[:, :input_ids.shape[1]],  # clean: sf_prefill
                    past_key_values=past_key_values_target, use_cache=True, logits_to_keep=1,
                    output_hidden_states=True)
    output_ids[:, :input_ids.shape[1]] = input_ids
    output_ids[:, input_ids.shape[1]] = output.logits[:, -1].argmax(-1)
    return output_ids, position_ids, past_key_values_target


@torch.no_grad()
def run_drafter(output_ids, position_ids, past_key_values_draft, start):
    seen = past_key_values_draft.get_seq_length()  # clean: sf_draft_seen
    draft_in = output_ids[:, seen:start + block_size].clone()
    return drafter(draft_in, position_ids=position_ids[:, seen:start + block_size],  # clean: sf_draft_forward
                   past_key_values=past_key_values_draft, use_cache=True)


@torch.no_grad()
def draft_block(output_ids, position_ids, past_key_values_draft, start):
    block_output_ids = output_ids[:, start:start + block_size].clone()
    out = run_drafter(output_ids, position_ids, past_key_values_draft, start)
    past_key_values_draft.crop(start)  # site: sf_draft_crop
    block_output_ids[:, 1:] = out.logits[:, -block_size:-1].argmax(-1)
    return block_output_ids


@torch.no_grad()
def run_verify(block_output_ids, position_ids, past_key_values_target, start):
    return target(block_output_ids, position_ids=position_ids[:, start:start + block_size],  # clean: sf_verify
                  past_key_values=past_key_values_target, use_cache=True, output_hidden_states=True)


@torch.no_grad()
def verify_block(block_output_ids, position_ids, past_key_values_target, output_ids, start):
    output = run_verify(block_output_ids, position_ids, past_key_values_target, start)
    posterior = output.logits.argmax(-1)
    acceptance_length = (block_output_ids[:, 1:] == posterior[:, :-1]).cumprod(dim=1).sum(dim=1)[0].item()
    output_ids[:, start:start + acceptance_length + 1] = block_output_ids[:, :acceptance_length + 1]
    output_ids[:, start + acceptance_length + 1] = posterior[:, acceptance_length]
    start += acceptance_length + 1
    past_key_values_target.crop(start)  # site: sf_target_crop
    return start


def probe_draft_round():
    output_ids, position_ids, _ = prefill(prompt, 12)
    block = draft_block(output_ids, position_ids, DynamicCache(), prompt.shape[1])
    assert block.shape == (1, block_size)


def probe_verify_round():
    output_ids, position_ids, cache = prefill(prompt, 12)
    block = output_ids[:, 5:5 + block_size].clone()
    start = verify_block(block, position_ids, cache, output_ids, prompt.shape[1])
    assert cache.get_seq_length() == start


def probe_prefill():
    _, _, cache = prefill(prompt, 12)
    assert cache.get_seq_length() == 5


def probe_drafter_forward():
    output_ids, position_ids, _ = prefill(prompt, 12)
    cache = DynamicCache()
    run_drafter(output_ids, position_ids, cache, prompt.shape[1])
    assert cache.get_seq_length() == prompt.shape[1] + block_size


def probe_verify_forward():
    output_ids, position_ids, cache = prefill(prompt, 12)
    run_verify(output_ids[:, 5:5 + block_size].clone(), position_ids, cache, prompt.shape[1])
    assert cache.get_seq_length() == 5 + block_size
