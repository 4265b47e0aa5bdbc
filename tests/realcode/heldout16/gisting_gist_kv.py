"""Gisting (prompt compression into gist tokens): an instruction followed by k `<GIST>` tokens is run once; the keys
and values at the gist positions, read from the output's `past_key_values` (its shape from
`past_key_values[0][0].shape`, one `(past_k, past_v)` pair per layer), are copied into a per-layer tuple of small
tensors; the compressed prompt is then continued by handing that tuple to `generate` as `past_key_values`, and its
memory cost is computed from `len(...)` and `[0][0]` of the tuple.

Provenance (mechanisms read; this code is written here, not copied):
- jayelm/gisting @3be0d062b6bdfd3caf51843bbc60261a0855f876
  src/gist_caching.py (GistActivations.from_model_outputs: `past_key_values = model_outputs.past_key_values`,
  `batch_size, num_heads, seq_length, hidden_size = past_key_values[0][0].shape`, `gist_past_key_values = [(kv(),
  kv()) for _ in past_key_values]`, `for layer_i, (past_k, past_v) in enumerate(past_key_values):
  gist_past_key_values[layer_i][0][batch_i] = past_k[batch_i, :, gist_start:gist_end]`, returned as
  `tuple(gist_past_key_values)`), src/compress.py (main: `gist_activations = model.get_gist_activations(...)`,
  `gen_kwargs["past_key_values"] = gist_activations.past_key_values`, `generated_tokens = model.generate(
  max_new_tokens=max_new_tokens, do_sample=False, **gen_kwargs)`, `num_layers = len(gist_activations.past_key_values)`,
  `kv_cache_tensor = gist_activations.past_key_values[0][0]`, the per-token memory from its `element_size()`).
Reduced: the gist model is transformers' Llama (the project's own LLaMA fork adds the gist attention mask and
`gist_offset` positions, left out), one sequence; reading the shape, copying the layers and generating from the
tuple are separate helpers, each reached by its own probe (in the project one stops the run before the next).
"""

from dataclasses import dataclass

import torch
from transformers import AutoModelForCausalLM


@dataclass
class GistActivations:
    past_key_values: tuple
    gist_indices: torch.Tensor


def gist_cache_shape(model_outputs):
    past_key_values = model_outputs.past_key_values
    batch_size, num_heads, seq_length, hidden_size = past_key_values[0][0].shape  # site: gs_kv_shape
    return batch_size, num_heads, hidden_size


def copy_gist_layers(past_key_values, gist_start, gist_end, shape):
    batch_size, num_heads, hidden_size = shape
    gist_past_key_values = [(torch.zeros(batch_size, num_heads, gist_end - gist_start, hidden_size),
                             torch.zeros(batch_size, num_heads, gist_end - gist_start, hidden_size))
                            for _ in past_key_values]
    for layer_i, (past_k, past_v) in enumerate(past_key_values):  # site: gs_copy_layers
        gist_past_key_values[layer_i][0][0] = past_k[0, :, gist_start:gist_end]
        gist_past_key_values[layer_i][1][0] = past_v[0, :, gist_start:gist_end]
    return GistActivations(tuple(gist_past_key_values), torch.tensor([gist_start]))


def generate_from_gist(model, gist_activations, input_ids, max_new_tokens):
    attention_mask_with_gist = torch.ones(1, input_ids.shape[1] + gist_activations.past_key_values[0][0].shape[2])
    gen_kwargs = {"input_ids": input_ids, "attention_mask": attention_mask_with_gist}
    gen_kwargs["past_key_values"] = gist_activations.past_key_values
    return model.generate(max_new_tokens=max_new_tokens, min_new_tokens=max_new_tokens, do_sample=False,  # site: gs_generate_tuple
                          **gen_kwargs)


def kv_cache_size_per_token(gist_activations):
    num_layers = len(gist_activations.past_key_values)  # clean: gs_num_layers
    kv_cache_tensor = gist_activations.past_key_values[0][0]  # clean: gs_kv_tensor
    single_token_kv_cache_tensor = kv_cache_tensor[:, :, 0]
    single_token_kv_cache_mem = single_token_kv_cache_tensor.element_size() * single_token_kv_cache_tensor.nelement()
    return 2 * num_layers * single_token_kv_cache_mem


model = AutoModelForCausalLM.from_pretrained("jayelm/llama-7b-gist-1").eval()
gist_token = 300
instruction_ids = torch.tensor([[1, 50, 51, 52, gist_token]])


@torch.no_grad()
def get_gist_activations_outputs(model, input_ids):
    return model(input_ids=input_ids, attention_mask=torch.ones_like(input_ids), use_cache=True)  # clean: gs_instruction_forward


def _instruction_outputs():
    return get_gist_activations_outputs(model, instruction_ids)


def _gist_from_layers(outputs):
    layers = outputs.past_key_values.to_legacy_cache() if hasattr(outputs.past_key_values, "to_legacy_cache") else [
        (layer.keys, layer.values) for layer in outputs.past_key_values.layers]
    return GistActivations(tuple((k[:, :, 4:5], v[:, :, 4:5]) for k, v in layers), torch.tensor([4]))


def probe_shape():
    assert gist_cache_shape(_instruction_outputs()) == (1, 1, 64)


def probe_copy_layers():
    acts = copy_gist_layers(_instruction_outputs().past_key_values, 4, 5, (1, 1, 64))
    assert acts.past_key_values[1][0].shape == (1, 1, 1, 64)


def probe_generate():
    acts = _gist_from_layers(_instruction_outputs())
    out = generate_from_gist(model, acts, torch.tensor([[60, 61]]), 2)
    assert out.shape[1] == 4


def probe_memory():
    acts = _gist_from_layers(_instruction_outputs())
    assert kv_cache_size_per_token(acts) == 2 * 2 * 64 * 4
