"""Legacy-tuple reads of a cache the code got from a model, in the shapes serving and speculative-decoding
code uses: helpers handed the cache, a verifier wrapping the model, compat code that copes with both."""

import torch
from transformers import AutoModelForCausalLM, DynamicCache

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")
prompt = torch.tensor([[1, 5, 9, 14, 20]])


def last_values(past):
    return past[-1][1]  # site: lcr_generate_param_index


def layer_lengths(past):
    lengths = []
    for i, (k, v) in enumerate(past):  # site: lcr_enumerate_pairs
        lengths.append((i, k.shape[-2]))
    return lengths


def compat_keys(past):
    if isinstance(past, (tuple, list)):
        return past[0][0]  # clean: lcr_compat_tuple_branch
    return past.layers[0].keys


def first_parts(past):
    parts = []
    for layer in past:
        parts.append(layer[0].shape[-2])  # clean: lcr_one_name_parts
    return parts, len(past)  # clean: lcr_len


def own_pairs(past):
    pairs = tuple((layer.keys, layer.values) for layer in past.layers)
    return [k.shape[-2] for k, v in pairs]  # clean: lcr_own_tuple


class Verifier:
    def __init__(self, lm):
        self.model = lm

    def step(self, ids, legacy):
        return self.model(ids, past_key_values=legacy, use_cache=True)  # site: lcr_self_model_tuple

    def step_wrapped(self, ids, legacy):
        return self.model(ids, past_key_values=DynamicCache(legacy), use_cache=True)  # clean: lcr_self_model_wrapped


def prefill():
    return model(prompt, use_cache=True).past_key_values


def probe_generate_param():
    out = model.generate(prompt, max_new_tokens=2, min_new_tokens=2, do_sample=False, return_dict_in_generate=True)
    assert last_values(out.past_key_values).shape[-2] == 6


def probe_enumerate():
    assert layer_lengths(prefill())[0] == (0, 5)


def probe_compat():
    assert compat_keys(prefill()).shape[-2] == 5
    legacy = tuple((layer.keys, layer.values) for layer in prefill().layers)
    assert compat_keys(legacy).shape[-2] == 5


def probe_parts():
    parts, n = first_parts(prefill())
    assert parts[0] == 5 and n == model.config.num_hidden_layers
    assert own_pairs(prefill())[0] == 5


def probe_verifier():
    legacy = tuple((layer.keys, layer.values) for layer in prefill().layers)
    Verifier(model).step(torch.tensor([[3]]), legacy)


def probe_verifier_wrapped():
    legacy = tuple((layer.keys, layer.values) for layer in prefill().layers)
    out = Verifier(model).step_wrapped(torch.tensor([[3]]), legacy)
    assert out.past_key_values.get_seq_length() == 6
