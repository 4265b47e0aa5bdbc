"""IPEX-LLM's optimized Llama: `convert_forward` swaps LlamaModel.forward for `llama_model_forward`, which picks the
project's cache class at the top of every call (FP8 `DynamicFp8Cache` when quantizing KV, else `DynamicNormalCache`)
with `from_legacy_cache` unless the cache already is one, then runs transformers' `LlamaModel.forward`. Both classes
subclass DynamicCache and override `update`: they keep a running count (`_seen_tokens` on 4.39+, `seen_tokens` on
4.37) and store each layer in `self.key_cache` / `self.value_cache` as pre-allocated strided buffers that later
tokens are appended into; `DynamicNormalCache.from_reserved` pre-allocates every layer for a known length.

Provenance (mechanisms read; this code is written here, not copied):
- intel-analytics/ipex-llm @69edc8b6f690ccaead62afb93397baba42fa9386
  python/llm/src/ipex_llm/transformers/kv.py (class DynamicNormalCache(DynamicCache): `KV_ALLOC_BLOCK_LENGTH = 256`,
  `def __init__(self, num_hidden_layers=None): super().__init__()`; update: `if key_states == []: return key_states,
  value_states`, `if layer_idx == 0: if hasattr(self, "_seen_tokens"): self._seen_tokens += seq_len else:
  self.seen_tokens += seq_len`, `if len(self.key_cache) <= layer_idx:` init and `self.key_cache.append(k_cache)`, else
  grow and `append_kv_cache`, `return self.key_cache[layer_idx], self.value_cache[layer_idx]`; from_reserved:
  `past_key_values = cls()`, `past_key_values.key_cache.append(k_cache)`), python/llm/src/ipex_llm/transformers/
  models/utils.py (init_kv_cache: `torch.empty(...)` storage and `as_strided` view at the current length;
  append_kv_cache) and python/llm/src/ipex_llm/transformers/models/llama.py (llama_model_forward: `elif (not
  use_quantize_kv and not use_compresskv and not isinstance(past_key_values, DynamicNormalCache)): past_key_values =
  DynamicNormalCache.from_legacy_cache(past_key_values)`, then `LlamaModel.forward(self=self, ...,
  past_key_values=past_key_values, use_cache=use_cache, ..., **kwargs)`).
The override's count and signature are one site here: its `seen_tokens` read raises on 4.57.6 and 5.23.0, and on
5.24.0 and 5.25.0 generate's call of `update` fails on the override's signature before the read.
Reduced: the FP8 and compressing classes are gone (one class), CPU buffers; the cache choice at the top of
llama_model_forward is a helper (`choose_cache`), reached by its own probe.
"""

import torch
from transformers import AutoModelForCausalLM
from transformers.cache_utils import DynamicCache
from transformers.models.llama.modeling_llama import LlamaModel


def init_kv_cache(batch_size, num_heads, head_dim, current_length, max_length, dtype, device):
    key_cache_storage = torch.empty(batch_size, num_heads, max_length, head_dim, dtype=dtype, device=device)
    value_cache_storage = torch.empty(batch_size, num_heads, max_length, head_dim, dtype=dtype, device=device)
    key_cache = key_cache_storage.as_strided((batch_size, num_heads, current_length, head_dim),
                                             key_cache_storage.stride(), storage_offset=0)
    value_cache = value_cache_storage.as_strided((batch_size, num_heads, current_length, head_dim),
                                                 value_cache_storage.stride(), storage_offset=0)
    return key_cache, value_cache


def append_kv_cache(cache_k, cache_v, key_states, value_states):
    new_size = (cache_k.size(0), cache_k.size(1), cache_k.size(2) + key_states.size(2), cache_k.size(3))
    new_cache_k = cache_k.as_strided(new_size, cache_k.stride(), storage_offset=0)
    new_cache_k[:, :, cache_k.size(2):cache_k.size(2) + key_states.size(2), :] = key_states
    new_cache_v = cache_v.as_strided(new_size, cache_v.stride(), storage_offset=0)
    new_cache_v[:, :, cache_v.size(2):cache_v.size(2) + key_states.size(2), :] = value_states
    return new_cache_k, new_cache_v


