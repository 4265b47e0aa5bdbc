"""A static-cache decoder for torch.compile that rewinds by re-sending positions (beam-like branching)."""

import torch
from transformers import AutoModelForCausalLM, StaticCache

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")
prompt = torch.tensor([[1, 5, 9, 14, 20]])


def branch_logits(cache, token, position):
    pos = torch.tensor([position])
    return model(token, past_key_values=cache, cache_position=pos, use_cache=True).logits  # site: rollback_cache_position


def sequential_logits(cache, token):
    return model(token, past_key_values=cache, use_cache=True).logits  # clean: rollback_sequential


def write_slot(cache, layer, k, v, slot):
    cache.update(k, v, layer, {"cache_position": torch.tensor([slot])})  # site: rollback_update_slot


def probe_rollback():
    cache = StaticCache(config=model.config, max_cache_len=16)
    model(prompt, past_key_values=cache, use_cache=True)
    branch_logits(cache, torch.tensor([[40]]), 5)
    second = branch_logits(cache, torch.tensor([[41]]), 5)
    clean = model(torch.cat([prompt, torch.tensor([[41]])], dim=-1)).logits[:, -1:]
    assert torch.allclose(second, clean, atol=1e-4), "rollback_cache_position: the branch saw the other branch"  # observe: rollback_cache_position


def probe_update_slot():
    cache = StaticCache(config=model.config, max_cache_len=16)
    model(prompt, past_key_values=cache, use_cache=True)
    k = torch.ones(1, model.config.num_key_value_heads, 1, model.config.head_dim)
    write_slot(cache, 0, k, k, 9)
    assert float(cache.layers[0].keys[0, 0, 9].sum()) == model.config.head_dim, "rollback_update_slot: slot 9 not written"  # observe: rollback_update_slot


def probe_sequential():
    cache = StaticCache(config=model.config, max_cache_len=16)  # clean: rollback_static_cache
    model(prompt, past_key_values=cache, use_cache=True)
    assert sequential_logits(cache, torch.tensor([[40]])).shape[1] == 1
