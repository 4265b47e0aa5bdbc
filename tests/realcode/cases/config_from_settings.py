"""A command-line generator that builds its GenerationConfig from a settings dict (read from a YAML file in the
real tool), keys added one by one from command-line switches."""

import torch
from transformers import AutoModelForCausalLM, GenerationConfig, StaticCache

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")
prompt = torch.tensor([[1, 5, 9, 14, 20]])


def config_with_switches(static=True):
    settings = {"max_new_tokens": 3, "min_new_tokens": 3, "do_sample": False}
    if static:
        settings["cache_implmentation"] = "static"  # site: config_typo_cache_implementation
    return GenerationConfig(**settings)


def config_without_defaults():
    settings = {"max_new_tokens": 3, "min_new_tokens": 3}
    settings["use_model_defaults"] = False  # site: config_generate_only_keyword
    return GenerationConfig(**settings)  # observe: config_generate_only_keyword


def config_static():
    settings = {"max_new_tokens": 3, "do_sample": False, "cache_implementation": "static"}  # clean: config_settings
    return GenerationConfig(**settings)  # clean: config_build


def probe_switches():
    out = model.generate(prompt, generation_config=config_with_switches(), return_dict_in_generate=True)
    cache = out.past_key_values
    assert isinstance(cache, StaticCache), f"config_typo_cache_implementation: got a {type(cache).__name__}"  # observe: config_typo_cache_implementation


def probe_without_defaults():
    assert model.generate(prompt, generation_config=config_without_defaults()).shape[-1] == 8


def probe_static():
    out = model.generate(prompt, generation_config=config_static(), min_new_tokens=3, return_dict_in_generate=True)
    assert isinstance(out.past_key_values, StaticCache)
