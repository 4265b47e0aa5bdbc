"""AutoGPTQ's quantized-model wrapper and fused Llama attention: `BaseGPTQForCausalLM` forwards `forward`,
`generate` (under `torch.inference_mode()` and autocast) and `prepare_inputs_for_generation` to the wrapped HF
model; with `inject_fused_attention=True` each decoder layer's attention is replaced by
`FusedLlamaAttentionForQuantizedModel`, whose forward takes the cache as `past_key_value=`, asks it
`get_usable_length(kv_seq_len, self.layer_idx)`, updates it with `past_key_value.update(k, v, layer_idx,
cache_kwargs)`, and returns `(attn_output, attn_weights, past_key_value)`.

Provenance (mechanisms read; this code is written here, not copied):
- AutoGPTQ/AutoGPTQ @9f7d37072917ab3a7545835f23e808294a542153
  auto_gptq/nn_modules/fused_llama_attn.py (FusedLlamaAttentionForQuantizedModel.forward(self, hidden_states,
  past_key_value=None, attention_mask=None, position_ids=None, output_attentions=False, use_cache=False,
  **kwargs): `kv_seq_len += past_key_value.get_usable_length(kv_seq_len, self.layer_idx)`, `cache_kwargs = {"sin":
  sin, "cos": cos}`, `past_key_value.update(...)`, `F.scaled_dot_product_attention(..., is_causal=attention_mask is
  None and q_len > 1)`, `return attn_output, attn_weights, past_key_value`) and auto_gptq/modeling/_base.py
  (BaseGPTQForCausalLM.forward / generate / prepare_inputs_for_generation shortcuts).
Reduced: no quantized kernels and no fused QKV matrix (the layer's own q/k/v projections), no rotary embedding,
the injection done by a loop over the decoder layers.
"""

import torch
import torch.nn.functional as F
from torch import nn
from transformers import AutoModelForCausalLM
from transformers.cache_utils import DynamicCache


class FusedLlamaAttentionForQuantizedModel(nn.Module):
    def __init__(self, attn, layer_idx):
        super().__init__()
        self.q_proj, self.k_proj, self.v_proj, self.o_proj = attn.q_proj, attn.k_proj, attn.v_proj, attn.o_proj
        self.head_dim = attn.head_dim
        self.layer_idx = layer_idx

    def forward(self, hidden_states, past_key_value=None, attention_mask=None, position_ids=None,
                output_attentions=False, use_cache=False, **kwargs):
        bsz, q_len, _ = hidden_states.size()
        query_states = self.q_proj(hidden_states).view(bsz, q_len, -1, self.head_dim).transpose(1, 2)
        key_states = self.k_proj(hidden_states).view(bsz, q_len, -1, self.head_dim).transpose(1, 2)
        value_states = self.v_proj(hidden_states).view(bsz, q_len, -1, self.head_dim).transpose(1, 2)
        kv_seq_len = key_states.shape[-2]
        if past_key_value is not None:
            kv_seq_len += past_key_value.get_usable_length(kv_seq_len, self.layer_idx)  # site: ag_usable_length
        if past_key_value is not None:
            key_states, value_states = past_key_value.update(key_states, value_states, self.layer_idx, {})
        groups = query_states.shape[1] // key_states.shape[1]
        key_states = key_states.repeat_interleave(groups, dim=1)
        value_states = value_states.repeat_interleave(groups, dim=1)
        attn_output = F.scaled_dot_product_attention(query_states, key_states, value_states, attn_mask=None,
                                                     is_causal=q_len > 1)
        attn_output = self.o_proj(attn_output.transpose(1, 2).reshape(bsz, q_len, -1))
        attn_weights = None
        return attn_output, attn_weights, past_key_value  # site: ag_attention_return


class BaseGPTQForCausalLM:
    def __init__(self, model):
        self.model = model

    @classmethod
    def from_quantized(cls, name, inject_fused_attention=False):
        model = AutoModelForCausalLM.from_pretrained(name)
        if inject_fused_attention:
            for idx, layer in enumerate(model.model.layers):
                layer.self_attn = FusedLlamaAttentionForQuantizedModel(layer.self_attn, idx)
        return cls(model)

    @property
    def device(self):
        return next(self.model.parameters()).device

    def forward(self, *args, **kwargs):
        return self.model(*args, **kwargs)  # clean: ag_forward

    def generate(self, **kwargs):
        with torch.inference_mode(), torch.amp.autocast(device_type=self.device.type):
            return self.model.generate(**kwargs)  # clean: ag_generate

    def prepare_inputs_for_generation(self, *args, **kwargs):
        return self.model.prepare_inputs_for_generation(*args, **kwargs)  # clean: ag_prepare_shortcut


input_ids = torch.tensor([[1, 31, 41, 59, 26]])


def probe_plain_generate():
    model = BaseGPTQForCausalLM.from_quantized("TheBloke/Llama-2-7B-GPTQ")
    out = model.generate(input_ids=input_ids, max_new_tokens=3, min_new_tokens=3, do_sample=False)
    assert out.shape == (1, 8)
    with torch.no_grad():
        logits = model.forward(input_ids=out.clone()).logits
    assert logits.shape[1] == 8


def probe_prepare_shortcut():
    model = BaseGPTQForCausalLM.from_quantized("TheBloke/Llama-2-7B-GPTQ")
    inputs = model.prepare_inputs_for_generation(input_ids, attention_mask=torch.ones_like(input_ids))
    assert inputs["input_ids"].shape == (1, 5)


def probe_fused_generate():
    model = BaseGPTQForCausalLM.from_quantized("TheBloke/Llama-2-7B-GPTQ", inject_fused_attention=True)
    with torch.inference_mode():
        out = model.model.generate(input_ids=input_ids, max_new_tokens=3, min_new_tokens=3, do_sample=False)  # observe: ag_attention_return
    assert out.shape == (1, 8)


def probe_fused_with_cache():
    model = BaseGPTQForCausalLM.from_quantized("TheBloke/Llama-2-7B-GPTQ", inject_fused_attention=True)
    hidden = model.model.model.embed_tokens(input_ids)
    attn = model.model.model.layers[0].self_attn
    out, _, cache = attn(hidden, past_key_value=DynamicCache())
    assert cache.get_seq_length() == 5
