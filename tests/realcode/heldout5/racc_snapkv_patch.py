"""SnapKV-style prompt compression patched into Llama's attention: `LlamaAttention.forward` is replaced by a
function written against the 4.56/4.57 signature (`past_key_values`, `cache_position`, `**kwargs`); at prefill
it keeps the observation window plus the prompt keys the window attends to most and stores only those with
`past_key_values.update(...)`; during decoding it tracks the length itself, asks the cache for the layer's
length when it has none, and every so many steps overwrites the layer's stored keys and values through
`past_key_values.layers[layer_idx].keys/.values`.

Provenance (mechanisms read; this code is written here, not copied):
- wrnwwrnw/KEY-correcting @0a69146db88a8bbe02d998a1a2e1b4980d1cbf95 racc/llamapatch.py (`llama_attention_forward(
  self, hidden_states, position_embeddings=None, attention_mask=None, past_key_values=None, cache_position=None,
  **kwargs)`: `init_racckv(self)`, `kv_seq_len += past_key_values.get_seq_length(self.layer_idx)` when
  `self.kv_seq_len` is 0, `cache_kwargs = {"sin": sin, "cos": cos, "cache_position": cache_position}`, prefill
  `self.kv_cluster.update_kv(...)` then `past_key_values.update(key_states_compress, value_states_compress,
  self.layer_idx, cache_kwargs)`, decode `past_key_values.update(...)` and at the compression step
  `past_key_values.layers[self.layer_idx].keys = key_states_compress` / `.values = value_states_compress`;
  the function itself keeps a `DynamicCache()` as `llama_attention_forward.cache`)
- wrnwwrnw/KEY-correcting @ba557493d1a020f1d15c5c391b5b9aea40e2c074 racc/monkeypatch.py (the forward is
  assigned over `transformers.models.llama.modeling_llama.LlamaAttention.forward`)
Reduced: the FAISS index search, the environment switches and flash-attention are left out; scaled-dot-product
attention over the uncompressed prefill, a top-k cluster, and a decode compression every `COMPRESS_EVERY` steps.
"""

import math

import torch
import transformers
from transformers import AutoModelForCausalLM, DynamicCache
from transformers.models.llama.modeling_llama import apply_rotary_pos_emb, repeat_kv

COMPRESS_EVERY = 2


class SnapKVCluster:
    def __init__(self, window_size=2, max_capacity_prompt=4):
        self.window_size = window_size
        self.max_capacity_prompt = max_capacity_prompt

    def update_kv(self, key_states, query_states, value_states):
        q_len = key_states.shape[-2]
        if q_len <= self.max_capacity_prompt:
            return key_states, value_states
        window = query_states[..., -self.window_size:, :]
        scores = torch.matmul(window, key_states.transpose(2, 3)) / math.sqrt(key_states.shape[-1])
        votes = scores.softmax(-1)[..., :-self.window_size].sum(dim=-2)
        keep = votes.topk(self.max_capacity_prompt - self.window_size, dim=-1).indices.sort(-1).values
        index = keep.unsqueeze(-1).expand(-1, -1, -1, key_states.shape[-1])
        k_past, v_past = key_states[..., :-self.window_size, :].gather(2, index), value_states[..., :-self.window_size, :].gather(2, index)
        return (torch.cat([k_past, key_states[..., -self.window_size:, :]], dim=2),
                torch.cat([v_past, value_states[..., -self.window_size:, :]], dim=2))


def init_racckv(self):
    if not hasattr(self, "kv_cluster"):
        self.kv_cluster = SnapKVCluster()
        self.kv_seq_len = 0


def llama_attention_forward(self, hidden_states, position_embeddings=None, attention_mask=None,  # site: rc_attn_hook
                            past_key_values=None, cache_position=None, **kwargs):
    init_racckv(self)
    if not hasattr(llama_attention_forward, "cache"):
        llama_attention_forward.cache = DynamicCache()  # clean: rc_side_cache
        llama_attention_forward.steps = 0
    bsz, q_len, _ = hidden_states.size()
    hidden_shape = (bsz, q_len, -1, self.head_dim)
    query_states = self.q_proj(hidden_states).view(hidden_shape).transpose(1, 2)
    key_states = self.k_proj(hidden_states).view(hidden_shape).transpose(1, 2)
    value_states = self.v_proj(hidden_states).view(hidden_shape).transpose(1, 2)
    kv_seq_len = key_states.shape[-2]
    if past_key_values is not None:
        if self.kv_seq_len != 0:
            kv_seq_len += self.kv_seq_len
        else:
            kv_seq_len += past_key_values.get_seq_length(self.layer_idx)  # clean: rc_seq_length
    cos, sin = position_embeddings
    query_states, key_states = apply_rotary_pos_emb(query_states, key_states, cos, sin)
    key_states = repeat_kv(key_states, self.num_key_value_groups)
    value_states = repeat_kv(value_states, self.num_key_value_groups)
    attn_keys, attn_values = key_states, value_states
    if past_key_values is not None:
        cache_kwargs = {"sin": sin, "cos": cos, "cache_position": cache_position}
        if key_states.shape[-2] == kv_seq_len:
            self.kv_seq_len = kv_seq_len
            compressed_k, compressed_v = self.kv_cluster.update_kv(key_states, query_states, value_states)
            past_key_values.update(compressed_k, compressed_v, self.layer_idx, cache_kwargs)  # clean: rc_prefill_update
        else:
            if self.layer_idx == 0:
                llama_attention_forward.steps += 1
            self.kv_seq_len += q_len
            attn_keys, attn_values = past_key_values.update(key_states, value_states, self.layer_idx, cache_kwargs)
            if llama_attention_forward.steps % COMPRESS_EVERY == 0:
                past_key_values.layers[self.layer_idx].keys = attn_keys[..., 1:, :]  # clean: rc_layer_write
                past_key_values.layers[self.layer_idx].values = attn_values[..., 1:, :]
    attn_output = torch.nn.functional.scaled_dot_product_attention(query_states, attn_keys, attn_values, is_causal=q_len > 1)
    attn_output = attn_output.transpose(1, 2).reshape(bsz, q_len, -1).contiguous()
    return self.o_proj(attn_output), None


def replace_llama():
    transformers.models.llama.modeling_llama.LlamaAttention.forward = llama_attention_forward


prompt = torch.tensor([[1, 90, 91, 92, 93, 94, 95, 96]])


def load():
    replace_llama()
    return AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.1-8B-Instruct", attn_implementation="sdpa")


def probe_prefill():
    model = load()
    cache = DynamicCache()
    with torch.no_grad():
        model(prompt, past_key_values=cache, use_cache=True)
    assert cache.get_seq_length() == 4, (  # observe: rc_attn_hook
        f"rc_attn_hook: the patched attention did not store the compressed prompt ({cache.get_seq_length()} cached)")


def probe_decode():
    model = load()
    cache = DynamicCache()
    attn = model.model.layers[0].self_attn
    hidden = model.model.embed_tokens(prompt)
    with torch.no_grad():
        position_embeddings = model.model.rotary_emb(hidden, torch.arange(8).unsqueeze(0))
        llama_attention_forward(attn, hidden, position_embeddings, None, past_key_values=cache)
        step = model.model.embed_tokens(torch.tensor([[97]]))
        step_pe = model.model.rotary_emb(step, torch.tensor([[8]]))
        for _ in range(2):
            llama_attention_forward(attn, step, step_pe, None, past_key_values=cache)
    assert attn.kv_seq_len == 10 and cache.get_seq_length(0) == 5
