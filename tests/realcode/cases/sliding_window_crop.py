"""Lookahead decoding on a sliding-window model (Gemma 2): the cache is cut back after a rejected guess."""

import torch
from transformers import AutoModelForCausalLM, DynamicCache

model = AutoModelForCausalLM.from_pretrained("google/gemma-2-2b-it")
long_prompt = torch.arange(3, 43).unsqueeze(0)
short_prompt = torch.tensor([[3, 4, 5, 6, 7]])


def prefill(ids):
    cache = DynamicCache(config=model.config)
    model(ids, past_key_values=cache, use_cache=True)
    return cache


def cut(cache, n):
    cache.crop(-n)  # site: swa_crop_past_window


def cut_short(cache, n):
    cache.crop(cache.get_seq_length() - n)  # site: swa_crop_positive_short


def probe_cut_long():
    cache = prefill(long_prompt)
    cut(cache, 2)
    assert cache.get_seq_length() == 38


def probe_cut_short():
    cache = prefill(short_prompt)
    cut_short(cache, 2)
    assert cache.get_seq_length() == 3


def probe_generate():
    out = model.generate(short_prompt, max_new_tokens=3, min_new_tokens=3, do_sample=False)  # clean: swa_generate
    assert out.shape[-1] == 8
