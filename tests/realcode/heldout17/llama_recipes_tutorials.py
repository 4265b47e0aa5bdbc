"""huggingface-llama-recipes (tutorial scripts for Llama 3.x with transformers): prompt reuse (a `DynamicCache()` filled
by one forward of a long system prompt, then each question generated with `past_key_values=copy.deepcopy(
prompt_cache)` and the full prompt as input ids), the quantized KV cache recipe (`cache_implementation="quantized"`
on generate; its HQQ variant imports `QuantizedCacheConfig` and passes `cache_config=` to generate), torch.compile
with a static cache (`model.generation_config.max_length = 128` and `model.generation_config.cache_implementation =
"static"`, then plain generate calls) and assisted decoding (`generate(**inputs, assistant_model=assistant_model)`).

Provenance (mechanisms read; this code is written here, not copied):
- huggingface/huggingface-llama-recipes @7f5ab8017967914e76583eedd02b1c94f408f3ca
  performance_optimization/prompt_reuse.py (`prompt_cache = DynamicCache()`, `prompt_cache = model(**inputs,
  past_key_values = prompt_cache).past_key_values`, `past_key_values = copy.deepcopy(prompt_cache)`, `outputs =
  model.generate(**new_inputs, past_key_values=past_key_values, max_new_tokens=20)`, and the second question with
  `past_key_values=copy.deepcopy(prompt_cache)` inline), performance_optimization/quantized_cache.py (`model.generate(
  **inputs, cache_implementation="quantized", do_sample=True, max_new_tokens=256)`; `from transformers import
  QuantizedCacheConfig`, `cache_config = QuantizedCacheConfig(backend="HQQ", nbits=4, axis_key=0, axis_value=1,
  compute_dtype=torch.float16, device=model.device)`, `model.generate(**inputs, do_sample=False, max_new_tokens=30,
  cache_implementation="quantized", cache_config=cache_config)`), performance_optimization/torch_compile.py
  (`model.generation_config.max_length = 128`, `model.forward = torch.compile(model.forward, mode="reduce-overhead",
  fullgraph=True)`, `model.generation_config.cache_implementation = "static"`, three `model.generate(**inputs,
  do_sample=False)`), assisted_decoding/assisted_decoding.py (`model.generate(**inputs,
  assistant_model=assistant_model)`).
Reduced: each script is a function, token ids instead of the tokenizer, greedy decoding for the sampled calls,
fewer tokens, float32 on the CPU, the static recipe's `max_length` 16 with `generation_config.min_new_tokens` set
so that the length is fixed; the HQQ variant's import sits in its own function (the recipe imports it after the first
generate, at the top level of the script).
"""

import copy

import torch
from transformers import AutoModelForCausalLM, DynamicCache

ckpt = "meta-llama/Meta-Llama-3.1-8B-Instruct"
model = AutoModelForCausalLM.from_pretrained(ckpt, torch_dtype=torch.float32)

INITIAL_PROMPT = torch.tensor([[1, 40, 41, 42, 43, 44, 45]])


def prompt_reuse(questions):
    prompt_cache = DynamicCache()
    with torch.no_grad():
        prompt_cache = model(input_ids=INITIAL_PROMPT, past_key_values=prompt_cache).past_key_values  # clean: lr_prompt_prefill
    answers = []
    for question in questions:
        new_ids = torch.cat([INITIAL_PROMPT, question], dim=-1)
        past_key_values = copy.deepcopy(prompt_cache)  # clean: lr_copy_prompt
        outputs = model.generate(input_ids=new_ids, past_key_values=past_key_values, max_new_tokens=4, min_new_tokens=4)  # clean: lr_generate_reuse
        answers.append(outputs[0, new_ids.shape[1]:])
    return answers, prompt_cache


def quantized_cache(inputs):
    return model.generate(**inputs, cache_implementation="quantized", do_sample=False, max_new_tokens=4, min_new_tokens=4)  # clean: lr_quantized_generate


def quantized_cache_hqq(inputs):
    from transformers import QuantizedCacheConfig  # site: lr_quantized_config_import
    cache_config = QuantizedCacheConfig(backend="HQQ", nbits=4, axis_key=0, axis_value=1,
                                        compute_dtype=torch.float16, device=model.device)
    return model.generate(**inputs, do_sample=False, max_new_tokens=4, min_new_tokens=4,
                          cache_implementation="quantized", cache_config=cache_config)


def compiled_static(inputs):
    model.generation_config.max_length = 16
    model.forward = torch.compile(model.forward, mode="reduce-overhead", fullgraph=True)
    model.generation_config.cache_implementation = "static"  # clean: lr_static_default
    model.generation_config.min_new_tokens = 12
    outputs = [model.generate(**inputs, do_sample=False) for _ in range(2)]  # clean: lr_static_generate
    return outputs


def assisted(inputs, assistant_model):
    return model.generate(**inputs, assistant_model=assistant_model)  # clean: lr_assisted


inputs = {"input_ids": torch.tensor([[1, 50, 51, 52]]), "attention_mask": torch.ones(1, 4, dtype=torch.long)}


def probe_prompt_reuse():
    answers, prompt_cache = prompt_reuse([torch.tensor([[60, 61]]), torch.tensor([[62, 63, 64]])])
    assert [a.shape[0] for a in answers] == [4, 4] and prompt_cache.get_seq_length() == 7


def probe_quantized():
    out = quantized_cache(inputs)
    assert out.shape == (1, 8)


def probe_quantized_hqq():
    quantized_cache_hqq(inputs)


def probe_compiled_static():
    outputs = compiled_static(inputs)
    assert all(o.shape == (1, 16) for o in outputs)


def probe_assisted():
    assistant_model = AutoModelForCausalLM.from_pretrained("meta-llama/Meta-Llama-3.1-8B", torch_dtype=torch.float32)
    out = assisted(inputs, assistant_model)
    assert out.shape[0] == 1 and out.shape[1] > 4
