"""ReRoPE (rectified rotary position embeddings, a context-extension patch): importing the patch module replaces
`LlamaAttention.forward` with a forward written for transformers 4.31 that keeps its own per-layer cache tuple
`(keys, values, position_ids)`, concatenates the past to the new keys/values/positions, rotates the keys by the
clipped relative distance when decoding one token, and returns `(attn_output, attn_weights, past_key_value)`. The
project's test script decodes with its own loop: the whole prompt first, then one sampled token at a time with
`past_key_values=outputs.past_key_values` and the attention mask grown by one.

Provenance (mechanisms read; this code is written here, not copied):
- bojone/rerope @acfe78840357a94d0bb504cb8865eeaa752df1a6
  rerope_patch.py (`def forward_with_rerope(self, hidden_states, attention_mask=None, position_ids=None,
  past_key_value=None, output_attentions=False, use_cache=False)`, `if past_key_value is not None: kv_seq_len +=
  past_key_value[0].shape[-2]`, `key_states = torch.cat([past_key_value[0], key_states], dim=2)`, `position_ids =
  torch.cat([past_key_value[2], position_ids], dim=1)`, `past_key_value = (key_states, value_states, position_ids) if
  use_cache else None`, `return attn_output, attn_weights, past_key_value`, `LlamaAttention.forward =
  forward_with_rerope` at import), test.py (generate: `past_key_values = None`, `outputs = model(input_ids=input_ids,
  attention_mask=attention_mask, return_dict=True, use_cache=True, past_key_values=past_key_values)`,
  `past_key_values = outputs.past_key_values`, `input_ids = next_tokens.unsqueeze(-1)`, the mask grown with ones).
Reduced: the patch is applied by a function (the project applies it at import, before any model runs) so the
unpatched loop can be run too; greedy instead of top-p sampling; the rotary and rectified-window arithmetic is kept,
the pretraining_tp branch is left out.
"""

import math

import torch
from transformers import AutoModelForCausalLM
from transformers.models.llama.modeling_llama import LlamaAttention, repeat_kv, rotate_half

training_length = 4096
window = 512


def apply_rotary_pos_emb(q, k, cos, sin, position_ids):
    cos = cos[position_ids].unsqueeze(1)
    sin = sin[position_ids].unsqueeze(1)
    q_embed = (q * cos[:, :, -q.shape[2]:]) + (rotate_half(q) * sin[:, :, -q.shape[2]:]) if q is not None else None
    k_embed = (k * cos) + (rotate_half(k) * sin) if k is not None else None
    return q_embed, k_embed


def rotary_table(dim, seq_len, base=10000.0):
    inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2).float() / dim))
    freqs = torch.outer(torch.arange(seq_len).float(), inv_freq)
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos(), emb.sin()


