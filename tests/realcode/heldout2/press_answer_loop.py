"""A long-context "press" pipeline (compress the context once, then answer several questions from the same
cache): the context is prefilled once, each answer is decoded greedily by hand, and the cache is cut back to the
context before the next question.

Provenance (mechanisms read; this code is written here, not copied):
- NVIDIA/kvpress kvpress/pipeline.py @02e13c867ea27f4f76b9b93e17faea78217909a5 (prefill with an explicit
  `cache_position`; per-layer lengths `cache.get_seq_length(i) for i in range(len(cache))`; after each answer
  every layer's `keys`/`values` sliced back to the context length)
- earlier kvpress releases (same file) cut the cache through `cache.key_cache[i]` / `cache.value_cache[i]` and
  `cache.crop(context_length)`
"""

import torch
from transformers import AutoModelForCausalLM, DynamicCache

model = AutoModelForCausalLM.from_pretrained("microsoft/Phi-3.5-mini-instruct")
context = torch.tensor([[1, 9, 14, 22, 31, 40, 51]])
question = torch.tensor([[5, 6]])


def prefill(cache):
    n = context.shape[1]
    model(context, past_key_values=cache, cache_position=torch.arange(n), use_cache=True)  # clean: kp_prefill_positions
    return n


def answer(cache, steps):
    out = model(question, past_key_values=cache, use_cache=True)
    token = out.logits[:, -1:].argmax(-1)
    for _ in range(steps):
        token = model(token, past_key_values=cache, use_cache=True).logits[:, -1:].argmax(-1)
    return token


def lengths(cache):
    return [cache.get_seq_length(i) for i in range(len(cache))]  # clean: kp_layer_lengths


def cut_back_layers(cache, keep):
    for i, n in enumerate(keep):
        cache.layers[i].keys = cache.layers[i].keys[:, :, :n]  # clean: kp_layers_keys
        cache.layers[i].values = cache.layers[i].values[:, :, :n]


def cut_back_old(cache, keep):
    for i, n in enumerate(keep):
        cache.key_cache[i] = cache.key_cache[i][:, :, :n]  # site: kp_key_cache_cut
        cache.value_cache[i] = cache.value_cache[i][:, :, :n]


def cut_back_crop(cache, context_length):
    cache.crop(context_length)  # site: kp_crop_context


def probe_layers():
    cache = DynamicCache()
    prefill(cache)
    keep = lengths(cache)
    answer(cache, 2)
    cut_back_layers(cache, keep)
    assert cache.get_seq_length() == 7


def probe_old_cut():
    cache = DynamicCache()
    prefill(cache)
    keep = [7, 7]
    answer(cache, 2)
    cut_back_old(cache, keep)
    assert cache.get_seq_length() == 7


def probe_crop():
    cache = DynamicCache()
    n = prefill(cache)
    answer(cache, 2)
    cut_back_crop(cache, n)
    assert cache.get_seq_length() == 7
