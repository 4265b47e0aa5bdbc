"""Lookahead (Jacobi) decoding over a Hugging Face model: the verify branch appends candidate n-grams, then the
cache is trimmed layer by layer to the accepted length, treating the forward's cache as a sequence of (k, v).

Provenance (mechanisms read; this code is written here, not copied):
- alipay/PainlessInferenceAcceleration lookahead/common/pretrained_model_batch.py @f276d3982f2fc23c087fd9ef336a97115afa252d
  (a LookaheadPreTrainedModel running its own decoding loop on `past_key_values`; seen in the search excerpt)
- hao-ai-lab/LookaheadDecoding README.md (the lookahead and verification branches; the accepted n-gram kept,
  the rest of the cache dropped)
"""

import torch
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-chat-hf")
prompt = torch.tensor([[1, 2, 4, 8, 16]])


def trim_pairs(past, keep):
    return tuple((k[:, :, :keep], v[:, :, :keep]) for k, v in past)  # site: la_iter_pairs


def layer_length(past, layer):
    return past[layer][0].shape[-2]  # site: la_layer_index


def layer_length_new(past, layer):
    return past.layers[layer].keys.shape[-2]  # clean: la_layers_keys


def verify(past, candidates):
    return model(candidates, past_key_values=past, use_cache=True)  # clean: la_verify


def probe_trim():
    out = model(prompt, use_cache=True)
    pairs = trim_pairs(out.past_key_values, 3)
    assert pairs[0][0].shape[-2] == 3


def probe_index():
    out = model(prompt, use_cache=True)
    assert layer_length(out.past_key_values, 1) == 5


def probe_layers():
    out = model(prompt, use_cache=True)
    past = out.past_key_values
    verify(past, torch.tensor([[3, 5, 7]]))
    assert layer_length_new(past, 0) == 8
