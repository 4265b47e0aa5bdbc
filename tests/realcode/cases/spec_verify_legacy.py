"""Target-model verification of draft tokens, written for tuple caches: the accepted prefix is sliced out of
each layer's (key, value) pair and fed back as a tuple."""

import torch
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")
prompt = torch.tensor([[1, 5, 9, 14, 20]])


def trim_pairs(past, keep):
    trimmed = []
    for k, v in past:  # site: verify_iter_pairs
        trimmed.append((k[:, :, :keep], v[:, :, :keep]))
    return tuple(trimmed)


def verify(candidates):
    out = model(torch.cat([prompt, candidates], dim=-1), use_cache=True)
    return out.past_key_values


def probe_iter_pairs():
    past = verify(torch.tensor([[7, 8]]))
    trimmed = trim_pairs(past, 6)
    assert trimmed[0][0].shape[-2] == 6


def probe_tuple_into_forward():
    past = verify(torch.tensor([[7, 8]]))
    legacy = tuple((past.layers[i].keys[:, :, :6], past.layers[i].values[:, :, :6])
                   for i in range(len(past.layers)))
    model(torch.tensor([[3]]), past_key_values=legacy, use_cache=True)  # site: verify_tuple_forward


def probe_layer_count():
    past = verify(torch.tensor([[7, 8]]))
    assert len(past.layers) == model.config.num_hidden_layers  # clean: verify_layers_len
    assert past.layers[0].keys.shape[-2] == 7  # clean: verify_layers_read
