"""MemoryLLM / M+ (a Llama with a self-updating memory pool): the causal-LM subclass runs its own loop over the
decoder layers, turning a missing cache into one with `DynamicCache.from_legacy_cache(past_key_values)` when
`use_cache` is set ("kept for BC"), prepending the memory tokens' hidden states to a layer only while that layer's
cache is empty (`past_key_values.get_seq_length(layer_idx=idx) == 0`), and handing each layer the cache as
`past_key_value=`.

Provenance (mechanisms read; this code is written here, not copied):
- wangyu-ustc/MemoryLLM @5acaf52d2e60087f6bc38a06063d7558ab9a2c2c
  modeling_mplus.py (`MPlus.forward`: `if use_cache and not isinstance(past_key_values, Cache): return_legacy_cache =
  True; past_key_values = DynamicCache.from_legacy_cache(past_key_values)`, `past_seen_tokens =
  past_key_values.get_seq_length()`, `if past_key_values is None or past_key_values.get_seq_length(layer_idx=idx) ==
  0:` then `cat_memory_and_hiddens`, `decoder_layer(hidden_states, attention_mask=causal_mask, position_ids=...,
  past_key_value=past_key_values, use_cache=use_cache, cache_position=cache_position)`).
Reduced: the memory pool is a fixed random tensor prepended only at the input (not per layer); transformers' own
Llama decoder layers and rotary embedding stand in for the file's copy of modeling_llama; no LTM retrieval, no
LoRA; the causal mask is left to the attention (`is_causal`), the prompt step only; the mask builder
(modeling_memoryllm.py's `_update_causal_mask`: `using_static_cache = isinstance(past_key_values, StaticCache)`,
`target_length = past_key_values.get_max_length()`) is kept apart, without the SDPA shortcut.
"""

import torch
from transformers import AutoModelForCausalLM
from transformers.cache_utils import Cache, DynamicCache, StaticCache

model = AutoModelForCausalLM.from_pretrained("YuWangX/mplus-8b")
model.eval()
NUM_TOKENS = 3
torch.manual_seed(0)
memory = torch.randn(1, NUM_TOKENS, model.config.hidden_size)


@torch.no_grad()
def mplus_forward(input_ids, past_key_values=None, use_cache=True):
    inputs_embeds = model.model.embed_tokens(input_ids)
    if use_cache and not isinstance(past_key_values, Cache):  # clean: ml_isinstance_cache
        past_key_values = DynamicCache.from_legacy_cache(past_key_values)  # site: ml_from_legacy
    past_seen_tokens = past_key_values.get_seq_length() if past_key_values is not None else 0  # clean: ml_seen
    hidden_states = inputs_embeds
    if past_key_values is None or past_key_values.get_seq_length(layer_idx=0) == 0:  # clean: ml_layer_empty
        hidden_states = torch.cat([memory, hidden_states], dim=1)
    cache_position = torch.arange(past_seen_tokens, past_seen_tokens + hidden_states.shape[1])
    position_ids = cache_position.unsqueeze(0)
    position_embeddings = model.model.rotary_emb(hidden_states, position_ids)
    for decoder_layer in model.model.layers:
        layer_outputs = decoder_layer(
            hidden_states,
            attention_mask=None,
            position_ids=position_ids,
            past_key_value=past_key_values,  # site: ml_layer_cache
            use_cache=use_cache,
            cache_position=cache_position,
            position_embeddings=position_embeddings,
        )
        hidden_states = layer_outputs[0] if isinstance(layer_outputs, tuple) else layer_outputs
    logits = model.lm_head(model.model.norm(hidden_states))
    return logits, past_key_values


def update_causal_mask(attention_mask, input_tensor, cache_position, past_key_values):
    past_seen_tokens = past_key_values.get_seq_length() if past_key_values is not None else 0  # clean: ml_mask_seen
    using_static_cache = isinstance(past_key_values, StaticCache)  # clean: ml_static_check
    dtype = input_tensor.dtype
    min_dtype = torch.finfo(dtype).min
    sequence_length = input_tensor.shape[1]
    if using_static_cache:
        target_length = past_key_values.get_max_length()  # site: ml_max_length
    else:
        target_length = (attention_mask.shape[-1] if isinstance(attention_mask, torch.Tensor)
                         else past_seen_tokens + sequence_length + 1)
    causal_mask = torch.full((sequence_length, target_length), fill_value=min_dtype, dtype=dtype)
    causal_mask = torch.triu(causal_mask, diagonal=1)
    causal_mask *= torch.arange(target_length) > cache_position.reshape(-1, 1)
    return causal_mask[None, None]


def probe_mask_dynamic():
    cache = DynamicCache()
    mask = update_causal_mask(torch.ones(1, 4), torch.zeros(1, 4, 8), torch.arange(4), cache)
    assert mask.shape == (1, 1, 4, 4)


def probe_mask_static():
    cache = StaticCache(config=model.config, max_cache_len=16)
    mask = update_causal_mask(torch.ones(1, 4), torch.zeros(1, 4, 8), torch.arange(4), cache)
    assert mask.shape == (1, 1, 4, 16)


def probe_prompt_no_cache():
    logits, cache = mplus_forward(torch.tensor([[1, 22, 33, 44]]))
    assert logits.shape[1] == NUM_TOKENS + 4


def probe_prompt_with_cache():
    logits, cache = mplus_forward(torch.tensor([[1, 22, 33, 44]]), past_key_values=DynamicCache())
    assert logits.shape[1] == NUM_TOKENS + 4


def probe_prompt_into_cache():
    logits, cache = mplus_forward(torch.tensor([[1, 22, 33, 44]]), past_key_values=DynamicCache())
    assert logits.shape[1] == NUM_TOKENS + 4
    assert cache.get_seq_length() == NUM_TOKENS + 4, (  # observe: ml_layer_cache
        f"ml_layer_cache: the layers wrote {cache.get_seq_length()} positions into the cache")
