"""An evaluation harness's generate calls, with keywords carried over from older releases."""

import torch
from transformers import AutoModelForCausalLM, DynamicCache

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")
prompt = torch.tensor([[1, 5, 9, 14, 20]])


def greedy_no_defaults(ids):
    return model.generate(ids, max_new_tokens=3, do_sample=False, use_model_defaults=False)  # site: eval_use_model_defaults


def greedy_legacy(ids):
    return model.generate(ids, max_new_tokens=3, do_sample=False, return_legacy_cache=True)  # site: eval_return_legacy_cache


def greedy_typo(ids):
    return model.generate(ids, max_new_tokens=3, past_key_value=DynamicCache())  # site: eval_misspelled_cache_kw


def greedy(ids):
    return model.generate(ids, max_new_tokens=3, do_sample=False, past_key_values=DynamicCache())  # clean: eval_plain


def probe_no_defaults():
    model.generation_config.min_new_tokens = 3  # fixed length: the random tiny model's EOS must not end generate early (the labelled line stays as written)
    assert greedy_no_defaults(prompt).shape[-1] == 8


def probe_legacy():
    model.generation_config.min_new_tokens = 3
    assert greedy_legacy(prompt).shape[-1] == 8


def probe_typo():
    model.generation_config.min_new_tokens = 3
    assert greedy_typo(prompt).shape[-1] == 8


def probe_plain():
    model.generation_config.min_new_tokens = 3
    assert greedy(prompt).shape[-1] == 8
