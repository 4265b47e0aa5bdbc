"""A KV-cache eviction toolkit (H2O, TOVA, SnapKV and its own pruner): cache classes subclass transformers'
`Cache` and keep per-layer `key_cache`/`value_cache` lists of their own, trimmed between updates; a factory picks
the cache for a method name ("full" means no custom cache); the model's attention modules get a replacement
`forward` (bound with `types.MethodType` on every LlamaAttention/Qwen2Attention found by walking the model, or on
the FlashAttention2 classes for the flash variant) that updates the cache it is handed as `past_key_value`, then
feeds the attention scores to the cache's tracker and asks it to evict.

Provenance (mechanisms read; this code is written here, not copied):
- MalachiAjayi/kv-cache-pruner @fc1779f03dddf97a68ae9b5bf5aa33731095a158 kv_cache_pruner/cache_utils.py
  (`class SinkCache(Cache)`: `super().__init__()`, then `self.key_cache`/`self.value_cache` lists, `_seen_tokens`,
  `update` appending or concatenating per layer, `evict` keeping the sink prefix and the recent window,
  `get_seq_length` from its own lists), kv_cache_pruner/utils.py (`load_kv_cache(method, ...)`: None for "full",
  `SinkCache(num_recent=..., num_heavy=...)` for "sink"), kv_cache_pruner/monkey_patch/utils.py
  (`enable_kv_cache_pruning`: recursive walk over `model._modules`, `types.MethodType(forward, module)` on
  LlamaAttention/Qwen2Attention; `enable_kv_cache_pruning_flashattn2` imports `LlamaFlashAttention2` and
  `Qwen2FlashAttention2` from the model modules), kv_cache_pruner/monkey_patch/llama.py (`llama_attention_forward(
  self, hidden_states, attention_mask, position_ids, past_key_value, ..., cache_position, position_embeddings,
  **kwargs)`: `past_key_value.update(key_states, value_states, self.layer_idx, cache_kwargs)`, then, when the
  cache is not a DynamicCache, `past_key_value.score_tracker` and `past_key_value.evict(self.layer_idx)`; returns
  `attn_output, attn_weights, past_key_value`); example_generate.py (the loop over methods, `model.generate(...,
  past_key_values=past_key_values)`)
Reduced: the score tracker keeps only a running attention sum; the pruner variants are left out; the flash
variant's installer is kept, its forward is not; the installer imports the classes where it installs them.
"""

import math
import types

import torch
from torch import nn
from transformers import AutoModelForCausalLM
from transformers.cache_utils import Cache, DynamicCache
from transformers.models.llama.modeling_llama import apply_rotary_pos_emb, repeat_kv


class ScoreTracker:
    def __init__(self):
        self.scores = {}

    def update(self, attn_weights, layer_idx):
        self.scores[layer_idx] = attn_weights.sum(dim=(0, 1, 2))


class SinkCache(Cache):
    def __init__(self, num_recent=None, num_heavy=None):
        super().__init__()  # site: kp_base_init
        self.key_cache = []
        self.value_cache = []
        self.num_recent_tokens = num_recent
        self.num_sink_tokens = num_heavy
        self.score_tracker = ScoreTracker()
        self._seen_tokens = 0

    def get_seq_length(self, layer_idx=0):
        if len(self.key_cache) <= layer_idx:
            return 0
        return self.key_cache[layer_idx].shape[-2]

    def update(self, key_states, value_states, layer_idx, cache_kwargs=None):
        if layer_idx == 0:
            self._seen_tokens += key_states.shape[-2]
        if len(self.key_cache) <= layer_idx:
            self.key_cache.append(key_states)
            self.value_cache.append(value_states)
        else:
            self.key_cache[layer_idx] = torch.cat([self.key_cache[layer_idx], key_states], dim=-2)
            self.value_cache[layer_idx] = torch.cat([self.value_cache[layer_idx], value_states], dim=-2)
        return self.key_cache[layer_idx], self.value_cache[layer_idx]

    def evict(self, layer_idx):
        budget = self.num_recent_tokens + self.num_sink_tokens
        if self.get_seq_length(layer_idx) <= budget:
            return
        k, v = self.key_cache[layer_idx], self.value_cache[layer_idx]
        self.key_cache[layer_idx] = torch.cat([k[:, :, :self.num_sink_tokens], k[:, :, -self.num_recent_tokens:]], dim=-2)
        self.value_cache[layer_idx] = torch.cat([v[:, :, :self.num_sink_tokens], v[:, :, -self.num_recent_tokens:]], dim=-2)


