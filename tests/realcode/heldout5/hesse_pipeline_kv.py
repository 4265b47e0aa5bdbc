"""A tensor-parallel pipeline engine that lifts a Llama checkpoint's weights out of the Hugging Face modules and runs
its own decoding with its own KV store: `KV_Cache` holds `k_cache`/`v_cache` buffers of
[layers, batch, kv_heads, max_length, head_dim], writes new keys at `storage_ids` with `index_copy_`, gathers
accepted positions, has its own `get_usable_length(layer_idx, input_length)` and `clear()`; the layers attend
over the whole buffer with an additive mask.

Provenance (mechanisms read; this code is written here, not copied):
- jianc99/Hesse @1485f9bc649c3d9ff3159aeb174862a54c1b096a Engine/llm_pipe.py (`class KV_Cache`: `self.k_cache =
  torch.zeros(config.num_hidden_layers, batch_size, end-start, max_length, head_dim)`, `update_kv_cache(new_k_cache,
  new_v_cache, layer_idx, storage_ids)`: `self.k_cache[layer_idx].index_copy_(dim=-2, index=storage_ids,
  source=new_k_cache)` returning the layer's buffers, `gather_kv(indices)`, `clear()`, `get_usable_length(
  layer_idx, input_length)`, `set_kv_len`; `LLMLayer.init_parameters(hf_layer)`: `hf_layer.self_attn.q_proj.
  weight.detach()` ...; `LLM.init_parameters`: `LlamaForCausalLM.from_pretrained(model_name, torch_dtype=...)`,
  `hf_model.model.embed_tokens.weight`, `hf_model.lm_head.weight`; `layer_compute`: `self.kv_cache.update_kv_cache(
  key_states, value_states, layer_idx, storage_ids)`, `repeat_kv`, masked softmax attention)
Reduced: one process (no process groups or all-reduce), no rotary embedding (the original reads the HF rotary
module's cos/sin caches), no CUDA graphs; the MLP and norms as in the original.
"""

import math

import torch
import torch.nn.functional as F
from transformers import LlamaConfig, LlamaForCausalLM
from transformers.models.llama.modeling_llama import repeat_kv


def layer_norm(hidden_states, eps, weight):
    hidden_states = hidden_states.to(torch.float32)
    variance = hidden_states.pow(2).mean(-1, keepdim=True)
    return weight * (hidden_states * torch.rsqrt(variance + eps))


class KV_Cache:
    def __init__(self, config, batch_size=1, max_length=32, dtype=torch.float32):
        self.num_layers = config.num_hidden_layers
        head_dim = config.hidden_size // config.num_attention_heads
        shape = (config.num_hidden_layers, batch_size, config.num_key_value_heads, max_length, head_dim)
        self.k_cache = torch.zeros(shape, dtype=dtype)  # clean: hs_own_buffer
        self.v_cache = torch.zeros(shape, dtype=dtype)
        self.kv_offset = 0

    def update_kv_cache(self, new_k_cache, new_v_cache, layer_idx, storage_ids):
        self.k_cache[layer_idx].index_copy_(dim=-2, index=storage_ids, source=new_k_cache)  # clean: hs_own_index_copy
        self.v_cache[layer_idx].index_copy_(dim=-2, index=storage_ids, source=new_v_cache)
        return self.k_cache[layer_idx], self.v_cache[layer_idx]

    def gather_kv(self, indices):
        self.k_cache[..., :len(indices), :] = self.k_cache[..., indices, :]
        self.v_cache[..., :len(indices), :] = self.v_cache[..., indices, :]
        self.kv_offset = len(indices)

    def get_usable_length(self, layer_idx, input_length):
        if layer_idx == self.num_layers - 1:
            return self.kv_offset
        return self.kv_offset + input_length

    def set_kv_len(self, kv_len):
        self.kv_offset = kv_len

    def clear(self):
        self.k_cache.zero_()
        self.v_cache.zero_()
        self.kv_offset = 0


