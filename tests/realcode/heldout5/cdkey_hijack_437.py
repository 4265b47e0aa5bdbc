"""The first version of the same KV-compression project, written against transformers 4.37: Llama's attention forward
and `prepare_inputs_for_generation` are replaced. The attention takes the cache as `past_key_value`, adds
`get_usable_length(...)` to the key length unless it tracks the length itself (`self.kv_seq_len`), stores the
compressed prompt at prefill, and at the decode compression step writes the compressed keys and values into
`past_key_value.key_cache[layer_idx]` / `.value_cache[layer_idx]`; it returns `(attn_output, attn_weights,
past_key_value)`. The generation hook resets the tracked lengths when there is no cache and reads a `Cache`'s
length, `seen_tokens` and `get_max_length()`.

Provenance (mechanisms read; this code is written here, not copied):
- wrnwwrnw/KEY-correcting @1ed37b74efbbac49ed746403f04752f3ee070d86 cdkey/monkeypatch/llama_hijack_4_37.py
  (`llama_flash_attn2_forward(self, hidden_states, attention_mask=None, position_ids=None, past_key_value=None,
  output_attentions=False, use_cache=False, **kwargs)`: `kv_seq_len += past_key_value.get_usable_length(kv_seq_len,
  self.layer_idx)` when `self.kv_seq_len` is 0 or missing, prefill `past_key_value.update(key_states_compress,
  value_states_compress, self.layer_idx, cache_kwargs)`, decode `past_key_value.update(...)` then at the compression
  step `past_key_value.key_cache[self.layer_idx] = key_states_compress` and `past_key_value.value_cache[
  self.layer_idx] = value_states_compress`, `return attn_output, attn_weights, past_key_value`;
  `prepare_inputs_for_generation_llama`: `layer.self_attn.kv_seq_len = 0` for every layer when `past_key_values
  is None`, `cache_length = past_key_values.get_seq_length()`, `past_length = past_key_values.seen_tokens`,
  `max_cache_length = past_key_values.get_max_length()`)
- wrnwwrnw/KEY-correcting @1ed37b74efbbac49ed746403f04752f3ee070d86 cdkey/monkeypatch/monkeypatch.py (both are
  assigned over `LlamaAttention.forward` / `LlamaForCausalLM.prepare_inputs_for_generation`)
Reduced: no rotary embedding (the original calls the attention's own `rotary_emb`), scaled-dot-product attention
for flash-attention, a keep-the-last-tokens cluster, the FAISS index left out; the hook's three length reads
share one line; the compression writes both lists in one statement.
"""

import torch
import transformers
from transformers import AutoModelForCausalLM, DynamicCache
from transformers.cache_utils import Cache
from transformers.models.llama.modeling_llama import repeat_kv

COMPRESS_AT = 2


class KVCluster:
    def __init__(self, max_capacity=4):
        self.max_capacity = max_capacity

    def update_kv(self, key_states, value_states):
        return key_states[..., -self.max_capacity:, :], value_states[..., -self.max_capacity:, :]


def init_cdkey(self):
    if not hasattr(self, "kv_cluster"):
        self.kv_cluster = KVCluster()


def llama_flash_attn2_forward(self, hidden_states, attention_mask=None, position_ids=None, past_key_value=None,  # site: cd_attn_hook
                              output_attentions=False, use_cache=False, **kwargs):
    init_cdkey(self)
    if not hasattr(llama_flash_attn2_forward, "count2"):
        llama_flash_attn2_forward.count2 = 0
    bsz, q_len, _ = hidden_states.size()
    query_states = self.q_proj(hidden_states).view(bsz, q_len, -1, self.head_dim).transpose(1, 2)
    key_states = self.k_proj(hidden_states).view(bsz, q_len, -1, self.head_dim).transpose(1, 2)
    value_states = self.v_proj(hidden_states).view(bsz, q_len, -1, self.head_dim).transpose(1, 2)
    kv_seq_len = key_states.shape[-2]
    if past_key_value is not None:
        if getattr(self, "kv_seq_len", 0) != 0:
            kv_seq_len += self.kv_seq_len
        else:
            kv_seq_len += past_key_value.get_usable_length(kv_seq_len, self.layer_idx)  # site: cd_usable_length
    key_states = repeat_kv(key_states, self.num_key_value_groups)
    value_states = repeat_kv(value_states, self.num_key_value_groups)
    attn_keys, attn_values = key_states, value_states
    if past_key_value is not None:
        cache_kwargs = {"sin": None, "cos": None}
        if key_states.shape[-2] == kv_seq_len:
            self.kv_seq_len = kv_seq_len
            compressed_k, compressed_v = self.kv_cluster.update_kv(key_states, value_states)
            past_key_value.update(compressed_k, compressed_v, self.layer_idx, cache_kwargs)
        else:
            if self.layer_idx == 0:
                llama_flash_attn2_forward.count2 += 1
            self.kv_seq_len += q_len
            attn_keys, attn_values = past_key_value.update(key_states, value_states, self.layer_idx, cache_kwargs)
            if llama_flash_attn2_forward.count2 == COMPRESS_AT:
                compressed_k, compressed_v = self.kv_cluster.update_kv(attn_keys, attn_values)
                past_key_value.key_cache[self.layer_idx], past_key_value.value_cache[self.layer_idx] = compressed_k, compressed_v  # site: cd_key_cache_write
    attn_output = torch.nn.functional.scaled_dot_product_attention(query_states, attn_keys, attn_values, is_causal=q_len > 1)
    attn_output = self.o_proj(attn_output.transpose(1, 2).reshape(bsz, q_len, -1))
    return attn_output, None, past_key_value