class DynamicNormalCache(DynamicCache):
    KV_ALLOC_BLOCK_LENGTH = 256

    def __init__(self, num_hidden_layers=None) -> None:
        super().__init__()  # clean: ix_base_init

    def update(self, key_states, value_states, layer_idx, cache_kwargs=None):  # observe: ix_seen_tokens
        if key_states == []:
            return key_states, value_states
        batch_size, num_heads, seq_len, head_dim = key_states.shape
        if layer_idx == 0:
            if hasattr(self, "_seen_tokens"):
                self._seen_tokens += seq_len
            else:
                self.seen_tokens += seq_len  # site: ix_seen_tokens
        if len(self.key_cache) <= layer_idx:
            k_cache, v_cache = init_kv_cache(batch_size, num_heads, head_dim, 0,
                                             key_states.size(2) + self.KV_ALLOC_BLOCK_LENGTH,
                                             key_states.dtype, key_states.device)
            k_cache, v_cache = append_kv_cache(k_cache, v_cache, key_states, value_states)
            self.key_cache.append(k_cache)
            self.value_cache.append(v_cache)
        else:
            k_cache, v_cache = append_kv_cache(self.key_cache[layer_idx], self.value_cache[layer_idx],
                                               key_states, value_states)
            self.key_cache[layer_idx] = k_cache
            self.value_cache[layer_idx] = v_cache
        return self.key_cache[layer_idx], self.value_cache[layer_idx]

    @classmethod
    def from_reserved(cls, layers, bsz, n_head, length, head_dim, dtype, device):
        past_key_values = cls()
        for _i in range(layers):
            k_cache, v_cache = init_kv_cache(bsz, n_head, head_dim, 0, length + cls.KV_ALLOC_BLOCK_LENGTH, dtype, device)
            past_key_values.key_cache.append(k_cache)  # site: ix_reserved_keys
            past_key_values.value_cache.append(v_cache)
        return past_key_values


def choose_cache(past_key_values, use_cache, use_quantize_kv=False, use_compresskv=False):
    if use_cache:
        if not use_quantize_kv and not use_compresskv and not isinstance(past_key_values, DynamicNormalCache):
            past_key_values = DynamicNormalCache.from_legacy_cache(past_key_values)  # site: ix_from_legacy
    return past_key_values


def llama_model_forward(self, input_ids=None, attention_mask=None, position_ids=None, past_key_values=None,
                        inputs_embeds=None, use_cache=None, output_attentions=None, output_hidden_states=None,
                        return_dict=None, cache_position=None, **extra):
    use_cache = use_cache if use_cache is not None else self.config.use_cache
    past_key_values = choose_cache(past_key_values, use_cache)
    kwargs = {"cache_position": cache_position} if cache_position is not None else {}
    return LlamaModel.forward(self=self, input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids,
                              past_key_values=past_key_values, inputs_embeds=inputs_embeds, use_cache=use_cache,
                              **kwargs)


model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-chat-hf", torch_dtype=torch.float32)
input_ids = torch.tensor([[1, 130, 131, 132]])


def probe_plain_generate():
    out = model.generate(input_ids, max_new_tokens=3, min_new_tokens=3, do_sample=False)  # clean: ix_plain_generate
    assert out.shape[1] == 7


def probe_choose():
    cache = choose_cache(None, use_cache=True)
    assert isinstance(cache, DynamicNormalCache)


def probe_own_cache_generate():
    cache = DynamicNormalCache()
    model.generate(input_ids, max_new_tokens=3, min_new_tokens=3, do_sample=False, past_key_values=cache)  # observe: ix_seen_tokens


def probe_reserved():
    cache = DynamicNormalCache.from_reserved(2, 1, 1, 8, 64, torch.float32, "cpu")
    assert len(cache) == 2


def probe_empty_cache():
    cache = DynamicNormalCache()
    assert cache.get_seq_length() == 0
