"""An evaluation harness that stores its generate() keywords on the instance and reuses them per batch."""

import torch
from transformers import AutoModelForCausalLM, DynamicCache, GenerationConfig

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")
prompt = torch.tensor([[1, 5, 9, 14, 20]])


class LegacyHarness:
    def __init__(self, max_new_tokens=3):
        self.gen_kwargs = dict(max_new_tokens=max_new_tokens, do_sample=False,
                               return_legacy_cache=True)  # site: harness_return_legacy_cache

    def run(self, ids):
        return model.generate(ids, **self.gen_kwargs)  # observe: harness_return_legacy_cache


class DefaultsHarness:
    def __init__(self):
        self.kwargs = {"max_new_tokens": 3, "min_new_tokens": 3}
        self.kwargs["use_model_defaults"] = False  # site: harness_use_model_defaults

    def run(self, ids):
        return model.generate(ids, **self.kwargs)  # observe: harness_use_model_defaults


class StaticHarness:
    def __init__(self):
        self.gen_kwargs = {"max_new_tokens": 3, "min_new_tokens": 3, "cache_implementation": "static"}

    def run(self, ids):
        return model.generate(ids, past_key_values=DynamicCache(), **self.gen_kwargs)  # site: harness_conflict


class CleanHarness:
    def __init__(self):
        self.gen_kwargs = {"max_new_tokens": 3, "do_sample": False, "return_dict_in_generate": True}  # clean: harness_clean_kwargs

    def run(self, ids):
        return model.generate(ids, **self.gen_kwargs)  # clean: harness_clean_generate


def config_legacy(ids):
    config = GenerationConfig(max_new_tokens=3, return_legacy_cache=True, return_dict_in_generate=True)  # site: harness_config_legacy
    out = model.generate(ids, generation_config=config, min_new_tokens=3)
    assert isinstance(out.past_key_values, tuple), "harness_config_legacy: a Cache came back, not a tuple"  # observe: harness_config_legacy
    return out


def probe_return_legacy():
    model.generation_config.min_new_tokens = 3  # fixed length: the random tiny model's EOS must not end generate early (the labelled line stays as written)
    assert LegacyHarness().run(prompt).shape[-1] == 8


def probe_use_model_defaults():
    assert DefaultsHarness().run(prompt).shape[-1] == 8


def probe_conflict():
    assert StaticHarness().run(prompt).shape[-1] == 8


def probe_clean():
    model.generation_config.min_new_tokens = 3
    assert CleanHarness().run(prompt).sequences.shape[-1] == 8


def probe_config_legacy():
    config_legacy(prompt)