def prepare_inputs_for_generation_llama(self, input_ids, past_key_values=None, attention_mask=None,
                                        inputs_embeds=None, **kwargs):
    if past_key_values is None:
        for layer in self.model.layers:
            layer.self_attn.kv_seq_len = 0
    if past_key_values is not None:
        if isinstance(past_key_values, Cache):
            cache_length, past_length, max_cache_length = past_key_values.get_seq_length(), past_key_values.seen_tokens, past_key_values.get_max_length()  # site: cd_prepare_lengths
        else:
            cache_length = past_length = self.model.layers[0].self_attn.kv_seq_len
            max_cache_length = None
        if attention_mask is not None and attention_mask.shape[1] > input_ids.shape[1]:
            input_ids = input_ids[:, -(attention_mask.shape[1] - past_length):]
        elif past_length < input_ids.shape[1]:
            input_ids = input_ids[:, past_length:]
        if max_cache_length is not None and attention_mask is not None and cache_length + input_ids.shape[1] > max_cache_length:
            attention_mask = attention_mask[:, -max_cache_length:]
    position_ids = kwargs.get("position_ids", None)
    if attention_mask is not None and position_ids is None:
        position_ids = attention_mask.long().cumsum(-1) - 1
        position_ids.masked_fill_(attention_mask == 0, 1)
        if past_key_values:
            position_ids = position_ids[:, -input_ids.shape[1]:]
    model_inputs = {"input_ids": input_ids}
    model_inputs.update({"position_ids": position_ids, "past_key_values": past_key_values,
                         "use_cache": kwargs.get("use_cache"), "attention_mask": attention_mask})
    return model_inputs


def replace_llama_attention():
    transformers.models.llama.modeling_llama.LlamaAttention.forward = llama_flash_attn2_forward


def replace_llama_hook():
    transformers.models.llama.modeling_llama.LlamaForCausalLM.prepare_inputs_for_generation = prepare_inputs_for_generation_llama


prompt = torch.tensor([[1, 110, 111, 112, 113, 114]])
MODEL = "meta-llama/Llama-2-7b-chat-hf"


def probe_prefill_direct():
    model = AutoModelForCausalLM.from_pretrained(MODEL)
    attn = model.model.layers[0].self_attn
    with torch.no_grad():
        llama_flash_attn2_forward(attn, model.model.embed_tokens(prompt), past_key_value=DynamicCache())


def probe_decode_compress():
    model = AutoModelForCausalLM.from_pretrained(MODEL)
    attn = model.model.layers[0].self_attn
    cache = DynamicCache()
    cache.update(torch.zeros(1, 2, 4, 64), torch.zeros(1, 2, 4, 64), 0)
    attn.kv_seq_len = 4
    step = model.model.embed_tokens(torch.tensor([[115]]))
    with torch.no_grad():
        for _ in range(COMPRESS_AT):
            llama_flash_attn2_forward(attn, step, past_key_value=cache)
    assert cache.get_seq_length(0) == 4


def probe_model_forward():
    replace_llama_attention()
    model = AutoModelForCausalLM.from_pretrained(MODEL)
    with torch.no_grad():
        out = model(prompt, use_cache=True)  # observe: cd_attn_hook
    assert out.past_key_values.get_seq_length() == 4


def probe_generate_hook():
    replace_llama_hook()
    model = AutoModelForCausalLM.from_pretrained(MODEL)
    out = model.generate(prompt, attention_mask=torch.ones_like(prompt), max_new_tokens=3, min_new_tokens=3,
                         do_sample=False)
    assert out.shape == (1, 9)
