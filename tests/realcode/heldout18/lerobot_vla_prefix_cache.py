"""LeRobot's vision-language-action policies (SmolVLA, PI0): the VLM prefix (images, language, state) is run once
with a fresh `DynamicCache`, filled layer by layer by the policy's own attention (`past_key_values.update(k, v,
layer_idx)`, the tensors transposed to the cache's [batch, heads, seq, head_dim]); every denoising step of the action
expert then reads the prefix back (`past_key_values.layers[layer_idx].keys` / `.values`) or, for PI0, runs the model
on the suffix with a copy of the prefix cache made by `clone_past_key_values`, which unpacks each layer of the cache
as `(keys, values, sliding_window)` and builds `DynamicCache(tuple(...))` from the clones.

Provenance (mechanisms read; this code is written here, not copied):
- huggingface/lerobot @7427f31801f944f5ec9ce53cda02862ce7d1638b
  src/lerobot/policies/smolvla/smolvlm_with_expert.py (`fill_kv_cache = use_cache and past_key_values is None`,
  `past_key_values = DynamicCache()`, `forward_attn_layer`: `key_states, value_states = past_key_values.update(
  key_states.transpose(1, 2), value_states.transpose(1, 2), layer_idx)`; `forward_cross_attn_layer`: `if
  len(inputs_embeds) == 2 and not past_key_values`, `past_key_values.layers[layer_idx].keys.transpose(1, 2)`),
  src/lerobot/policies/common/vla_utils.py (`clone_past_key_values`: `DynamicCache(tuple((keys.clone(),
  values.clone(), sliding_window) for keys, values, sliding_window in past_key_values))`),
  src/lerobot/policies/pi0/modeling_pi0.py (`sample_actions`: the prefix forward with `past_key_values=None,
  use_cache=True`; `denoise_step`: `past_key_values = clone_past_key_values(past_key_values)` then the expert forward
  with `past_key_values=past_key_values, use_cache=False`).
Reduced: the VLM and the action expert are one tiny Llama (its decoder layers' projections used by the policy's own
attention, no RoPE, plain softmax attention); images and state replaced by random embeddings; one or two denoising
steps of a fixed update instead of the flow-matching integrator; a second probe copies the prefix cache with
`copy.deepcopy` (a variant written here, not lerobot's) so the denoising forward is reached on every release.
"""

import copy

import torch
from transformers import AutoModelForCausalLM
from transformers.cache_utils import DynamicCache

vlm = AutoModelForCausalLM.from_pretrained("HuggingFaceTB/SmolLM2-135M")
layers = vlm.model.layers
hidden = vlm.config.hidden_size
torch.manual_seed(0)
prefix_embs = torch.randn(1, 6, hidden)
suffix_embs = torch.randn(1, 3, hidden)


def _project(layer, hidden_states):
    shape = (*hidden_states.shape[:-1], -1, layer.self_attn.head_dim)
    h = layer.input_layernorm(hidden_states)
    return (layer.self_attn.q_proj(h).view(shape), layer.self_attn.k_proj(h).view(shape),
            layer.self_attn.v_proj(h).view(shape))


def _attend(query_states, key_states, value_states):
    groups = query_states.shape[2] // key_states.shape[2]
    key_states = key_states.repeat_interleave(groups, dim=2)
    value_states = value_states.repeat_interleave(groups, dim=2)
    scores = torch.einsum("bqhd,bkhd->bhqk", query_states, key_states) / query_states.shape[-1] ** 0.5
    return torch.einsum("bhqk,bkhd->bqhd", scores.softmax(-1), value_states).flatten(2)


def forward_attn_layer(layer_idx, hidden_states, past_key_values, use_cache=True):
    query_states, key_states, value_states = _project(layers[layer_idx], hidden_states)
    if use_cache:
        key_states, value_states = past_key_values.update(  # clean: lr_update_layer
            key_states.transpose(1, 2), value_states.transpose(1, 2), layer_idx)
        key_states = key_states.transpose(1, 2)
        value_states = value_states.transpose(1, 2)
    return _attend(query_states, key_states, value_states), past_key_values


def forward_cross_attn_layer(layer_idx, hidden_states, past_key_values):
    if not past_key_values:  # clean: lr_cache_empty
        raise ValueError("the expert needs the prefix cache")
    query_states, _, _ = _project(layers[layer_idx], hidden_states)
    key_states = past_key_values.layers[layer_idx].keys.transpose(1, 2)  # clean: lr_read_keys
    value_states = past_key_values.layers[layer_idx].values.transpose(1, 2)  # clean: lr_read_values
    return _attend(query_states, key_states, value_states)


@torch.no_grad()
def fill_prefix(inputs_embeds, past_key_values=None, use_cache=True):
    fill_kv_cache = use_cache and past_key_values is None
    if fill_kv_cache:
        past_key_values = DynamicCache()  # clean: lr_new_cache
    h = inputs_embeds
    for layer_idx in range(len(layers)):
        out, past_key_values = forward_attn_layer(layer_idx, h, past_key_values, use_cache=use_cache)
        h = h + out
    return h, past_key_values


@torch.no_grad()
def expert_step(x_t, past_key_values):
    h = x_t
    for layer_idx in range(len(layers)):
        h = h + forward_cross_attn_layer(layer_idx, h, past_key_values)
    return x_t - 0.1 * h


def clone_past_key_values(past_key_values):
    return DynamicCache(
        tuple(
            (keys.clone(), values.clone(), sliding_window)
            for keys, values, sliding_window in past_key_values  # site: lr_clone_triples
        )
    )


@torch.no_grad()
def pi0_sample(num_steps=2, clone=clone_past_key_values):
    out = vlm.model(inputs_embeds=prefix_embs, past_key_values=None, use_cache=True)  # clean: lr_pi0_prefix
    past_key_values = out.past_key_values
    x_t = suffix_embs
    for _ in range(num_steps):
        step_cache = clone(past_key_values)
        suffix_out = vlm.model(inputs_embeds=x_t, past_key_values=step_cache, use_cache=False,  # clean: lr_pi0_denoise
                               position_ids=torch.arange(6, 9).unsqueeze(0))
        x_t = x_t - 0.1 * suffix_out.last_hidden_state
    return x_t, past_key_values


def probe_smolvla():
    _, cache = fill_prefix(prefix_embs)
    assert cache.get_seq_length() == 6
    x_t = expert_step(suffix_embs, cache)
    assert x_t.shape == suffix_embs.shape and cache.get_seq_length() == 6


def probe_pi0():
    x_t, cache = pi0_sample()
    assert x_t.shape == suffix_embs.shape and cache.get_seq_length() == 6


def probe_pi0_deepcopy():
    x_t, cache = pi0_sample(clone=copy.deepcopy)
    assert x_t.shape == suffix_embs.shape and cache.get_seq_length() == 6
