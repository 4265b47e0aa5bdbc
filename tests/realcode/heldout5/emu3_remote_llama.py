"""A trust_remote_code multimodal model (modeling_*.py shipped with the checkpoint) adapted from a 4.36-era Llama:
its attention adds `past_key_value.get_usable_length(kv_seq_len, self.layer_idx)` to the key length before
updating the cache with the RoPE `cache_kwargs`; its `prepare_inputs_for_generation` asks a `Cache` for its
length, `seen_tokens` and `get_max_length()` (else reads a legacy tuple's `[0][0].shape[2]`) to cut the
unprocessed tokens and the mask; its `_reorder_cache` rebuilds the cache for beam search by iterating the
layers and `index_select`-ing every tensor of each layer.

Provenance (mechanisms read; this code is written here, not copied):
- baaivision/Emu3 @005719f6e5a58a638efd101c58a2e7258032f5b8 emu3/mllm/modeling_emu3.py (`Emu3Attention.forward`:
  `kv_seq_len = key_states.shape[-2]`, `kv_seq_len += past_key_value.get_usable_length(kv_seq_len,
  self.layer_idx)`, `cache_kwargs = {"sin": sin, "cos": cos}`, `past_key_value.update(key_states, value_states,
  self.layer_idx, cache_kwargs)`; `Emu3ForCausalLM.prepare_inputs_for_generation`: `if isinstance(
  past_key_values, Cache): cache_length = past_key_values.get_seq_length(); past_length =
  past_key_values.seen_tokens; max_cache_length = past_key_values.get_max_length()` else `past_key_values[0][0].
  shape[2]`, then `input_ids[:, past_length:]` and the model inputs dict; `_reorder_cache`: `for layer_past in
  past_key_values: reordered_past += (tuple(past_state.index_select(0, beam_idx.to(past_state.device)) for
  past_state in layer_past),)`)
Reduced: the model is a Llama subclass (the remote module's decoder is Llama's); the attention is a small
module without RoPE, run on its own with a cache; the three length reads share one line; the tokenizers, the
vision tokenizer and the classifier-free guidance are left out.
"""

import math

import torch
from torch import nn
from transformers import DynamicCache, LlamaForCausalLM
from transformers.cache_utils import Cache


class Emu3Attention(nn.Module):
    def __init__(self, hidden_size, num_heads, layer_idx):
        super().__init__()
        self.layer_idx = layer_idx
        self.num_heads = num_heads
        self.head_dim = hidden_size // num_heads
        self.q_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.k_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.v_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.o_proj = nn.Linear(hidden_size, hidden_size, bias=False)

    def forward(self, hidden_states, past_key_value=None):
        bsz, q_len, _ = hidden_states.size()
        query_states = self.q_proj(hidden_states).view(bsz, q_len, self.num_heads, self.head_dim).transpose(1, 2)
        key_states = self.k_proj(hidden_states).view(bsz, q_len, self.num_heads, self.head_dim).transpose(1, 2)
        value_states = self.v_proj(hidden_states).view(bsz, q_len, self.num_heads, self.head_dim).transpose(1, 2)
        kv_seq_len = key_states.shape[-2]
        if past_key_value is not None:
            kv_seq_len += past_key_value.get_usable_length(kv_seq_len, self.layer_idx)  # site: em_usable_length
            cache_kwargs = {"sin": None, "cos": None}
            key_states, value_states = past_key_value.update(key_states, value_states, self.layer_idx, cache_kwargs)
        attn_weights = torch.matmul(query_states, key_states.transpose(2, 3)) / math.sqrt(self.head_dim)
        if attn_weights.size() != (bsz, self.num_heads, q_len, kv_seq_len):
            raise ValueError(f"Attention weights should be of size {(bsz, self.num_heads, q_len, kv_seq_len)}")
        attn_output = torch.matmul(attn_weights.softmax(-1), value_states)
        return self.o_proj(attn_output.transpose(1, 2).reshape(bsz, q_len, -1)), past_key_value


class Emu3ForCausalLM(LlamaForCausalLM):
    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, attention_mask=None,
                                      inputs_embeds=None, **kwargs):
        if past_key_values is not None:
            if isinstance(past_key_values, Cache):
                cache_length, past_length, max_cache_length = past_key_values.get_seq_length(), past_key_values.seen_tokens, past_key_values.get_max_length()  # site: em_cache_lengths
            else:
                cache_length = past_length = past_key_values[0][0].shape[2]
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

    @staticmethod
    def _reorder_cache(past_key_values, beam_idx):
        reordered_past = ()
        for layer_past in past_key_values:
            reordered_past += (tuple(past_state.index_select(0, beam_idx.to(past_state.device)) for past_state in layer_past),)  # site: em_reorder
        return reordered_past


prompt = torch.tensor([[1, 80, 81, 82, 83]])


def probe_attention():
    attn = Emu3Attention(64, 2, layer_idx=0)
    cache = DynamicCache()
    out, cache = attn(torch.randn(1, 4, 64), past_key_value=cache)
    assert out.shape == (1, 4, 64) and cache.get_seq_length() == 4


def probe_generate():
    model = Emu3ForCausalLM.from_pretrained("BAAI/Emu3-Chat")
    out = model.generate(prompt, attention_mask=torch.ones_like(prompt), max_new_tokens=4, min_new_tokens=4,
                         do_sample=False, return_dict_in_generate=True)
    assert out.sequences.shape == (1, 9) and out.past_key_values.get_seq_length() == 8


def probe_reorder():
    model = Emu3ForCausalLM.from_pretrained("BAAI/Emu3-Chat")
    with torch.no_grad():
        cache = model(prompt.repeat(2, 1), use_cache=True).past_key_values
    reordered = Emu3ForCausalLM._reorder_cache(cache, torch.tensor([1, 1]))
    assert len(reordered) == 2 and reordered[0][0].shape == (2, 1, 5, 64)
