"""DuoAttention's evaluation patch: every Llama attention module gets the project's own forward bound with
`types.MethodType` (streaming heads keep a sink + recent window, retrieval heads the full history); the patched
forward takes the old `(hidden_states, attention_mask, position_ids, past_key_value, output_attentions, use_cache)`
signature, keeps its own per-layer `(full_KV, streaming_KV)` tensors in `past_key_value`, and returns
`(attn_output, attn_weights, past_key_value)`; the weights of the retrieval heads are reordered first.

Provenance (mechanisms read; this code is written here, not copied):
- mit-han-lab/duo-attention @fe93c314ae87306ef6629dc16713250b4718ffe7
  duo_attn/patch/llama.py (llama_duo_attention_forward_one_way_reordered(self, hidden_states, attention_mask=None,
  position_ids=None, past_key_value=None, output_attentions=False, use_cache=False, **kwargs): `kv_seq_len +=
  past_key_value[0].shape[2]`, the own `(full_KV, streaming_KV)` cache, `return attn_output, attn_weights,
  past_key_value`; enable_llama_duo_attention_eval: `module.forward = types.MethodType(
  llama_duo_attention_forward_one_way_reordered, module)` for each `model.model.layers[i].self_attn`, the head
  buffers `full_attention_heads`, `sink_size`, `recent_size`).
Reduced: no rotary embedding or head reordering (every head is a streaming head over its window), eager math.
"""

import types

import torch
from transformers import AutoModelForCausalLM


def duo_attention_forward(self, hidden_states, attention_mask=None, position_ids=None, past_key_value=None,
                          output_attentions=False, use_cache=False, **kwargs):
    bsz, q_len, _ = hidden_states.size()
    head_dim = self.head_dim
    query = self.q_proj(hidden_states).view(bsz, q_len, -1, head_dim).transpose(1, 2)
    key = self.k_proj(hidden_states).view(bsz, q_len, -1, head_dim).transpose(1, 2)
    value = self.v_proj(hidden_states).view(bsz, q_len, -1, head_dim).transpose(1, 2)
    if past_key_value is not None:
        key = torch.cat([past_key_value[0], key], dim=2)
        value = torch.cat([past_key_value[1], value], dim=2)
    keep = self.sink_size + self.recent_size
    if key.shape[2] > keep:
        key = torch.cat([key[:, :, : self.sink_size], key[:, :, -self.recent_size :]], dim=2)
        value = torch.cat([value[:, :, : self.sink_size], value[:, :, -self.recent_size :]], dim=2)
    groups = query.shape[1] // key.shape[1]
    attn = torch.nn.functional.scaled_dot_product_attention(
        query, key.repeat_interleave(groups, 1), value.repeat_interleave(groups, 1), is_causal=q_len > 1)
    attn_output = self.o_proj(attn.transpose(1, 2).reshape(bsz, q_len, -1))
    return attn_output, None, ((key, value) if use_cache else None)


def enable_duo_attention_eval(model, sink_size, recent_size):
    for layer in model.model.layers:
        module = layer.self_attn
        module.forward = types.MethodType(duo_attention_forward, module)  # site: du_patched_forward
        module.sink_size = sink_size
        module.recent_size = recent_size


model = AutoModelForCausalLM.from_pretrained("gradientai/Llama-3-8B-Instruct-Gradient-1048k").eval()
enable_duo_attention_eval(model, sink_size=2, recent_size=4)


def probe_score():
    ids = torch.tensor([[1, 12, 23, 34, 45, 56, 67, 78, 89, 90]])
    with torch.no_grad():
        logits = model(input_ids=ids).logits  # observe: du_patched_forward
    assert logits.shape == (1, 10, 320)
