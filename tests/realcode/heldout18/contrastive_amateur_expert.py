"""A contrastive-decoding take-home (expert Qwen2.5-Coder-1.5B against amateur Qwen2.5-Coder-0.5B): every step runs
both models on the whole sequence so far, without a cache, and picks the argmax of `expert_probs - a *
amateur_probs`; a cached variant (the amateur and the expert each keeping the cache of their last forward and fed
only the new token) is the obvious speed-up such code grows into.

Provenance (mechanisms read; this code is written here, not copied):
- sophwchen/ml-take-home-sophia @0c479c7c0df7d9ca9350e7d58d4fc60cf762bfc7
  main.py (`contrastive_generation`: `amateur_probs = amateur(current_input).logits[:,-1].softmax(dim=-1)`,
  `expert_probs = expert(current_input).logits[:,-1].softmax(dim=-1)`, `contrast_probs = expert_probs -
  a*amateur_probs`, `next_token = contrast_probs.argmax()`, `current_input = torch.cat([current_input,
  next_token.unsqueeze(0).unsqueeze(0)], dim=1)`, stop at EOS).
Reduced: ids instead of the chat template; a few steps; the cached variant is written here (the repository has
only the uncached loop), its caches are whatever each forward returns, handed back unchanged.
"""

import torch
import transformers as tr

amateur = tr.AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-Coder-0.5B-Instruct")
expert = tr.AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-Coder-1.5B-Instruct")
prompt_ids = torch.tensor([[15, 87, 19, 26, 52]])


@torch.no_grad()
def contrastive_generation(amateur, expert, input_ids, max_tokens=3, a=0.5):
    output_tokens = []
    current_input = input_ids
    for _ in range(max_tokens):
        amateur_probs = amateur(current_input).logits[:, -1].softmax(dim=-1)  # clean: ca_amateur_full
        expert_probs = expert(current_input).logits[:, -1].softmax(dim=-1)  # clean: ca_expert_full
        next_token = (expert_probs - a * amateur_probs).argmax()
        output_tokens.append(next_token)
        current_input = torch.cat([current_input, next_token.unsqueeze(0).unsqueeze(0)], dim=1)
    return output_tokens


@torch.no_grad()
def cached_contrastive_generation(amateur, expert, input_ids, max_tokens=3, a=0.5):
    amateur_past = expert_past = None
    current_input = input_ids
    output_tokens = []
    for _ in range(max_tokens):
        amateur_out = amateur(current_input, past_key_values=amateur_past, use_cache=True)  # clean: ca_amateur_step
        expert_out = expert(current_input, past_key_values=expert_past, use_cache=True)  # clean: ca_expert_step
        amateur_past, expert_past = amateur_out.past_key_values, expert_out.past_key_values
        contrast = expert_out.logits[:, -1].softmax(-1) - a * amateur_out.logits[:, -1].softmax(-1)
        next_token = contrast.argmax(-1, keepdim=True)
        output_tokens.append(next_token)
        current_input = next_token
    return output_tokens, amateur_past, expert_past


def probe_uncached():
    assert len(contrastive_generation(amateur, expert, prompt_ids)) == 3


def probe_cached():
    tokens, amateur_past, expert_past = cached_contrastive_generation(amateur, expert, prompt_ids)
    assert len(tokens) == 3 and amateur_past.get_seq_length() == expert_past.get_seq_length() == 7
