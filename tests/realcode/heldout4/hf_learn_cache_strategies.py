"""A study repository's cache recipes, one per script: generation with an explicit DynamicCache, a StaticCache built
for a prompt plus twice the new tokens (batch size, device and dtype passed to the constructor) and reused to
continue a conversation from the generated ids, and self-speculative decoding with an early-exit assistant.

Provenance (mechanisms read; this code is written here, not copied):
- whaler404/Hf-Learn @bcaa333393ec9eaa9b41ffb8c566c2bdadc8eefe
  transformers_learn/inference/llms/kv_cache_strategies/default_cache.py (`past_key_values = DynamicCache()`,
  `model.generate(**inputs, do_sample=False, max_new_tokens=20, past_key_values=past_key_values)`)
- whaler404/Hf-Learn @bcaa333393ec9eaa9b41ffb8c566c2bdadc8eefe
  transformers_learn/inference/llms/optimizing_inference/kv_cache/static_cache.py (`model.generation_config.
  max_new_tokens = 16`; `StaticCache(config=model.config, max_batch_size=1, max_cache_len=prompt_length +
  (model.generation_config.max_new_tokens * 2), device=model.device, dtype=model.dtype)`; `model.generate(
  **input_ids, past_key_values=past_key_values)`; then `model.generate(new_input_ids, past_key_values=
  past_key_values)` with `new_input_ids = outputs`)
- whaler404/Hf-Learn @bcaa333393ec9eaa9b41ffb8c566c2bdadc8eefe
  transformers_learn/inference/llms/generation_strategies/advance_decoding_methods/self_speculative_decoding.py
  (`model.generate(**inputs, assistant_early_exit=4, do_sample=False, max_new_tokens=20)`)
Reduced: the three scripts share one module; torch.compile of the forward is left out; min_new_tokens is set so the tiny model's EOS
cannot end a run early, except in the assisted run (4.57.6 refuses a minimum length there: its probe asserts no
exact length).
"""

import torch
from transformers import AutoModelForCausalLM, DynamicCache, StaticCache

checkpoint = "HuggingFaceTB/SmolLM2-135M"
model = AutoModelForCausalLM.from_pretrained(checkpoint, torch_dtype="auto")
inputs = {"input_ids": torch.tensor([[1, 40, 41, 42, 43]]), "attention_mask": torch.ones(1, 5, dtype=torch.long)}


def default_cache():
    past_key_values = DynamicCache()
    out = model.generate(**inputs, do_sample=False, max_new_tokens=4, min_new_tokens=4,  # clean: hl_dynamic_generate
                         past_key_values=past_key_values)
    return out, past_key_values


def static_cache():
    prompt_length = inputs["input_ids"].shape[1]
    model.generation_config.max_new_tokens = 4
    model.generation_config.min_new_tokens = 4
    past_key_values = StaticCache(config=model.config, max_batch_size=1,  # clean: hl_static_ctor
                                  max_cache_len=prompt_length + (model.generation_config.max_new_tokens * 2),
                                  device=model.device, dtype=model.dtype)
    outputs = model.generate(**inputs, past_key_values=past_key_values)
    return outputs, past_key_values


def continue_turn(outputs, past_key_values):
    new_input_ids = outputs
    return model.generate(new_input_ids, past_key_values=past_key_values)  # clean: hl_static_continue


def self_speculative():
    return model.generate(**inputs, assistant_early_exit=1, do_sample=False, max_new_tokens=4)  # clean: hl_early_exit


def probe_default():
    out, cache = default_cache()
    assert out.shape[1] == 9 and cache.get_seq_length() == 8


def probe_static():
    outputs, cache = static_cache()
    assert outputs.shape[1] == 9


def probe_continue():
    prompt_length = inputs["input_ids"].shape[1]
    model.generation_config.max_new_tokens = 4
    model.generation_config.min_new_tokens = 4
    cache = StaticCache(config=model.config, max_cache_len=prompt_length + 8)
    outputs = model.generate(**inputs, past_key_values=cache)
    assert continue_turn(outputs, cache).shape[1] == 13


def probe_early_exit():
    assert 6 <= self_speculative().shape[1] <= 9
