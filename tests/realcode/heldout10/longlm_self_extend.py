"""SelfExtend (datamllab/LongLM): training-free context extension. `SelfExtend.apply(model, group_size, window_size)`
walks the loaded model's attributes (`modify_method_of_instance`) and binds `self_extend_forward`, with the group and
window sizes fixed by `functools.partial`, as the `forward` of every `LlamaAttention` instance. The patched forward,
written for transformers 4.38-4.40, projects queries, keys and values, updates the cache it receives as
`past_key_value` (`past_key_value.update(key_states, value_states, self.layer_idx, {"cache_position":
cache_position})`), attends with neighbour positions inside the window and grouped positions (`position //
group_size`) outside it, and returns `attn_output, attn_weights, past_key_value`, the attention modules' return shape
of that era. The examples then run `model.generate` on a long prompt.

Provenance (mechanisms read; this code is written here, not copied):
- datamllab/LongLM @715c1e3db7282f7e478a028fb05f25f9278a3f3a self_extend_patch/Llama_4_40.py (self_extend_forward(self,
  hidden_states, attention_mask=None, position_ids=None, past_key_value=None, output_attentions=False,
  use_cache=False, cache_position=None, group_size_1=8, group_size_2=1024, scale_base=-1, **kwargs): `past_key_value =
  getattr(self, "past_key_value", past_key_value)`, `key_states, value_states = past_key_value.update(key_states,
  value_states, self.layer_idx, cache_kwargs)`, `key_position = position_ids if q_len != 1 else
  torch.arange(kv_seq_len)`, `group_query_position = query_position // group_size_1 + _re_group_size_2 -
  _re_group_size_2 // group_size_1`, `neighbor_attention_mask[:, -group_size_2:] = 1`, `return attn_output,
  attn_weights, past_key_value`), @18950b5a9230c20b8016d4332a480ac31bf87fd3 SelfExtend.py (modify_method_of_instance,
  `partial(SE.Llama.self_extend_forward, group_size_1=group_size, group_size_2=window_size, scale_base=scale_base)`,
  `modify_method_of_instance(loaded_model, "LlamaAttention", "forward", self_extend_attention_forward)`).
Reduced: the attribute walk recurses into `_modules` only; the rotary tables come from one LlamaRotaryEmbedding built
from the config (the attention modules of 4.40 held their own); one head group, no tensor-parallel slicing, no log
scaling, no flash path; prefill and single-token steps only, as the original.
"""

import math
from functools import partial
from types import MethodType

import torch
from transformers import AutoModelForCausalLM
from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding, apply_rotary_pos_emb, repeat_kv

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-chat-hf").eval()
rotary = LlamaRotaryEmbedding(config=model.config)


def self_extend_forward(self, hidden_states, attention_mask=None, position_ids=None, past_key_value=None,
                        output_attentions=False, use_cache=False, cache_position=None, group_size_1=8,
                        group_size_2=1024, **kwargs):
    bsz, q_len, _ = hidden_states.size()
    head_dim = self.head_dim
    query_states = self.q_proj(hidden_states).view(bsz, q_len, -1, head_dim).transpose(1, 2)
    key_states = self.k_proj(hidden_states).view(bsz, q_len, -1, head_dim).transpose(1, 2)
    value_states = self.v_proj(hidden_states).view(bsz, q_len, -1, head_dim).transpose(1, 2)
    past_key_value = getattr(self, "past_key_value", past_key_value)
    if past_key_value is not None:
        cache_kwargs = {"cache_position": cache_position}
        key_states, value_states = past_key_value.update(key_states, value_states, self.layer_idx, cache_kwargs)
    kv_seq_len = key_states.shape[-2]
    if position_ids is None:
        position_ids = torch.arange(kv_seq_len - q_len, kv_seq_len).view(1, q_len)
    key_position = position_ids if q_len != 1 else torch.arange(kv_seq_len).view(1, kv_seq_len)
    re_group = 0 if position_ids.max() < group_size_2 else group_size_2
    group_query_position = position_ids // group_size_1 + re_group - re_group // group_size_1
    group_key_position = key_position // group_size_1
    nq, _ = apply_rotary_pos_emb(query_states, query_states, *rotary(value_states, position_ids))
    _, nk = apply_rotary_pos_emb(key_states, key_states, *rotary(value_states, key_position))
    gq, _ = apply_rotary_pos_emb(query_states, query_states, *rotary(value_states, group_query_position))
    _, gk = apply_rotary_pos_emb(key_states, key_states, *rotary(value_states, group_key_position))
    nk, gk = repeat_kv(nk, self.num_key_value_groups), repeat_kv(gk, self.num_key_value_groups)
    value_states = repeat_kv(value_states, self.num_key_value_groups)
    neighbor = torch.matmul(nq, nk.transpose(2, 3)) / math.sqrt(head_dim)
    group = torch.matmul(gq, gk.transpose(2, 3)) / math.sqrt(head_dim)
    if q_len == 1:
        neighbor_mask = torch.zeros((q_len, kv_seq_len))
        neighbor_mask[:, -group_size_2:] = 1
    else:
        neighbor_mask = torch.tril(torch.ones((q_len, kv_seq_len)))
        if q_len - group_size_2 > 0:
            neighbor_mask[group_size_2:, :-group_size_2] -= torch.tril(torch.ones((q_len - group_size_2,
                                                                                   kv_seq_len - group_size_2)))
    causal = torch.tril(torch.ones((q_len, kv_seq_len)), diagonal=kv_seq_len - q_len).bool()
    attn_weights = torch.where(neighbor_mask.bool(), neighbor, group).masked_fill(~causal, float("-inf"))
    attn_weights = torch.nn.functional.softmax(attn_weights, dim=-1, dtype=torch.float32).to(query_states.dtype)
    attn_output = torch.matmul(attn_weights, value_states).transpose(1, 2).reshape(bsz, q_len, -1)
    attn_output = self.o_proj(attn_output)
    if not output_attentions:
        attn_weights = None
    return attn_output, attn_weights, past_key_value  # site: se_three_outputs


def modify_method_of_instance(instance, target_class_name, target_method_name, new_method):
    found = False
    if instance.__class__.__name__ == target_class_name:
        setattr(instance, target_method_name, MethodType(new_method, instance))
        return True
    for child in getattr(instance, "_modules", {}).values():
        found = modify_method_of_instance(child, target_class_name, target_method_name, new_method) or found
    return found


def apply(loaded_model, group_size, window_size):
    self_extend_attention_forward = partial(self_extend_forward, group_size_1=group_size, group_size_2=window_size)
    modified = modify_method_of_instance(loaded_model, "LlamaAttention", "forward", self_extend_attention_forward)  # clean: se_bind_forward
    if not modified:
        raise Exception(f"Failed to modify the attention method of {loaded_model.__class__.__name__}")


def probe_bind():
    apply(model, group_size=4, window_size=8)
    assert isinstance(model.model.layers[0].self_attn.forward, MethodType)


def probe_plain_generate():
    ids = torch.tensor([[1] + list(range(20, 36))])
    out = model.generate(ids, max_new_tokens=3, min_new_tokens=3, do_sample=False)  # clean: se_plain_generate
    assert out.shape == (1, 20)


def probe_passkey():
    apply(model, group_size=4, window_size=8)
    ids = torch.tensor([[1] + list(range(40, 64))])
    out = model.generate(ids, max_new_tokens=3, min_new_tokens=3, do_sample=False)  # observe: se_three_outputs
    assert out.shape == (1, 28)