def forward_with_rerope(
    self,
    hidden_states,
    attention_mask=None,
    position_ids=None,
    past_key_value=None,  # site: rr_patched_forward
    output_attentions=False,
    use_cache=False,
):
    bsz, q_len, _ = hidden_states.size()
    num_heads = self.config.num_attention_heads
    num_kv_heads = self.config.num_key_value_heads
    query_states = self.q_proj(hidden_states).view(bsz, q_len, num_heads, self.head_dim).transpose(1, 2)
    key_states = self.k_proj(hidden_states).view(bsz, q_len, num_kv_heads, self.head_dim).transpose(1, 2)
    value_states = self.v_proj(hidden_states).view(bsz, q_len, num_kv_heads, self.head_dim).transpose(1, 2)
    query_states *= ((position_ids + 1)[:, None, :, None].log() / math.log(training_length)).clip(1)
    kv_seq_len = key_states.shape[-2]
    if past_key_value is not None:
        kv_seq_len += past_key_value[0].shape[-2]  # clean: rr_own_tuple_len
        key_states = torch.cat([past_key_value[0], key_states], dim=2)  # clean: rr_own_tuple_cat
        value_states = torch.cat([past_key_value[1], value_states], dim=2)
        position_ids = torch.cat([past_key_value[2], position_ids], dim=1)
    past_key_value = (key_states, value_states, position_ids) if use_cache else None  # clean: rr_own_tuple_build
    cos, sin = rotary_table(self.head_dim, max(kv_seq_len, window) + 1)
    if q_len == 1:
        position_ids = (position_ids[:, -1] - position_ids).clip(max=window)
        _, key_states = apply_rotary_pos_emb(None, key_states, cos, -sin, position_ids)
        key_states = repeat_kv(key_states, self.num_key_value_groups)
        value_states = repeat_kv(value_states, self.num_key_value_groups)
        attn_weights = torch.matmul(query_states, key_states.transpose(2, 3)) / math.sqrt(self.head_dim)
    else:
        query_states1, key_states1 = apply_rotary_pos_emb(query_states, key_states, cos, sin, position_ids)
        query_states2, _ = apply_rotary_pos_emb(query_states, None, cos, sin, position_ids * 0 + window)
        key_states1 = repeat_kv(key_states1, self.num_key_value_groups)
        key_states2 = repeat_kv(key_states, self.num_key_value_groups)
        value_states = repeat_kv(value_states, self.num_key_value_groups)
        attn_weights1 = torch.matmul(query_states1, key_states1.transpose(2, 3)) / math.sqrt(self.head_dim)
        attn_weights2 = torch.matmul(query_states2, key_states2.transpose(2, 3)) / math.sqrt(self.head_dim)
        rectified_mask = (position_ids[:, -q_len:, None] - position_ids[:, None]).abs() < window
        attn_weights = torch.where(rectified_mask, attn_weights1, attn_weights2)
        causal = torch.ones(q_len, kv_seq_len, dtype=torch.bool).tril(kv_seq_len - q_len)
        attn_weights = attn_weights.masked_fill(~causal, torch.finfo(attn_weights.dtype).min)
    attn_weights = torch.nn.functional.softmax(attn_weights, dim=-1, dtype=torch.float32).to(query_states.dtype)
    attn_output = torch.matmul(attn_weights, value_states)
    attn_output = attn_output.transpose(1, 2).reshape(bsz, q_len, -1)
    attn_output = self.o_proj(attn_output)
    if not output_attentions:
        attn_weights = None
    return attn_output, attn_weights, past_key_value


def apply_rerope():
    LlamaAttention.forward = forward_with_rerope  # observe: rr_patched_forward


model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-13b-chat-hf").eval()
eos_token_id = -1


@torch.inference_mode()
def generate(input_ids, attention_mask, max_tokens):
    past_key_values = None
    produced = []
    for i in range(max_tokens):
        outputs = model(input_ids=input_ids, attention_mask=attention_mask, return_dict=True, use_cache=True,  # clean: rr_loop_forward
                        past_key_values=past_key_values)
        past_key_values = outputs.past_key_values  # clean: rr_keep_cache
        next_tokens = outputs.logits[:, -1].argmax(dim=-1)
        produced.append(int(next_tokens[0]))
        if next_tokens[0] == eos_token_id:
            break
        input_ids = next_tokens.unsqueeze(-1)
        attention_mask = torch.cat([attention_mask, torch.ones(1, 1, dtype=torch.long)], dim=-1)
    return produced, past_key_values


prompt = torch.tensor([[1, 90, 91, 92, 93, 94]])


def probe_plain_loop():
    produced, past = generate(prompt, torch.ones_like(prompt), 3)
    assert len(produced) == 3 and past.get_seq_length() == 8


def probe_rerope_layer_cache():
    attn = model.model.layers[0].self_attn
    hidden = torch.randn(1, 6, model.config.hidden_size)
    with torch.inference_mode():
        _, _, layer_past = forward_with_rerope(attn, hidden, position_ids=torch.arange(6).unsqueeze(0), use_cache=True)
        out, _, layer_past = forward_with_rerope(attn, torch.randn(1, 1, model.config.hidden_size),
                                                 position_ids=torch.tensor([[6]]), past_key_value=layer_past,
                                                 use_cache=True)
    assert out.shape == (1, 1, model.config.hidden_size) and layer_past[0].shape[-2] == 7 and layer_past[2].shape == (1, 7)


def probe_rerope_prefill():
    apply_rerope()
    with torch.inference_mode():
        outputs = model(input_ids=prompt, attention_mask=torch.ones_like(prompt), use_cache=True)  # observe: rr_patched_forward
    assert outputs.past_key_values.get_seq_length() == 6, "rr_patched_forward: the patched attention did not fill the cache"  # observe: rr_patched_forward