def load_kv_cache(method, num_recent=None, num_heavy=None):
    if method == "full":
        return None
    if method == "sink":
        return SinkCache(num_recent=num_recent, num_heavy=num_heavy)
    raise ValueError(f"unknown method {method}")


def llama_attention_forward(self, hidden_states, attention_mask=None, position_ids=None, past_key_value=None,  # site: kp_attn_hook
                            output_attentions=False, use_cache=False, cache_position=None,
                            position_embeddings=None, **kwargs):
    bsz, q_len, _ = hidden_states.size()
    query_states = self.q_proj(hidden_states).view(bsz, q_len, -1, self.head_dim).transpose(1, 2)
    key_states = self.k_proj(hidden_states).view(bsz, q_len, -1, self.head_dim).transpose(1, 2)
    value_states = self.v_proj(hidden_states).view(bsz, q_len, -1, self.head_dim).transpose(1, 2)
    cos, sin = position_embeddings
    query_states, key_states = apply_rotary_pos_emb(query_states, key_states, cos, sin)
    if past_key_value is not None:
        cache_kwargs = {"sin": sin, "cos": cos, "cache_position": cache_position}
        key_states, value_states = past_key_value.update(key_states, value_states, self.layer_idx, cache_kwargs)
    key_states = repeat_kv(key_states, self.num_key_value_groups)
    value_states = repeat_kv(value_states, self.num_key_value_groups)
    attn_weights = torch.matmul(query_states, key_states.transpose(2, 3)) / math.sqrt(self.head_dim)
    if attention_mask is not None:
        attn_weights = attn_weights + attention_mask[:, :, :, : key_states.shape[-2]]
    attn_weights = nn.functional.softmax(attn_weights, dim=-1, dtype=torch.float32).to(query_states.dtype)
    attn_output = torch.matmul(attn_weights, value_states).transpose(1, 2).contiguous().reshape(bsz, q_len, -1)
    attn_output = self.o_proj(attn_output)
    if not isinstance(past_key_value, DynamicCache):
        past_key_value.score_tracker.update(attn_weights.detach(), self.layer_idx)  # observe: kp_attn_hook
        past_key_value.evict(self.layer_idx)
    return attn_output, None, past_key_value  # observe: kp_attn_hook


def enable_kv_cache_pruning(model):
    from transformers.models.llama.modeling_llama import LlamaAttention  # clean: kp_attn_classes
    from transformers.models.qwen2.modeling_qwen2 import Qwen2Attention

    for name, module in reversed(model._modules.items()):
        if len(list(module.children())) > 0:
            enable_kv_cache_pruning(module)
        if isinstance(module, (LlamaAttention, Qwen2Attention)):
            model._modules[name].forward = types.MethodType(llama_attention_forward, model._modules[name])


def enable_kv_cache_pruning_flashattn2(model):
    from transformers.models.llama.modeling_llama import LlamaFlashAttention2  # site: kp_flash_classes

    for name, module in reversed(model._modules.items()):
        if len(list(module.children())) > 0:
            enable_kv_cache_pruning_flashattn2(module)
        if isinstance(module, LlamaFlashAttention2):
            model._modules[name].forward = types.MethodType(llama_attention_forward, model._modules[name])


model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.1-8B-Instruct", attn_implementation="eager")
prompt = torch.tensor([[1, 7, 8, 9, 10, 11, 12, 13]])


def run(method):
    past_key_values = load_kv_cache(method, num_recent=4, num_heavy=2)
    return model.generate(prompt, attention_mask=torch.ones_like(prompt), max_new_tokens=4, min_new_tokens=4,  # clean: kp_generate_full
                          past_key_values=past_key_values, do_sample=False)


def probe_full():
    assert run("full").shape[1] == 12


def probe_sink_cache():
    assert run("sink").shape[1] == 12


def probe_patched_full():
    enable_kv_cache_pruning(model)
    assert run("full").shape[1] == 12


def probe_install():
    enable_kv_cache_pruning(model)
    assert model.model.layers[0].self_attn.forward.__func__ is llama_attention_forward


def probe_flash_installer():
    enable_kv_cache_pruning_flashattn2(model)
