"""RL rollouts: a policy samples a continuation with generate, keeps the returned cache to extend the episode,
and stacks per-layer keys for a value head. Code written for 4.4x asks `get_max_length()`, which returned
None for a DynamicCache (no maximum).

Provenance (mechanisms read; this code is written here, not copied):
- facebookresearch/LayerSkip self_speculation/self_speculation_generator.py @0a80c3511507c39c6bbc4a5f75f10a3b32dfa4b5
  (each round returns its cache to the caller, which hands it to the next round)
- mit-han-lab/streaming-llm examples/run_streaming_llama.py @b67bb6dda3cf621d959fead607a080f1734900e6
  (a turn's cache handed to the next turn)
"""

import torch
from transformers import AutoModelForCausalLM

policy = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-1.5B-Instruct")
query = torch.tensor([[1, 12, 13, 14]])


def rollout(ids, n):
    gen = policy.generate(ids, max_new_tokens=n, min_new_tokens=n, do_sample=False, return_dict_in_generate=True)
    return gen.sequences, gen.past_key_values


def extend(seq, cache, n):
    return policy.generate(seq, past_key_values=cache, max_new_tokens=n, do_sample=False)  # clean: rl_extend


def layer_count(cache):
    return len(cache)  # clean: rl_len


def stacked_keys(cache):
    return torch.stack([k[:, :, -1] for k, _ in cache])  # site: rl_stack_pairs


def capacity(cache):
    return cache.get_max_length()  # site: rl_max_length

def probe_extend():
    seq, cache = rollout(query, 3)
    policy.generation_config.min_new_tokens = 2  # fixed length: the random tiny model's EOS must not end generate early (the labelled line stays as written)
    out = extend(seq, cache, 2)
    assert out.shape[1] <= 9 and layer_count(cache) == 2


def probe_stack():
    seq, cache = rollout(query, 2)
    assert stacked_keys(cache).shape[0] == 2


def probe_capacity():
    seq, cache = rollout(query, 2)
    assert capacity(cache) is None, f"rl_max_length: a DynamicCache reports a maximum of {capacity(cache)}"  # observe: rl_max_length
