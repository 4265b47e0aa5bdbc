"""An RL rollout worker: generates with the cache returned, then reuses and inspects it for the value head."""

import torch
from transformers import AutoModelForCausalLM, DynamicCache

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")
prompt = torch.tensor([[1, 5, 9, 14, 20]])


def rollout(ids):
    return model.generate(ids, max_new_tokens=3, do_sample=False, return_dict_in_generate=True)  # clean: rl_generate


def last_layer_keys(out):
    return out.past_key_values[-1][0]  # site: rl_index_generate_result


def continue_from(out, extra):
    ids = torch.cat([out.sequences, extra], dim=-1)
    return model.generate(ids, past_key_values=out.past_key_values, max_new_tokens=2, do_sample=False)  # clean: rl_continue


def legacy_continue(out, extra):
    legacy = tuple((layer.keys, layer.values) for layer in out.past_key_values.layers)
    ids = torch.cat([out.sequences, extra], dim=-1)
    return model.generate(ids, past_key_values=legacy, max_new_tokens=2, do_sample=False)  # site: rl_tuple_generate


def fresh_continue(out, extra):
    legacy = tuple((layer.keys, layer.values) for layer in out.past_key_values.layers)
    ids = torch.cat([out.sequences, extra], dim=-1)
    cache = DynamicCache()
    for i, (k, v) in enumerate(legacy):
        cache.update(k, v, i)
    return model.generate(ids, past_key_values=cache, max_new_tokens=2, do_sample=False)  # clean: rl_rebuilt_generate


def probe_index():
    model.generation_config.min_new_tokens = 3  # fixed length: the random tiny model's EOS must not end generate early (the labelled line stays as written)
    assert last_layer_keys(rollout(prompt)).shape[-2] == 7


def probe_continue():
    model.generation_config.min_new_tokens = 3
    out = rollout(prompt)
    model.generation_config.min_new_tokens = 2
    assert continue_from(out, torch.tensor([[50]])).shape[-1] == 11


def probe_tuple():
    model.generation_config.min_new_tokens = 3
    out = rollout(prompt)
    model.generation_config.min_new_tokens = 2
    assert legacy_continue(out, torch.tensor([[50]])).shape[-1] == 11


def probe_rebuilt():
    model.generation_config.min_new_tokens = 3
    out = rollout(prompt)
    model.generation_config.min_new_tokens = 2
    assert fresh_continue(out, torch.tensor([[50]])).shape[-1] == 11
