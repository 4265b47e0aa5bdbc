"""MHA2MLA (converting a multi-head-attention Llama into multi-head latent attention): keys split into a rotary part
(`k_r_proj`, the kept RoPE dimensions) and a low-rank content part (a joint `kv_proj` down- and up-projection of the
keys and values); `mha2mla_llama` installs its own `LlamaAttention.forward` (written from transformers 4.48's, with
`past_key_value` as the cache parameter and `**kwargs`) and its own `apply_rotary_pos_emb`; the forward concatenates
the rotary and content keys, stores them with `past_key_value.update(...)` when it gets a cache, then runs the
installed attention interface. The converted model is evaluated with `generate`.

Provenance (mechanisms read; this code is written here, not copied):
- JT-Ushio/MHA2MLA @7a56785ac2a814ec594b33d472a174693a55a952
  src/mha2mla/patching_llama.py (custom_LlamaAttention_forward(self, hidden_states, position_embeddings,
  attention_mask, past_key_value: Optional[Cache] = None, cache_position=None, **kwargs): `key_c_states, value_states
  = self.kv_proj.mha_forward(hidden_states)`, `key_r_states = self.k_r_proj(hidden_states)`, `query_r_states,
  key_r_states = modeling_llama.apply_rotary_pos_emb(...)`, `if past_key_value is not None: cache_kwargs = {"sin":
  sin, "cos": cos, "cache_position": cache_position}; key_states, value_states = past_key_value.update(key_states,
  value_states, self.layer_idx, cache_kwargs)`, `attention_interface = ALL_ATTENTION_FUNCTIONS[...]`, `return
  attn_output, attn_weights`; mha2mla_llama: `LlamaAttention.forward = custom_LlamaAttention_forward`),
  src/mha2mla/patching_qwen3.py (the same forward for Qwen3), eval/benchmark_latency_memory.py (`from
  transformers.cache_utils import DynamicCache, QuantizedCacheConfig, QuantizedCache`; prefill: `cache_config =
  QuantizedCacheConfig(**cache_config); past_key_values = QuantizedCache(cache_config)` or `DynamicCache()`,
  `inputs["cache_position"] = torch.arange(input_length)`, `outputs = model(**inputs,
  past_key_values=past_key_values, use_cache=True)`, `next_model_kwargs = model._update_model_kwargs_for_generation(
  outputs, inputs, is_encoder_decoder=False)`; eval_generated_lengths: `next_model_kwargs.pop("input_ids")`, `out =
  model.generate(next_input_ids, **next_model_kwargs, **generate_kwargs_curr)` with `min_new_tokens` and
  `max_new_tokens` set).
The benchmark also times the unconverted model, as here.
Reduced: the key split is a fixed half of the head (no 2-norm rank selection), the low-rank `kv_proj` is a random
down/up projection pair initialised from the model's own k/v weights, SDPA only; the benchmark's
quantized-cache import is made in its branch (the project imports it at the top of the script, so there the whole
benchmark stops at the import), no profilers, one small batch.
"""

import torch
from transformers import AutoModelForCausalLM
from transformers.models.llama import modeling_llama
from transformers.cache_utils import DynamicCache
from transformers.models.llama.modeling_llama import LlamaAttention


