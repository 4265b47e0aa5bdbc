"""SqueezeAttention's layer-wise KV budget for Llama (written against transformers 4.36-4.38): the converter swaps the
model's attention for its own `LlamaAttention_squeeze`, which takes the layer's cache as a legacy `(key, value)`
pair (`past_key_value[0].shape[-2]` for the cached length, `torch.cat([past_key_value[0], key_states], dim=2)`),
returns `(attn_output, attn_weights, past_key_value)` and keeps only its budget of tokens; the module imports the
4.3x Llama helpers it reuses (`LlamaLinearScalingRotaryEmbedding`, `LlamaDynamicNTKScalingRotaryEmbedding`,
`LlamaFlashAttention2`, ...) from `transformers.models.llama.modeling_llama`.

Provenance (mechanisms read; this code is written here, not copied):
- hetailang/SqueezeAttention @a1933d18b09c668312cbabdfd7b1fa73888c0f6f
  utils_hh/modify_llama_drop.py (the import block from `transformers.models.llama.modeling_llama`;
  `LlamaAttention_squeeze.forward(self, hidden_states, attention_mask=None, position_ids=None, past_key_value=None,
  output_attentions=False, use_cache=False, **kwargs)`: `kv_seq_len += past_key_value[0].shape[-2]`, the
  concatenation with the cached pair, `past_key_value = (key_states, value_states) if use_cache else None`, `return
  attn_output, attn_weights, past_key_value`; `convert_squeeze_llama` replacing modules recursively), pred.py
  (`model = ENABLE_squeeze_FUNCTIONS[model_arch](model, config)` then `model.generate(...)`).
Reduced: the converter replaces each decoder layer's `self_attn` (the original swaps the whole LlamaModel for its own
copy, whose layers call this attention); no budget clustering (KMeans over layer importance), no RoPE shift; the
import block moved into a helper reached by its own probe; the attention's own cache arithmetic also exercised
directly with a legacy pair.
"""

import torch
from torch import nn
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("togethercomputer/LLaMA-2-7B-32K")
prompt = torch.tensor([[1, 21, 32, 43, 54]])


def legacy_llama_parts():
    from transformers.models.llama.modeling_llama import (  # site: sq_removed_import
        LlamaDynamicNTKScalingRotaryEmbedding,
        LlamaFlashAttention2,
        LlamaLinearScalingRotaryEmbedding,
        repeat_kv,
    )
    return LlamaLinearScalingRotaryEmbedding, LlamaDynamicNTKScalingRotaryEmbedding, LlamaFlashAttention2, repeat_kv


class LlamaAttention_squeeze(nn.Module):
    def __init__(self, attn, config):
        super().__init__()
        self.config = config
        self.num_heads = config.num_attention_heads
        self.head_dim = config.hidden_size // self.num_heads
        self.num_key_value_heads = config.num_key_value_heads
        self.q_proj, self.k_proj, self.v_proj, self.o_proj = attn.q_proj, attn.k_proj, attn.v_proj, attn.o_proj

    def forward(self, hidden_states, attention_mask=None, position_ids=None, past_key_value=None,
                output_attentions=False, use_cache=False, **kwargs):
        bsz, q_len, _ = hidden_states.size()
        query_states = self.q_proj(hidden_states).view(bsz, q_len, self.num_heads, self.head_dim).transpose(1, 2)
        key_states = self.k_proj(hidden_states).view(bsz, q_len, self.num_key_value_heads, self.head_dim).transpose(1, 2)
        value_states = self.v_proj(hidden_states).view(bsz, q_len, self.num_key_value_heads,
                                                       self.head_dim).transpose(1, 2)
        kv_seq_len = key_states.shape[-2]
        if past_key_value is not None:
            kv_seq_len += past_key_value[0].shape[-2]  # clean: sq_pair_length
            key_states = torch.cat([past_key_value[0], key_states], dim=2)
            value_states = torch.cat([past_key_value[1], value_states], dim=2)
        past_key_value = (key_states, value_states) if use_cache else None
        groups = self.num_heads // self.num_key_value_heads
        k = key_states.repeat_interleave(groups, dim=1)
        v = value_states.repeat_interleave(groups, dim=1)
        attn_weights = (query_states @ k.transpose(2, 3)) / self.head_dim ** 0.5
        attn_output = (attn_weights.softmax(-1) @ v).transpose(1, 2).reshape(bsz, q_len, -1)
        return self.o_proj(attn_output), attn_weights, past_key_value


def convert_squeeze_llama(model, config):
    for layer in model.model.layers:
        layer.self_attn = LlamaAttention_squeeze(layer.self_attn, config)  # site: sq_swap_attention
    return model


@torch.no_grad()
def own_pair_step(attn):
    h = torch.randn(1, 3, model.config.hidden_size)
    _, _, pair = attn(h, use_cache=True)
    out, _, pair = attn(torch.randn(1, 1, model.config.hidden_size), past_key_value=pair, use_cache=True)
    return out, pair


def probe_import_block():
    legacy_llama_parts()


def probe_own_pair():
    attn = LlamaAttention_squeeze(model.model.layers[0].self_attn, model.config)
    out, pair = own_pair_step(attn)
    assert pair[0].shape[2] == 4


def probe_generate_converted():
    convert_squeeze_llama(model, model.config)
    model.generate(prompt, max_new_tokens=3, min_new_tokens=3, do_sample=False)  # observe: sq_swap_attention
