"""Cache steering (one-shot steering of a model through its KV cache, Belitsky et al. 2025): contrastive prompt pairs
are run through the model with a fresh DynamicCache each, the keys and values of the chosen token are read from
`cache.key_cache[layer]` / `cache.value_cache[layer]` and their differences averaged into per-layer steering vectors;
at generation time the prompt minus its last token is prefilled into a DynamicCache, the vectors are added in place to
that cache's last position, and `generate` continues from the steered cache.

Provenance (mechanisms read; this code is written here, not copied):
- nagyist/cache-steering @fcf35060076dbe44293d5e88c264aefa2f43f14d (a public copy of the paper's code)
  src/steering/cache_steering.py (`extract_steering_kv`: `cache_positive, cache_negative = DynamicCache(),
  DynamicCache()`, `model(**pos_tokens, output_hidden_states=True, past_key_values=cache_positive)`, `for layer_id in
  range(len(cache_positive.value_cache))`, `cache_positive.value_cache[layer_id][batch_indices, :, pos_indices, :]`,
  the same for `key_cache`, the mean of the differences; `generate_with_cache_steering`: `precompute_kv_cache` then
  `steer_kv_cache` then `model.generate(tokens, return_dict_in_generate=True, past_key_values=past_key_values,
  **kwargs)`; `precompute_kv_cache`: `past_key_values = DynamicCache()`, `tokens[:, :-1]`, its position ids, `model(
  **cache_input, past_key_values=past_key_values, use_cache=True)`; `steer_kv_cache_layer`:
  `cache.value_cache[layer_idx][:, :, application_token_idx, :] += sv * steering_config.c_values`, the same for keys).
Reduced: one contrastive pair, no padding, clustering or special appended token; the config is a small dataclass;
the key read and the layer loop of the extraction split into two helpers (each reached by its own probe).
"""

from dataclasses import dataclass

import torch
from transformers import AutoModelForCausalLM, DynamicCache

model = AutoModelForCausalLM.from_pretrained("HuggingFaceTB/SmolLM2-360M-Instruct").eval()


@dataclass
class SteeringConfig:
    c_keys: float = 0.1
    c_values: float = 2.0


def _pair_caches(model, pos_tokens, neg_tokens):
    cache_positive, cache_negative = DynamicCache(), DynamicCache()  # clean: cs_fresh_caches
    with torch.no_grad():
        model(**pos_tokens, output_hidden_states=True, past_key_values=cache_positive)  # clean: cs_fill_positive
        model(**neg_tokens, output_hidden_states=True, past_key_values=cache_negative)
    return cache_positive, cache_negative


def _key_difference(cache_positive, cache_negative, layer_id):
    pos_keys = cache_positive.key_cache[layer_id][:, :, -1, :]  # site: cs_read_keys
    neg_keys = cache_negative.key_cache[layer_id][:, :, -1, :]
    return (pos_keys - neg_keys).mean(dim=0)


def extract_steering_kv(model, pos_tokens, neg_tokens):
    cache_positive, cache_negative = _pair_caches(model, pos_tokens, neg_tokens)
    steering_values = {}
    for layer_id in range(len(cache_positive.value_cache)):  # site: cs_count_layers
        pos_values = cache_positive.value_cache[layer_id][:, :, -1, :]
        neg_values = cache_negative.value_cache[layer_id][:, :, -1, :]
        steering_values[layer_id] = (pos_values - neg_values).mean(dim=0)
    return {"values": steering_values}


def precompute_kv_cache(model, tokens):
    past_key_values = DynamicCache()
    cache_input = {"input_ids": tokens[:, :-1]}
    cache_input["position_ids"] = torch.arange(tokens.shape[1] - 1).unsqueeze(0)
    with torch.no_grad():
        model(**cache_input, past_key_values=past_key_values, use_cache=True)  # clean: cs_precompute
    return past_key_values


def steer_kv_cache_layer(cache, steering_vector, config, layer_idx, kind="values", application_token_idx=-1):
    sv = steering_vector.clone()
    if kind == "values":
        cache.value_cache[layer_idx][:, :, application_token_idx, :] += sv * config.c_values  # site: cs_steer_values
    elif kind == "keys":
        cache.key_cache[layer_idx][:, :, application_token_idx, :] += sv * config.c_keys


def steer_kv_cache(cache, steering_kv, config, application_token_idx=-1):
    for layer_idx, past_values in steering_kv.get("values", {}).items():
        steer_kv_cache_layer(cache, past_values, config, layer_idx, "values", application_token_idx)
    return cache


def generate_with_cache_steering(model, tokens, steering_kv, config, **kwargs):
    past_key_values = precompute_kv_cache(model, tokens)
    past_key_values = steer_kv_cache(past_key_values, steering_kv, config)
    output = model.generate(tokens, return_dict_in_generate=True, past_key_values=past_key_values, **kwargs)  # clean: cs_generate_steered
    return output.sequences


positive = {"input_ids": torch.tensor([[1, 21, 22, 23, 24]]), "attention_mask": torch.ones(1, 5, dtype=torch.long)}
negative = {"input_ids": torch.tensor([[1, 31, 32, 33, 34]]), "attention_mask": torch.ones(1, 5, dtype=torch.long)}
prompt = torch.tensor([[1, 40, 41, 42, 43, 44]])


def probe_extract():
    extract_steering_kv(model, positive, negative)


def probe_pair_caches():
    cache_positive, cache_negative = _pair_caches(model, positive, negative)
    assert cache_positive.get_seq_length() == 5 and cache_negative.get_seq_length() == 5


def probe_key_difference():
    cache_positive, cache_negative = _pair_caches(model, positive, negative)
    _key_difference(cache_positive, cache_negative, 0)


def probe_steer():
    heads, dim = model.config.num_key_value_heads, model.config.hidden_size // model.config.num_attention_heads
    generate_with_cache_steering(model, prompt, {"values": {0: torch.ones(heads, dim)}}, SteeringConfig(),
                                 max_new_tokens=3, min_new_tokens=3, do_sample=False)


def probe_unsteered():
    fed = []
    handle = model.model.embed_tokens.register_forward_hook(lambda module, args, out: fed.append(args[0].shape[1]))
    sequences = generate_with_cache_steering(model, prompt, {}, SteeringConfig(), max_new_tokens=3,
                                             min_new_tokens=3, do_sample=False)
    handle.remove()
    assert sequences.shape == (1, 9)
    assert fed == [5, 1, 1, 1], fed
