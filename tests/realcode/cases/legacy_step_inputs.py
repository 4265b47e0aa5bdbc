"""A draft-and-verify loop whose helpers still speak the legacy format: a layer loop that unpacks each item, a
list of pairs handed back to the forward, and the step's inputs gathered in a dict."""

import torch
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")
prompt = torch.tensor([[1, 5, 9, 14, 20]])


def prefill():
    return model(prompt, use_cache=True).past_key_values


def layer_lengths(cache):
    lengths = []
    for layer in cache:  # observe: step_layer_unpack
        keys, values = layer  # site: step_layer_unpack
        lengths.append(keys.shape[-2])
    return lengths


def first_keys(cache):
    firsts = []
    for layer in cache:
        firsts.append(layer[0])  # clean: step_layer_index
    return firsts


def as_pairs(cache, keep):
    pairs = []
    for layer in cache.layers:
        pairs.append((layer.keys[:, :, :keep], layer.values[:, :, :keep]))
    return pairs


def probe_layer_unpack():
    assert layer_lengths(prefill()) == [5] * model.config.num_hidden_layers


def probe_layer_index():
    assert first_keys(prefill())[0].shape[-2] == 5


def probe_list_into_forward():
    pairs = as_pairs(prefill(), 4)
    model(torch.tensor([[3]]), past_key_values=pairs, use_cache=True)  # site: step_list_forward


def probe_inputs_dict():
    cache = prefill()
    legacy = tuple((layer.keys, layer.values) for layer in cache.layers)
    step = {"input_ids": torch.tensor([[3]]), "use_cache": True}
    step["past_key_values"] = legacy  # site: step_dict_forward
    model(**step)  # observe: step_dict_forward
