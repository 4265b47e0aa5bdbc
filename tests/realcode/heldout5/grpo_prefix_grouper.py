"""GRPO rollouts with a shared prompt prefix ("Prefix Grouper"): the prompt minus its last token is prefilled once
into a `DynamicCache` (with an explicit `cache_position`), the cache is turned into legacy tuples, every layer's
key and value expanded to the group size, turned back into a `DynamicCache`, and the group's completions are
generated from the prompt's last token with that cache and a `cache_position` starting after the prefix; the
plain path generates the whole prompt repeated `group_size` times.

Provenance (mechanisms read; this code is written here, not copied):
- researchim-ai/models-at-home @053503d8aa84a693eb2b9aca779e1cf3350314b3 homellm/training/rl/rollout.py
  (`past_key_values = DynamicCache()`, `generate_model(input_ids=prefix_ids, attention_mask=prefix_mask,
  past_key_values=past_key_values, cache_position=cache_position, use_cache=True, return_dict=True)`,
  `legacy_cache = past_key_values.to_legacy_cache()`, `layer_kv[0].expand(config.group_size, -1, -1, -1).
  contiguous()`, `expanded_cache = DynamicCache.from_legacy_cache(expanded_legacy)`, `generate_model.generate(
  input_ids=last_token, attention_mask=gen_attention_mask, past_key_values=expanded_cache,
  cache_position=gen_cache_position, generation_config=generation_config, return_dict_in_generate=True,
  output_scores=False)`; the standard path `generate(input_ids=input_ids, attention_mask=attention_mask,
  generation_config=generation_config, return_dict_in_generate=True, output_scores=False)`)
Reduced: the real code wraps the prefix path in `try/except Exception` and falls back to the standard path; here
the steps are small functions the probes call directly (no fallback), so each step's failure is its own;
rewards, ZeRO-3 gathering and multi-prompt batching are left out.
"""

import torch
from transformers import AutoModelForCausalLM, DynamicCache, GenerationConfig

GROUP_SIZE = 3
generation_config = GenerationConfig(max_new_tokens=4, min_new_tokens=4, do_sample=False, eos_token_id=2,
                                     pad_token_id=0)
prompt_inputs = {"input_ids": torch.tensor([[1, 100, 101, 102, 103]]), "attention_mask": torch.ones(1, 5, dtype=torch.long)}


def load():
    return AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B-Instruct", torch_dtype=torch.float32)


def prefill_prefix(generate_model):
    past_key_values = DynamicCache()  # clean: gr_new_cache
    prefix_ids = prompt_inputs["input_ids"][:, :-1]
    prefix_mask = prompt_inputs["attention_mask"][:, :-1]
    cached_seq_len = prefix_ids.size(1)
    cache_position = torch.arange(cached_seq_len)
    with torch.no_grad():
        generate_model(input_ids=prefix_ids, attention_mask=prefix_mask, past_key_values=past_key_values,  # clean: gr_prefix_forward
                       cache_position=cache_position, use_cache=True, return_dict=True)
    return past_key_values, cached_seq_len


def expand_to_group(past_key_values, group_size):
    legacy_cache = past_key_values.to_legacy_cache()  # site: gr_to_legacy
    expanded_legacy = []
    for layer_kv in legacy_cache:
        expanded_key = layer_kv[0].expand(group_size, -1, -1, -1).contiguous()
        expanded_value = layer_kv[1].expand(group_size, -1, -1, -1).contiguous()
        expanded_legacy.append((expanded_key, expanded_value))
    return tuple(expanded_legacy)


def group_cache(expanded_legacy):
    return DynamicCache.from_legacy_cache(expanded_legacy)  # site: gr_from_legacy


def generate_group(generate_model, expanded_cache, cached_seq_len, group_size):
    last_token = prompt_inputs["input_ids"][:, -1:].repeat(group_size, 1)
    gen_attention_mask = torch.ones(group_size, cached_seq_len + 1, dtype=torch.long)
    gen_cache_position = torch.tensor([cached_seq_len])
    outputs = generate_model.generate(input_ids=last_token, attention_mask=gen_attention_mask,  # site: gr_generate_position
                                      past_key_values=expanded_cache, cache_position=gen_cache_position,
                                      generation_config=generation_config, return_dict_in_generate=True,
                                      output_scores=False)
    prefix_expanded = prompt_inputs["input_ids"][:, :-1].repeat(group_size, 1)
    return torch.cat([prefix_expanded, outputs.sequences], dim=1)


def generate_plain(generate_model, group_size):
    input_ids = prompt_inputs["input_ids"].repeat(group_size, 1)
    attention_mask = prompt_inputs["attention_mask"].repeat(group_size, 1)
    outputs = generate_model.generate(input_ids=input_ids, attention_mask=attention_mask,  # clean: gr_plain_generate
                                      generation_config=generation_config, return_dict_in_generate=True,
                                      output_scores=False)
    return outputs.sequences


def probe_prefix():
    model = load()
    cache, cached = prefill_prefix(model)
    assert cached == 4 and cache.get_seq_length() == 4


def probe_expand():
    model = load()
    cache, _ = prefill_prefix(model)
    expanded = expand_to_group(cache, GROUP_SIZE)
    assert len(expanded) == 2 and expanded[0][0].shape[0] == GROUP_SIZE


def probe_group_cache():
    layers = tuple((torch.zeros(GROUP_SIZE, 1, 4, 64), torch.zeros(GROUP_SIZE, 1, 4, 64)) for _ in range(2))
    cache = group_cache(layers)
    assert cache.get_seq_length() == 4


def probe_generate_group():
    model = load()
    with torch.no_grad():
        shared = model(prompt_inputs["input_ids"][:, :-1].repeat(GROUP_SIZE, 1), use_cache=True).past_key_values
    generated = generate_group(model, shared, 4, GROUP_SIZE)
    assert generated.shape == (GROUP_SIZE, 9), generated.shape


def probe_plain():
    model = load()
    generated = generate_plain(model, GROUP_SIZE)
    assert generated.shape == (GROUP_SIZE, 9)