class LowRankKV(torch.nn.Module):
    def __init__(self, attn, rank=16):
        super().__init__()
        kv_dim = attn.k_proj.out_features
        self.down = torch.nn.Linear(attn.k_proj.in_features, rank, bias=False)
        self.up_k = torch.nn.Linear(rank, kv_dim // 2, bias=False)
        self.up_v = torch.nn.Linear(rank, kv_dim, bias=False)

    def mha_forward(self, hidden_states):
        c = self.down(hidden_states)
        return self.up_k(c), self.up_v(c)


def custom_LlamaAttention_forward(
    self,
    hidden_states,
    position_embeddings,
    attention_mask,
    past_key_value=None,  # site: mm_patched_forward
    cache_position=None,
    **kwargs,
):
    input_shape = hidden_states.shape[:-1]
    kv_shape = (*input_shape, self.config.num_key_value_heads, -1)
    q_shape = (*input_shape, self.config.num_attention_heads, -1)
    key_c_states, value_states = self.kv_proj.mha_forward(hidden_states)
    query_states = self.q_proj(hidden_states).view(q_shape).transpose(1, 2)
    value_states = value_states.view(kv_shape).transpose(1, 2)
    key_r_states = self.k_r_proj(hidden_states).view(kv_shape).transpose(1, 2)
    key_c_states = key_c_states.view(kv_shape).transpose(1, 2)
    half = key_r_states.size(-1)
    query_r_states, query_c_states = query_states[..., :half], query_states[..., half:]
    cos, sin = position_embeddings
    query_r_states, key_r_states = modeling_llama.apply_rotary_pos_emb(query_r_states, key_r_states, cos, sin)
    query_states = torch.cat([query_r_states, query_c_states], dim=-1)
    key_states = torch.cat([key_r_states, key_c_states], dim=-1)
    if past_key_value is not None:
        cache_kwargs = {"sin": sin, "cos": cos, "cache_position": cache_position}
        key_states, value_states = past_key_value.update(key_states, value_states, self.layer_idx, cache_kwargs)
    key_states = modeling_llama.repeat_kv(key_states, self.num_key_value_groups)
    value_states = modeling_llama.repeat_kv(value_states, self.num_key_value_groups)
    attn_output = torch.nn.functional.scaled_dot_product_attention(
        query_states, key_states, value_states, is_causal=query_states.shape[2] > 1, scale=self.scaling)
    attn_output = attn_output.transpose(1, 2).reshape(*input_shape, -1).contiguous()
    return self.o_proj(attn_output), None


def create_custom_apply_rotary_pos_emb(half):
    def custom_apply_rotary_pos_emb(q, k, cos, sin, position_ids=None, unsqueeze_dim=1):
        cos = cos[..., :half].unsqueeze(unsqueeze_dim)
        sin = sin[..., :half].unsqueeze(unsqueeze_dim)
        rotate = modeling_llama.rotate_half
        return (q * cos) + (rotate(q) * sin), (k * cos) + (rotate(k) * sin)
    return custom_apply_rotary_pos_emb


def mha2mla_llama(model):
    for layer in model.model.layers:
        attn = layer.self_attn
        attn.kv_proj = LowRankKV(attn)
        attn.k_r_proj = torch.nn.Linear(attn.k_proj.in_features, attn.k_proj.out_features // 2, bias=False)
    LlamaAttention.forward = custom_LlamaAttention_forward  # observe: mm_patched_forward
    modeling_llama.apply_rotary_pos_emb = create_custom_apply_rotary_pos_emb(model.config.head_dim // 2)


@torch.no_grad()
def prefill(model, inputs, cache_implementation, cache_kwargs):
    if cache_implementation == "quantized":
        from transformers.cache_utils import QuantizedCache, QuantizedCacheConfig  # site: mm_quantized_config
        cache_config = {"backend": cache_kwargs["backend"], "nbits": cache_kwargs["nbits"],
                        "compute_dtype": model.dtype, "device": model.device}
        cache_config = QuantizedCacheConfig(**cache_config)
        past_key_values = QuantizedCache(cache_config)
    else:
        past_key_values = DynamicCache()
    input_length = inputs["input_ids"].shape[1]
    inputs["cache_position"] = torch.arange(input_length)
    outputs = model(**inputs, past_key_values=past_key_values, use_cache=True)  # clean: mm_prefill_forward
    next_tokens = torch.argmax(outputs.logits[:, -1, :], dim=-1)
    next_input_ids = torch.cat([inputs["input_ids"], next_tokens[:, None]], dim=-1)
    next_model_kwargs = model._update_model_kwargs_for_generation(outputs, inputs, is_encoder_decoder=False)  # clean: mm_update_kwargs
    return next_input_ids, next_model_kwargs


@torch.no_grad()
def decode_benchmark(model, input_ids, cache_implementation="dynamic", nbits=None, max_new_tokens=4):
    generate_kwargs = {"do_sample": False, "temperature": 1.0, "top_p": 1.0}
    generate_kwargs_curr = generate_kwargs.copy()
    generate_kwargs_curr["min_new_tokens"] = max_new_tokens
    generate_kwargs_curr["max_new_tokens"] = max_new_tokens
    inputs = {"input_ids": input_ids, "attention_mask": torch.ones_like(input_ids)}
    next_input_ids, next_model_kwargs = prefill(model, inputs, cache_implementation, nbits)
    next_model_kwargs.pop("input_ids")
    return model.generate(next_input_ids, **next_model_kwargs, **generate_kwargs_curr)  # site: mm_decode_generate


model = AutoModelForCausalLM.from_pretrained("HuggingFaceTB/SmolLM-135M").eval()
prompt = torch.tensor([[1, 100, 101, 102, 103]])


def probe_benchmark_dynamic():
    out = decode_benchmark(model, torch.randint(3, 300, (2, 6)))
    assert out.shape == (2, 11)


def probe_prefill():
    inputs = {"input_ids": torch.tensor([[1, 160, 161, 162]]), "attention_mask": torch.ones(1, 4, dtype=torch.long)}
    next_input_ids, next_model_kwargs = prefill(model, inputs, "dynamic", None)
    cache = next_model_kwargs.get("cache", next_model_kwargs.get("past_key_values"))
    assert next_input_ids.shape == (1, 5) and cache.get_seq_length() == 4


def probe_benchmark_quantized():
    decode_benchmark(model, torch.randint(3, 300, (2, 6)), "quantized", {"backend": "quanto", "nbits": 4})


def probe_generate():
    mha2mla_llama(model)
    out = model.generate(prompt, max_new_tokens=3, min_new_tokens=3, do_sample=False, return_dict_in_generate=True)
    assert out.sequences.shape == (1, 8)
    assert out.past_key_values.get_seq_length() == 7, "mm_patched_forward: the converted attention never stored its keys"  # observe: mm_patched_forward
