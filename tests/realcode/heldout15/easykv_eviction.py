"""EasyKV (DRSY): KV-cache eviction during decoding for Llama/Mistral. `generate` prefills with `self(input_ids=...,
use_cache=True)`, reads the position of the next token from `past_key_values[0][0].shape[2]`, decodes one token at a
time with `past_key_values=` the previous output's cache and an attention mask sized from the same read, and once
the cache outgrows its budget evicts positions with `truncate_kv_cache`, which indexes the cache as nested tuples,
turns it into a list of per-layer lists and gathers the kept positions of every key and value.

Provenance (mechanisms read; this code is written here, not copied):
- DRSY/EasyKV @a1d71cae3b562d9a709dda3741bd63e46a09ad31
  easykv/easykv.py (`truncate_kv_cache(kv_cache: Tuple, start, end)`: `remain_id` from
  `kv_cache[0][0].shape[2]`, `kv_cache = list(kv_cache)`, `kv_cache[i] = list(kv_cache[i])`, `kv_cache[i][0] =
  kv_cache[i][0][:, :, remain_id, :]`; `generate` in 'decoding' mode: `outputs_prefilling = self(input_ids=input_ids,
  use_cache=True)`, `past_key_values, logits = outputs_prefilling.past_key_values, outputs_prefilling.logits`,
  `cur_pos_id = past_key_values[0][0].shape[2]`, the step `self(input_ids=next_token, past_key_values=past_key_values,
  attention_mask=torch.ones(..., 1+past_key_values[0][0].shape[2]), position_ids=..., use_cache=True)`,
  `past_key_values = outputs.past_key_values`, then `past_key_values = truncate_kv_cache(past_key_values, start=...,
  end=...)` when over budget; before decoding, `modify_method_of_instance(self, "LlamaAttention", "forward",
  partial(llama_forward, attn_device='cuda'))`), easykv/utils.py (`modify_method_of_instance`: recursing through the
  instance's attributes, `setattr(instance, target_method_name, MethodType(new_method, instance))` on the modules of
  the named class) and easykv/llama_patch.py (`llama_forward(self, hidden_states, attention_mask=None,
  position_ids=None, past_key_value: Optional[Cache] = None, output_attentions=False, use_cache=False,
  attn_device='cuda', **kwargs)`: `query_states.view(bsz, q_len, self.num_heads, self.head_dim)`, `kv_seq_len +=
  past_key_value.get_usable_length(kv_seq_len, self.layer_idx)`, `past_key_value.update(key_states, value_states,
  self.layer_idx, {"sin": sin, "cos": cos})`).
Reduced: greedy instead of sampling, no attention-score bookkeeping (no `output_attentions`), a fixed eviction of
one position after the prompt, the decode step in a helper handed the cache (each site reached by its own probe);
the patched attention keeps its projections and its cache-length read (a helper of its own), the module walk is
`model.modules()`, no tensor-parallel slices, rotary embedding or eviction scores.
"""

from functools import partial
from types import MethodType

import torch
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-chat-hf").eval()


def modify_method_of_instance(instance, target_class_name, target_method_name, new_method):
    for module in instance.modules():
        if module.__class__.__name__ == target_class_name:
            setattr(module, target_method_name, MethodType(new_method, module))


def _kv_seq_len(self, kv_seq_len, past_key_value):
    if past_key_value is not None:
        kv_seq_len += past_key_value.get_usable_length(kv_seq_len, self.layer_idx)  # site: ek_usable_length
    return kv_seq_len


