"""Layer-wise KV budgets: a project cache class (a transformers `Cache` subclass that keeps its own key/value lists,
scores and budgets, with its own legacy conversions, crop and batch helpers) is built from the model's
DynamicCache inside a patched Llama attention, which then updates it, scores the prompt and evicts each layer
down to its budget by rewriting the layer's key/value lists.

Provenance (mechanisms read; this code is written here, not copied):
- qtris123/cakekv @e6adc5e237ed78874923b355399c1ffe0a789db1 cake/cake_cache.py (CakeCache(Cache) with an
  `__init__` that never calls the base and sets `self.key_cache`/`self.value_cache`/`self._seen_tokens`,
  `__getitem__`/`__iter__`/`__len__`, `update`, `get_seq_length`, `to_legacy_cache`/`from_legacy_cache`,
  `from_dynamic_cache(past_key_values)` reading `past_key_values.key_cache`/`.value_cache` (one line here),
  `crop(max_length)`;
  CakeprefillKVCache.evcit_layer_kvcache reading and writing `past_key_values.key_cache[layer_idx]`)
- qtris123/cakekv @e6adc5e237ed78874923b355399c1ffe0a789db1 cake/model/modify_llama.py (`llama_attn_forward_cake(
  self, hidden_states, attention_mask=None, position_ids=None, past_key_value=None, output_attentions=False,
  use_cache=False, cache_position=None, position_embeddings=None)`: `if isinstance(past_key_value, DynamicCache):
  past_key_value = CakeCache.from_dynamic_cache(past_key_value)`, `past_key_value.update(key_states,
  value_states, self.layer_idx, cache_kwargs)`, returns `attn_output, attn_weights, past_key_value`)
- qtris123/cakekv @e6adc5e237ed78874923b355399c1ffe0a789db1 cake/monkeypatch.py
  (`replace_flashllama_attn_with_cakeattn`: `transformers.models.llama.modeling_llama.LlamaFlashAttention2.forward
  = llama_attn_forward_cake`)
Reduced: scores are key norms, the budget is fixed, eager attention stands in for flash attention; the cache
class, the evictor, the patched attention and the installer share this file. The attention probe installs the
patch over `LlamaAttention.forward`, the class a user moving the patch to these releases would take.
"""

import math

import torch
from transformers import AutoModelForCausalLM
from transformers.cache_utils import Cache, DynamicCache
from transformers.models.llama import modeling_llama
from transformers.models.llama.modeling_llama import apply_rotary_pos_emb, repeat_kv

prompt = torch.tensor([[1, 4, 6, 8, 10, 12, 14, 16]])


class CakeCache(Cache):
    def __init__(self):
        self.key_cache = []
        self.value_cache = []
        self._seen_tokens = 0
        self.evict_scores = []
        self.layer_budget = []

    def __getitem__(self, layer_idx):
        if layer_idx < len(self):
            return (self.key_cache[layer_idx], self.value_cache[layer_idx])
        raise KeyError(f"Cache only has {len(self)} layers, attempted to access layer with index {layer_idx}")

    def __iter__(self):
        for layer_idx in range(len(self)):
            yield (self.key_cache[layer_idx], self.value_cache[layer_idx])

    def __len__(self):
        return len(self.key_cache)

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

    def get_seq_length(self, layer_idx=0):
        if len(self.key_cache) <= layer_idx:
            return 0
        return self.key_cache[layer_idx].shape[-2]

    def to_legacy_cache(self):
        legacy_cache = ()
        for layer_idx in range(len(self)):
            legacy_cache += ((self.key_cache[layer_idx], self.value_cache[layer_idx]),)
        return legacy_cache

    @classmethod
    def from_legacy_cache(cls, past_key_values=None):
        cache = cls()
        if past_key_values is not None:
            for layer_idx in range(len(past_key_values)):
                key_states, value_states = past_key_values[layer_idx]
                cache.update(key_states, value_states, layer_idx)
        return cache

    @classmethod
    def from_dynamic_cache(cls, past_key_values=None):
        cache = cls()
        if past_key_values is not None:
            cache.key_cache, cache.value_cache = past_key_values.key_cache, past_key_values.value_cache  # site: ck_from_dynamic
        return cache

    def crop(self, max_length):
        if max_length < 0:
            max_length = self.get_seq_length() - abs(max_length)
        if self.get_seq_length() <= max_length:
            return
        self._seen_tokens = max_length
        for idx in range(len(self.key_cache)):
            self.key_cache[idx] = self.key_cache[idx][..., :max_length, :]
            self.value_cache[idx] = self.value_cache[idx][..., :max_length, :]


