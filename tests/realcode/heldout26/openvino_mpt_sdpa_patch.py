"""Optimum Intel (huggingface/optimum-intel), the OpenVINO exporter's MPT patch: for tracing, `MPTModelPatcher` swaps
every block's `forward` for `_mpt_block_forward` and every block's attention `forward` for
`_mpt_sdpa_attention_forward` (`types.MethodType`, originals kept as `_orig_forward`, restored on exit). The patched
block takes the model's `layer_past` and `cache_position` and hands them to the patched attention as
`past_key_value=layer_past, cache_position=cache_position`; the patched attention writes the new keys and values with
`past_key_value.update(key_states, value_states, self.layer_idx, {"cache_position": cache_position})`, reads
`past_key_value.get_seq_length()` for the query length, slices the ALiBi bias to it and runs
`scaled_dot_product_attention` with an additive mask.

Provenance (mechanisms read; this code is written here, not copied):
- huggingface/optimum-intel @e1de5beecfd0c3ae6047ea22cea4a4cad4307aff optimum/exporters/openvino/model_patcher.py
  (_mpt_sdpa_attention_forward, _mpt_block_forward, MPTModelPatcher.__enter__/__exit__; "Modified from
  transformers v4.48.0 modeling_mpt.py").
Reduced: a tiny MPT from a config; the `output_attentions` branch that calls the original attention is left out;
the patch is applied and removed by a small context manager instead of the exporter's patcher class; no tracing.
"""

import contextlib
import types

import torch
from transformers import MptConfig, MptForCausalLM

mpt = MptForCausalLM(MptConfig(vocab_size=320, d_model=32, n_heads=4, n_layers=2, max_seq_len=64)).eval()


def _mpt_sdpa_attention_forward(self, hidden_states, position_bias, past_key_value=None, attention_mask=None,  # clean: mp_attn_signature
                                cache_position=None):
    batch_size, seq_length = hidden_states.shape[:2]
    query_states, key_states, value_states = self.Wqkv(hidden_states).chunk(3, dim=2)
    query_states = query_states.reshape(batch_size, seq_length, self.n_heads, self.head_dim).transpose(1, 2)
    key_states = key_states.reshape(batch_size, seq_length, self.n_heads, self.head_dim).transpose(1, 2)
    value_states = value_states.reshape(batch_size, seq_length, self.n_heads, self.head_dim).transpose(1, 2)
    if past_key_value is not None:
        cache_kwargs = {"cache_position": cache_position}
        key_states, value_states = past_key_value.update(key_states, value_states, self.layer_idx,  # clean: mp_cache_update
                                                         cache_kwargs)
        pkv_seq_length = past_key_value.get_seq_length()  # clean: mp_seq_length
    key_length = key_states.shape[-2]
    query_length = seq_length if past_key_value is None else seq_length + pkv_seq_length
    attention_mask_sdpa = torch.ones((query_states.shape[0], query_states.shape[1], query_states.shape[2],
                                      key_states.shape[2]), dtype=query_states.dtype)
    if position_bias is not None:
        position_bias_query_index = max(0, position_bias.size(1) - query_length)
        position_bias_key_index = max(0, position_bias.size(2) - key_length)
        position_bias = position_bias[:, position_bias_query_index:, position_bias_key_index:]
        attention_mask_sdpa += position_bias
    attention_mask_sdpa.masked_fill_(attention_mask, torch.finfo(query_states.dtype).min)
    context_states = torch.nn.functional.scaled_dot_product_attention(
        query_states, key_states, value_states, attn_mask=attention_mask_sdpa, dropout_p=self.attn_dropout_p,
        scale=self.softmax_scale)
    context_states = context_states.permute(0, 2, 1, 3).contiguous().view(batch_size, seq_length, -1)
    return self.out_proj(context_states), None


def _mpt_block_forward(self, hidden_states, position_bias, attention_mask, layer_past=None, use_cache=False,  # clean: mp_block_signature
                       output_attentions=False, cache_position=None):
    layernorm_output = self.norm_1(hidden_states)
    residual = hidden_states
    attn_out = self.attn(layernorm_output, position_bias=position_bias, attention_mask=attention_mask,  # clean: mp_attn_call
                         past_key_value=layer_past, cache_position=cache_position)
    hidden_states = self.resid_attn_dropout(attn_out[0]) + residual
    layernorm_output = self.norm_2(hidden_states)
    residual = hidden_states
    return (self.ffn(layernorm_output, residual),)


@contextlib.contextmanager
def mpt_export_patch(model):
    for block in model.transformer.blocks:
        block._orig_forward = block.forward
        block.forward = types.MethodType(_mpt_block_forward, block)
        block.attn._orig_forward = block.attn.forward
        block.attn.forward = types.MethodType(_mpt_sdpa_attention_forward, block.attn)
    try:
        yield model
    finally:
        for block in model.transformer.blocks:
            block.forward = block._orig_forward
            block.attn.forward = block.attn._orig_forward


def probe_patched_prefill_and_step():
    with mpt_export_patch(mpt), torch.no_grad():
        out = mpt(torch.tensor([[3, 4, 5]]), use_cache=True)
        cache = out.past_key_values
        step = mpt(torch.tensor([[6]]), past_key_values=cache, use_cache=True)
    assert cache.get_seq_length() == 4 and step.logits.shape == (1, 1, 320)
