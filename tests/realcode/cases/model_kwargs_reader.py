"""A custom generation mixin (a VLM that carries image features between steps) that reads the cache out of
generate's model_kwargs after each step."""

import torch
from transformers import LlamaForCausalLM

prompt = torch.tensor([[1, 5, 9, 14, 20]])


class StepLoggingLM(LlamaForCausalLM):
    cache_lengths = []

    def _update_model_kwargs_for_generation(self, outputs, model_kwargs, *args, **kwargs):
        model_kwargs = super()._update_model_kwargs_for_generation(outputs, model_kwargs, *args, **kwargs)
        cache = model_kwargs["past_key_values"]  # site: reader_subscript
        self.cache_lengths.append(cache.get_seq_length())
        return model_kwargs


class SoftReaderLM(LlamaForCausalLM):
    cache_lengths = []

    def _update_model_kwargs_for_generation(self, outputs, model_kwargs, *args, **kwargs):
        model_kwargs = super()._update_model_kwargs_for_generation(outputs, model_kwargs, *args, **kwargs)
        cache = model_kwargs.get("past_key_values")  # site: reader_get
        self.cache_lengths.append(cache.get_seq_length() if cache is not None else -1)
        return model_kwargs


class CompatReaderLM(LlamaForCausalLM):
    cache_lengths = []

    def _update_model_kwargs_for_generation(self, outputs, model_kwargs, *args, **kwargs):
        model_kwargs = super()._update_model_kwargs_for_generation(outputs, model_kwargs, *args, **kwargs)
        cache = model_kwargs.get("cache", model_kwargs.get("past_key_values"))  # clean: reader_compat
        self.cache_lengths.append(cache.get_seq_length())
        return model_kwargs


def probe_subscript():
    model = StepLoggingLM.from_pretrained("meta-llama/Llama-3.2-1B")
    model.generate(prompt, max_new_tokens=3, min_new_tokens=3, do_sample=False)
    assert model.cache_lengths[0] == 5


def probe_get():
    model = SoftReaderLM.from_pretrained("meta-llama/Llama-3.2-1B")
    model.generate(prompt, max_new_tokens=3, min_new_tokens=3, do_sample=False)
    assert model.cache_lengths[0] == 5, f"reader_get: lengths {model.cache_lengths}"  # observe: reader_get


def probe_compat():
    model = CompatReaderLM.from_pretrained("meta-llama/Llama-3.2-1B")
    model.generate(prompt, max_new_tokens=3, min_new_tokens=3, do_sample=False)
    assert model.cache_lengths[0] == 5
