"""SWAA (sliding-window attention adaptation, gaooooosh/linearMem): a patch package for transformers 4.5x that
(1) patches `DynamicLayer.update` to carry a linear-attention recurrent state passed in `cache_kwargs` before
chaining to the original update, and attaches layer-indexed helpers to DynamicCache (`get_recurrent_state`,
`is_recurrent_state_initialized`); (2) replaces `LlamaAttention.forward` (and Qwen2/Qwen3's) with its own
`attention_forward_swaa(self, hidden_states, position_embeddings, attention_mask, past_key_values,
cache_position=None, **kwargs)`, which projects and rotates q/k/v, writes them with `past_key_values.update(k, v,
self.layer_idx, {"sin", "cos", "cache_position"})`, reads the layer's recurrent state, then attends.

Provenance (mechanisms read; this code is written here, not copied):
- gaooooosh/linearMem @d4d13c41fd8dc6c8118614f993547d683dc23db5
  swaa_patch/hack_kv_cache.py (`_original_dynamic_layer_update = DynamicLayer.update`;
  `dynamic_layer_update_swaa(self, key_states, value_states, cache_kwargs=None)`: lazy `recurrent_state`,
  `cache_kwargs.get('recurrent_state', None)`, `return _original_dynamic_layer_update(self, key_states,
  value_states, cache_kwargs)`; `cache_is_recurrent_state_initialized` / `cache_get_recurrent_state` reading
  `self.layers[layer_idx]`) and swaa_patch/hack_hf_swaa.py (`attention_forward_swaa(self, hidden_states,
  position_embeddings, attention_mask, past_key_values, cache_position=None, **kwargs)`: `cos, sin =
  position_embeddings`, `apply_rotary_pos_emb`, `if past_key_values is not None: cache_kwargs = {"sin": sin, "cos":
  cos, "cache_position": cache_position}`, `past_key_values.update(key_states, value_states, self.layer_idx,
  cache_kwargs)`, `past_key_values.get_recurrent_state(self.layer_idx)`; `hack_hf_swaa`: `LlamaAttention.forward =
  attention_forward_swaa`).
Reduced: no flash-attention kernel or sliding window (plain causal SDPA over the cached keys), no linear-attention
branch (the recurrent state is only carried and read), Llama only.
"""

import torch
from transformers import AutoModelForCausalLM
from transformers.cache_utils import DynamicCache, DynamicLayer
from transformers.models.llama.modeling_llama import LlamaAttention, apply_rotary_pos_emb, repeat_kv

_original_dynamic_layer_update = DynamicLayer.update


def dynamic_layer_update_swaa(self, key_states, value_states, cache_kwargs=None):
    if not hasattr(self, "recurrent_state"):
        self.recurrent_state = None
    if cache_kwargs is not None:
        new_recurrent_state = cache_kwargs.get("recurrent_state", None)
        if new_recurrent_state is not None:
            self.recurrent_state = new_recurrent_state
    return _original_dynamic_layer_update(self, key_states, value_states, cache_kwargs)  # clean: sa_chain_update


def cache_is_recurrent_state_initialized(self, layer_idx):
    if layer_idx >= len(self.layers):
        return False
    return getattr(self.layers[layer_idx], "recurrent_state", None) is not None


def cache_get_recurrent_state(self, layer_idx):
    if layer_idx >= len(self.layers):
        return None
    return getattr(self.layers[layer_idx], "recurrent_state", None)  # clean: sa_layer_state


def hack_kv_cache_recurrent_state():
    DynamicLayer.update = dynamic_layer_update_swaa
    DynamicCache.is_recurrent_state_initialized = cache_is_recurrent_state_initialized
    DynamicCache.get_recurrent_state = cache_get_recurrent_state


def attention_forward_swaa(self, hidden_states, position_embeddings, attention_mask, past_key_values,  # site: sa_patched_forward
                           cache_position=None, **kwargs):
    input_shape = hidden_states.shape[:-1]
    hidden_shape = (*input_shape, -1, self.head_dim)
    query_states = self.q_proj(hidden_states).view(hidden_shape).transpose(1, 2)
    key_states = self.k_proj(hidden_states).view(hidden_shape).transpose(1, 2)
    value_states = self.v_proj(hidden_states).view(hidden_shape).transpose(1, 2)
    cos, sin = position_embeddings
    query_states, key_states = apply_rotary_pos_emb(query_states, key_states, cos, sin)
    last_state = None
    if past_key_values is not None:
        cache_kwargs = {"sin": sin, "cos": cos, "cache_position": cache_position}
        key_states, value_states = past_key_values.update(key_states, value_states, self.layer_idx, cache_kwargs)
        last_state = past_key_values.get_recurrent_state(self.layer_idx)
    key_states = repeat_kv(key_states, self.num_key_value_groups)
    value_states = repeat_kv(value_states, self.num_key_value_groups)
    attn_output = torch.nn.functional.scaled_dot_product_attention(query_states, key_states, value_states,
                                                                   is_causal=query_states.shape[2] > 1)
    attn_output = attn_output.transpose(1, 2).reshape(*input_shape, -1)
    return self.o_proj(attn_output), last_state


def hack_hf_swaa():
    LlamaAttention.forward = attention_forward_swaa


hack_kv_cache_recurrent_state()
model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen3-4B-Instruct-2507").eval()
prompt = torch.tensor([[1, 60, 61, 62, 63]])


def probe_carry_state():
    cache = DynamicCache()
    state = torch.ones(1, 2)
    keys = torch.zeros(1, 1, 3, 64)
    cache.update(keys, keys, 0, {"recurrent_state": state})
    assert cache.is_recurrent_state_initialized(0) and cache.get_recurrent_state(0) is state


def probe_generate():
    hack_hf_swaa()
    out = model.generate(prompt, max_new_tokens=3, min_new_tokens=3, do_sample=False, return_dict_in_generate=True)  # observe: sa_patched_forward
    assert out.past_key_values.get_seq_length() == 7, "sa_patched_forward: the patched attention did not fill the cache"  # observe: sa_patched_forward
