"""A chat server and an evaluation script that configure generation once, on the model itself
(`model.generation_config`: replaced by a config loaded with overrides or built from a settings dict, updated
in place, or an attribute written), and then call generate without passing a config."""

import torch
from transformers import AutoModelForCausalLM, DynamicCache, GenerationConfig, StaticCache

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")
prompt = torch.tensor([[1, 5, 9, 14, 20]])


def configure_from_checkpoint(lm, static=True):
    overrides = {"max_new_tokens": 3, "min_new_tokens": 3, "do_sample": False}
    if static:
        overrides["cache_implementation"] = "static"
    lm.generation_config = GenerationConfig.from_pretrained("saved", **overrides)


def serve(lm):
    cache = DynamicCache()
    return lm.generate(prompt, past_key_values=cache)  # site: model_config_conflict


def configure_from_settings(lm):
    settings = {"max_new_tokens": 3, "min_new_tokens": 3}
    settings["use_model_defaults"] = False  # site: model_config_generate_only
    lm.generation_config = GenerationConfig.from_dict(settings)  # observe: model_config_generate_only


def configure_legacy(lm):
    sampling = {"max_new_tokens": 3, "return_legacy_cache": True}  # site: model_config_update_legacy
    lm.generation_config.update(**sampling)


def configure_typo(lm):
    lm.generation_config.cache_implmentation = "static"  # site: model_config_attribute_typo


def configure_static(lm):
    lm.generation_config.update(cache_implementation="static", max_new_tokens=3)  # clean: model_config_update


def probe_conflict():
    model.save_pretrained("saved")
    configure_from_checkpoint(model)
    assert serve(model).shape[-1] == 8


def probe_generate_only():
    configure_from_settings(model)
    assert model.generate(prompt).shape[-1] == 8


def probe_update_legacy():
    configure_legacy(model)
    out = model.generate(prompt, min_new_tokens=3, return_dict_in_generate=True)
    assert isinstance(out.past_key_values, tuple), "model_config_update_legacy: a Cache came back"  # observe: model_config_update_legacy


def probe_attribute_typo():
    configure_typo(model)
    out = model.generate(prompt, max_new_tokens=3, min_new_tokens=3, return_dict_in_generate=True)
    assert isinstance(out.past_key_values, StaticCache), "model_config_attribute_typo: no static cache"  # observe: model_config_attribute_typo

def probe_static():
    configure_static(model)
    model.generation_config.min_new_tokens = 3  # fixed length: the random tiny model's EOS must not end generate early (the labelled line stays as written)
    out = model.generate(prompt, return_dict_in_generate=True)  # clean: model_config_static_generate
    assert isinstance(out.past_key_values, StaticCache)
