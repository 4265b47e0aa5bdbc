"""A serving wrapper that builds its generation config from settings."""

import torch
from transformers import AutoModelForCausalLM, GenerationConfig

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")
prompt = torch.tensor([[1, 5, 9, 14, 20]])

SETTINGS = {"max_new_tokens": 3, "min_new_tokens": 3, "do_sample": False}


def full_dynamic_config():
    return GenerationConfig(cache_implementation="dynamic_full", **SETTINGS)  # site: serve_dynamic_full


def static_config():
    return GenerationConfig(cache_implementation="static", **SETTINGS)  # clean: serve_static


def serve(config):
    return model.generate(prompt, generation_config=config)  # clean: serve_generate


def probe_dynamic_full():
    assert serve(full_dynamic_config()).shape[-1] == 8


def probe_static():
    assert serve(static_config()).shape[-1] == 8
