"""The attention that goes with a KV-eviction cache: the model's attention forward is replaced by one that takes
the cache as `past_key_value`, updates it with the rotated keys and values, scores the keys when the cache asks
for scores (`get_score`), and attends over the pruned layout when the cache says it is pruned.

Provenance (mechanisms read; this code is written here, not copied):
- snu-mllab/KVzip @4c2ed0f320d14ddb198aeb0e88263d320162f50e attention/attn.py (`llama_flash_attn2_forward(self,
  hidden_states, position_embeddings, attention_mask, past_key_value=None, cache_position=None, **kwargs)`:
  `if past_key_value is not None: ... past_key_value.update(key_states, value_states, self.layer_idx,
  cache_kwargs)`, `if getattr(past_key_value, "get_score", None): past_key_value._get_score(...)`, `if
  getattr(past_key_value, "pruned", None): ... past_key_value.prepare(...)`, returns `attn_output, None`)
- snu-mllab/KVzip @4c2ed0f320d14ddb198aeb0e88263d320162f50e model/monkeypatch.py (`replace_attn(model_name)`:
  `transformers.models.llama.modeling_llama.LlamaAttention.forward = llama_flash_attn2_forward` for "llama",
  the Qwen2 attention for "qwen2.5")
Reduced: scaled-dot-product attention stands in for flash-attn; scoring records the layers it saw; the pruned
path is left out.
"""

import torch
import transformers
from transformers import AutoModelForCausalLM, DynamicCache
from transformers.models.llama.modeling_llama import apply_rotary_pos_emb, repeat_kv

prompt = torch.tensor([[1, 30, 31, 32, 33, 34]])
scored_layers = []


def llama_attn_forward(self, hidden_states, position_embeddings, attention_mask, past_key_value=None,  # site: kp_attn_hook
                       cache_position=None, **kwargs):
    bsz, q_len, _ = hidden_states.size()
    hidden_shape = (*hidden_states.shape[:-1], -1, self.head_dim)
    query_states = self.q_proj(hidden_states).view(hidden_shape).transpose(1, 2)
    key_states = self.k_proj(hidden_states).view(hidden_shape).transpose(1, 2)
    value_states = self.v_proj(hidden_states).view(hidden_shape).transpose(1, 2)
    cos, sin = position_embeddings
    query_states, key_states = apply_rotary_pos_emb(query_states, key_states, cos, sin)
    if past_key_value is not None:
        cache_kwargs = {"sin": sin, "cos": cos, "cache_position": cache_position}
        key_states, value_states = past_key_value.update(key_states, value_states, self.layer_idx,  # clean: kp_update
                                                         cache_kwargs)
    if getattr(past_key_value, "get_score", None):  # clean: kp_score_flag
        scored_layers.append(self.layer_idx)
    key_states = repeat_kv(key_states, self.num_key_value_groups)
    value_states = repeat_kv(value_states, self.num_key_value_groups)
    attn_output = torch.nn.functional.scaled_dot_product_attention(query_states, key_states, value_states,
                                                                   is_causal=q_len > 1)
    attn_output = attn_output.transpose(1, 2).contiguous().view(bsz, q_len, -1)
    return self.o_proj(attn_output), None


def replace_attn(model_name):
    model_name = model_name.lower()
    if "llama" in model_name:
        transformers.models.llama.modeling_llama.LlamaAttention.forward = llama_attn_forward


def probe_prefill():
    replace_attn("meta-llama/Llama-3.1-8B-Instruct")
    model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.1-8B-Instruct")
    cache = DynamicCache()
    cache.get_score = True
    model(prompt, past_key_values=cache, use_cache=True)
    assert cache.get_seq_length() == 6, (  # observe: kp_attn_hook
        f"kp_attn_hook: the replaced attention never updated the cache (length {cache.get_seq_length()})")


def probe_direct():
    model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.1-8B-Instruct")
    attn = model.model.layers[0].self_attn
    hidden = model.model.embed_tokens(prompt)
    position_embeddings = model.model.rotary_emb(hidden, torch.arange(6).unsqueeze(0))
    cache = DynamicCache()
    cache.get_score = True
    scored_layers.clear()
    llama_attn_forward(attn, hidden, position_embeddings, None, past_key_value=cache)
    assert cache.get_seq_length() == 6 and scored_layers == [0]