class LLM:
    def __init__(self, model_name, max_length=32):
        self.config = LlamaConfig.from_pretrained(model_name)
        self.max_length = max_length
        self.kv_cache = KV_Cache(self.config, max_length=max_length)  # clean: hs_own_cache
        hf_model = LlamaForCausalLM.from_pretrained(model_name, torch_dtype=torch.float32)
        self.embed_tokens = hf_model.model.embed_tokens.weight.detach()
        self.lm_head = hf_model.lm_head.weight.detach()
        self.norm_weight, self.norm_eps = hf_model.model.norm.weight.detach(), hf_model.model.norm.variance_epsilon
        self.layers = [self._lift(layer) for layer in hf_model.model.layers]
        self.num_heads = self.config.num_attention_heads
        self.head_dim = self.config.hidden_size // self.num_heads
        self.groups = self.num_heads // self.config.num_key_value_heads

    @staticmethod
    def _lift(hf_layer):
        attn, mlp = hf_layer.self_attn, hf_layer.mlp
        return {"wq": attn.q_proj.weight.detach(), "wk": attn.k_proj.weight.detach(), "wv": attn.v_proj.weight.detach(),
                "wo": attn.o_proj.weight.detach(), "gate": mlp.gate_proj.weight.detach(), "up": mlp.up_proj.weight.detach(),
                "down": mlp.down_proj.weight.detach(), "ln1": (hf_layer.input_layernorm.weight.detach(), hf_layer.input_layernorm.variance_epsilon),
                "ln2": (hf_layer.post_attention_layernorm.weight.detach(), hf_layer.post_attention_layernorm.variance_epsilon)}

    @torch.inference_mode()
    def layer_compute(self, layer, layer_idx, hidden_states, attention_mask, storage_ids):
        residual = hidden_states
        bsz, q_len, _ = hidden_states.size()
        hidden_states = layer_norm(hidden_states, layer["ln1"][1], layer["ln1"][0])
        query_states = F.linear(hidden_states, layer["wq"]).view(bsz, q_len, -1, self.head_dim).transpose(1, 2)
        key_states = F.linear(hidden_states, layer["wk"]).view(bsz, q_len, -1, self.head_dim).transpose(1, 2)
        value_states = F.linear(hidden_states, layer["wv"]).view(bsz, q_len, -1, self.head_dim).transpose(1, 2)
        key_states, value_states = self.kv_cache.update_kv_cache(key_states, value_states, layer_idx, storage_ids)  # clean: hs_update_call
        key_states = repeat_kv(key_states, self.groups)
        value_states = repeat_kv(value_states, self.groups)
        attn_weights = torch.matmul(query_states, key_states.transpose(2, 3)) / math.sqrt(self.head_dim) + attention_mask
        hidden_states = torch.matmul(attn_weights.softmax(-1), value_states).transpose(1, 2).reshape(bsz, q_len, -1)
        hidden_states = residual + F.linear(hidden_states, layer["wo"])
        residual = hidden_states
        hidden_states = layer_norm(hidden_states, layer["ln2"][1], layer["ln2"][0])
        hidden_states = F.linear(F.silu(F.linear(hidden_states, layer["gate"])) * F.linear(hidden_states, layer["up"]), layer["down"])
        return residual + hidden_states

    @torch.inference_mode()
    def inference(self, input_ids, attention_mask, storage_ids):
        hidden_states = F.embedding(input_ids, self.embed_tokens)
        for idx, layer in enumerate(self.layers):
            hidden_states = self.layer_compute(layer, idx, hidden_states, attention_mask, storage_ids)
        hidden_states = layer_norm(hidden_states, self.norm_eps, self.norm_weight)
        return F.linear(hidden_states, self.lm_head)


def causal_mask(q_len, offset, max_length):
    mask = torch.full((q_len, max_length), float("-inf"))
    for i in range(q_len):
        mask[i, : offset + i + 1] = 0.0
    return mask[None, None]


def probe_prefill_decode():
    llm = LLM("meta-llama/Llama-2-7b-hf")
    prompt = torch.tensor([[1, 7, 8, 9]])
    logits = llm.inference(prompt, causal_mask(4, 0, 32), torch.arange(4))
    llm.kv_cache.set_kv_len(4)
    step = llm.inference(torch.tensor([[10]]), causal_mask(1, 4, 32), torch.tensor([4]))
    usable = llm.kv_cache.get_usable_length(0, 1)  # clean: hs_own_usable_length
    assert logits.shape == (1, 4, 320) and step.shape == (1, 1, 320) and usable == 5


def probe_gather_clear():
    llm = LLM("meta-llama/Llama-2-7b-hf")
    llm.inference(torch.tensor([[1, 7, 8, 9]]), causal_mask(4, 0, 32), torch.arange(4))
    llm.kv_cache.gather_kv([0, 2])  # clean: hs_own_gather
    assert llm.kv_cache.kv_offset == 2
    llm.kv_cache.clear()  # clean: hs_own_clear
    assert float(llm.kv_cache.k_cache.abs().sum()) == 0.0