class CakeprefillKVCache:
    def __init__(self, window_size=2):
        self.window_size = window_size

    def evict_layer_kvcache(self, past_key_values, layer_idx, budget):
        keys = past_key_values.key_cache[layer_idx]  # clean: ck_evict_read
        scores = keys[:, :, :-self.window_size, :].norm(dim=-1)
        indices = scores.topk(budget, dim=-1).indices.sort(dim=-1).values
        indices = indices.unsqueeze(-1).expand(-1, -1, -1, keys.shape[-1])
        values = past_key_values.value_cache[layer_idx]
        k_keep = keys[:, :, :-self.window_size, :].gather(dim=2, index=indices)
        v_keep = values[:, :, :-self.window_size, :].gather(dim=2, index=indices)
        past_key_values.key_cache[layer_idx] = torch.cat([k_keep, keys[:, :, -self.window_size:, :]], dim=2)  # clean: ck_evict_write
        past_key_values.value_cache[layer_idx] = torch.cat([v_keep, values[:, :, -self.window_size:, :]], dim=2)
        return past_key_values


EVICT = CakeprefillKVCache()
BUDGET = 3


def llama_attn_forward_cake(self, hidden_states, attention_mask=None, position_ids=None, past_key_value=None,  # site: ck_attn_hook
                            output_attentions=False, use_cache=False, cache_position=None,
                            position_embeddings=None):
    if isinstance(past_key_value, DynamicCache):
        past_key_value = CakeCache.from_dynamic_cache(past_key_value)
    bsz, q_len, _ = hidden_states.size()
    head_dim = self.head_dim
    query_states = self.q_proj(hidden_states).view(bsz, q_len, -1, head_dim).transpose(1, 2)
    key_states = self.k_proj(hidden_states).view(bsz, q_len, -1, head_dim).transpose(1, 2)
    value_states = self.v_proj(hidden_states).view(bsz, q_len, -1, head_dim).transpose(1, 2)
    cos, sin = position_embeddings
    query_states, key_states = apply_rotary_pos_emb(query_states, key_states, cos, sin)
    if past_key_value is not None:
        cache_kwargs = {"sin": sin, "cos": cos, "cache_position": cache_position}
        key_states, value_states = past_key_value.update(key_states, value_states, self.layer_idx, cache_kwargs)  # clean: ck_own_update
    key_states = repeat_kv(key_states, self.num_key_value_groups)
    value_states = repeat_kv(value_states, self.num_key_value_groups)
    attn_weights = torch.matmul(query_states, key_states.transpose(2, 3)) / math.sqrt(head_dim)
    if attention_mask is not None:
        attn_weights = attn_weights + attention_mask[:, :, :, : key_states.shape[-2]]
    attn_weights = torch.softmax(attn_weights, dim=-1)
    attn_output = torch.matmul(attn_weights, value_states).transpose(1, 2).reshape(bsz, q_len, -1)
    if q_len > 1 and past_key_value is not None and past_key_value.get_seq_length(self.layer_idx) > BUDGET + 2:
        EVICT.evict_layer_kvcache(past_key_value, self.layer_idx, BUDGET)
    return self.o_proj(attn_output), None, past_key_value


def replace_flashllama_attn_with_cakeattn():
    modeling_llama.LlamaFlashAttention2.forward = llama_attn_forward_cake  # site: ck_flash_class


def probe_from_dynamic():
    model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-chat-hf")
    cache = model(prompt, use_cache=True).past_key_values
    assert CakeCache.from_dynamic_cache(cache).get_seq_length() == 8


def probe_evict():
    model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-chat-hf")
    legacy = tuple((layer.keys, layer.values) for layer in model(prompt, use_cache=True).past_key_values.layers)
    cache = CakeCache.from_legacy_cache(legacy)
    for layer_idx in range(len(cache)):
        EVICT.evict_layer_kvcache(cache, layer_idx, BUDGET)
    assert cache.get_seq_length() == BUDGET + 2 and len(cache.to_legacy_cache()) == 2


def probe_own_crop():
    cache = CakeCache()
    cache.update(torch.ones(1, 1, 6, 4), torch.ones(1, 1, 6, 4), 0)
    cache.crop(4)  # clean: ck_own_crop
    assert cache.get_seq_length() == 4 and cache.to_legacy_cache()[0][0].shape[2] == 4  # clean: ck_own_legacy


def probe_patched_attention():
    modeling_llama.LlamaAttention.forward = llama_attn_forward_cake
    model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-chat-hf", attn_implementation="eager")
    cache = model(prompt, use_cache=True).past_key_values  # observe: ck_attn_hook
    assert cache.get_seq_length() == BUDGET + 2, "ck_attn_hook: the patched attention never got the cache"


def probe_own_update():
    model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-chat-hf")
    attn = model.model.layers[0].self_attn
    hidden = model.model.embed_tokens(prompt)
    position_embeddings = model.model.rotary_emb(hidden, torch.arange(8).unsqueeze(0))
    cache = CakeCache()
    llama_attn_forward_cake(attn, hidden, past_key_value=cache, position_embeddings=position_embeddings)
    assert cache.get_seq_length() == BUDGET + 2


def probe_install():
    replace_flashllama_attn_with_cakeattn()