def llama_forward(self, hidden_states, attention_mask=None, position_ids=None, past_key_value=None,
                  output_attentions=False, use_cache=False, attn_device="cuda", **kwargs):
    bsz, q_len, _ = hidden_states.size()
    query_states = self.q_proj(hidden_states).view(bsz, q_len, self.num_heads, self.head_dim).transpose(1, 2)  # site: ek_patched_attention
    key_states = self.k_proj(hidden_states).view(bsz, q_len, self.num_key_value_heads, self.head_dim).transpose(1, 2)
    value_states = self.v_proj(hidden_states).view(bsz, q_len, self.num_key_value_heads, self.head_dim).transpose(1, 2)
    _kv_seq_len(self, key_states.shape[-2], past_key_value)
    attn_output = torch.nn.functional.scaled_dot_product_attention(query_states, key_states, value_states,
                                                                   is_causal=q_len > 1)
    return self.o_proj(attn_output.transpose(1, 2).reshape(bsz, q_len, -1)), None


def truncate_kv_cache(kv_cache, start, end):
    remain_id = torch.tensor(sorted(set(range(kv_cache[0][0].shape[2])) - set(range(start, end))))  # site: ek_truncate
    kv_cache = list(kv_cache)
    for i in range(len(kv_cache)):
        kv_cache[i] = list(kv_cache[i])
        kv_cache[i][0] = kv_cache[i][0][:, :, remain_id, :]
        kv_cache[i][1] = kv_cache[i][1][:, :, remain_id, :]
    return kv_cache


def decode_step(next_token, past_key_values, cur_pos_id, kv_len):
    outputs = model(input_ids=next_token, past_key_values=past_key_values,  # site: ek_decode_step
                    attention_mask=torch.ones(1, 1 + kv_len, dtype=torch.long),
                    position_ids=torch.LongTensor([cur_pos_id]).view(-1, 1), use_cache=True)
    return outputs


@torch.no_grad()
def prefill(input_ids):
    outputs_prefilling = model(input_ids=input_ids, use_cache=True)  # clean: ek_prefill
    past_key_values, logits = outputs_prefilling.past_key_values, outputs_prefilling.logits  # clean: ek_unpack
    return past_key_values, logits


@torch.no_grad()
def generate(input_ids, max_new_tokens=3):
    past_key_values, logits = prefill(input_ids)
    cur_pos_id = past_key_values[0][0].shape[2]  # site: ek_pos_id
    output_ids = []
    for _ in range(max_new_tokens):
        next_token = logits[:, -1:].argmax(-1)
        output_ids.append(next_token.item())
        outputs = model(input_ids=next_token, past_key_values=past_key_values, use_cache=True)  # clean: ek_step
        past_key_values = outputs.past_key_values  # clean: ek_keep_cache
        logits = outputs.logits
        cur_pos_id += 1
    return output_ids, past_key_values


prompt = torch.tensor([[1, 40, 41, 42, 43, 44]])


def probe_decode():
    with torch.no_grad():
        past_key_values, logits = prefill(prompt)
        for _ in range(3):
            outputs = model(input_ids=logits[:, -1:].argmax(-1), past_key_values=past_key_values, use_cache=True)
            past_key_values, logits = outputs.past_key_values, outputs.logits
    assert past_key_values.get_seq_length() == 9


def probe_generate():
    output_ids, cache = generate(prompt)
    assert len(output_ids) == 3


def probe_evict():
    past_key_values, _ = prefill(prompt)
    kept = truncate_kv_cache(past_key_values, start=2, end=3)
    assert kept[0][0].shape[2] == 5


def probe_step_after_eviction():
    past_key_values, logits = prefill(prompt)
    legacy = tuple((layer.keys, layer.values) for layer in past_key_values.layers)
    kept = truncate_kv_cache(legacy, start=2, end=3)
    with torch.no_grad():
        decode_step(logits[:, -1:].argmax(-1), kept, 6, 5)


def probe_patched_attention():
    modify_method_of_instance(model, "LlamaAttention", "forward", partial(llama_forward, attn_device="cuda"))
    with torch.no_grad():
        model(input_ids=prompt, use_cache=True)  # observe: ek_patched_attention


def probe_usable_length():
    past_key_values, _ = prefill(prompt)
    _kv_seq_len(model.model.layers[0].self_attn, 1, past_key_values)
