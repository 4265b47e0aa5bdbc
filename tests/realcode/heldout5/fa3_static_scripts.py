"""Reproduction scripts of an attention-kernel fork (checks that FlashAttention-3 runs under `torch.compile`
with a static cache): one loads Mistral with `cache_implementation="static"` passed to `from_pretrained`, expecting
it to turn on the sliding-window static cache, then compiles the model and generates; the others load Gemma /
Phi-1 plainly and ask `generate` for `cache_implementation="static"` (greedy and sampled), then run a plain
forward.

Provenance (mechanisms read; this code is written here, not copied):
- guilhermeleobas/flash-attention @8ef56f68c8894aac6113dd593c4adf2aaa640c62 hopper/mistral.py
  (`AutoModelForCausalLM.from_pretrained("mistralai/Mistral-7B-v0.1", cache_implementation="static",
  torch_dtype=torch.float16).to("cuda")`, `model = torch.compile(model)`, `model.generate(inputs.input_ids,
  max_new_tokens=100)`)
- guilhermeleobas/flash-attention @8ef56f68c8894aac6113dd593c4adf2aaa640c62 hopper/gemma.py
  (`from_pretrained("google/gemma-2b-it", attn_implementation="flash_attention_3", torch_dtype=torch.float16,
  device_map="auto")`, `torch.compile(model)`, `model.generate(**inputs, max_new_tokens=50,
  cache_implementation="static")`) and hopper/phi1.py (`generate(inputs["input_ids"], max_new_tokens=50,
  do_sample=True, temperature=0.7, pad_token_id=..., cache_implementation="static")`, then `model(**inputs).logits`)
Reduced: the scripts' module-level code is in functions; fewer new tokens (with `min_new_tokens`); the Phi-1
script's remote code is left out (a causal LM from the Hub id).
"""

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer


def run_mistral():
    model = AutoModelForCausalLM.from_pretrained("mistralai/Mistral-7B-v0.1", cache_implementation="static",  # site: fa_from_pretrained_static
                                                 torch_dtype=torch.float16).to("cuda")
    model = torch.compile(model)
    tokenizer = AutoTokenizer.from_pretrained("mistralai/Mistral-7B-v0.1")
    inputs = tokenizer("Hello world!", return_tensors="pt").to("cuda")
    output = model.generate(inputs.input_ids, max_new_tokens=5, min_new_tokens=5)
    return tokenizer.decode(output[0], skip_special_tokens=True)


def run_gemma():
    model = AutoModelForCausalLM.from_pretrained("google/gemma-2b-it", attn_implementation="flash_attention_3",
                                                 torch_dtype=torch.float16, device_map="auto")
    model = torch.compile(model)
    tokenizer = AutoTokenizer.from_pretrained("google/gemma-2b-it")
    inputs = tokenizer("Once upon a time", return_tensors="pt").to(model.device)
    outputs = model.generate(**inputs, max_new_tokens=5, min_new_tokens=5, cache_implementation="static")  # clean: fa_generate_static
    return outputs


def run_phi():
    model = AutoModelForCausalLM.from_pretrained("microsoft/phi-1", attn_implementation="flash_attention_3",
                                                 torch_dtype=torch.float16, device_map="auto")
    model = torch.compile(model)
    tokenizer = AutoTokenizer.from_pretrained("microsoft/phi-1")
    tokenizer.pad_token = tokenizer.eos_token
    inputs = tokenizer("The future of artificial intelligence is", return_tensors="pt", padding=True)
    inputs = {k: v.to(model.device) for k, v in inputs.items()}
    with torch.no_grad():
        outputs = model.generate(inputs["input_ids"], max_new_tokens=5, min_new_tokens=5, do_sample=True,  # clean: fa_sampled_static
                                 temperature=0.7, pad_token_id=tokenizer.eos_token_id, cache_implementation="static")
        logits = model(**inputs).logits  # clean: fa_plain_forward
    return outputs, logits


def probe_mistral():
    text = run_mistral()
    assert isinstance(text, str)


def probe_gemma():
    outputs = run_gemma()
    assert outputs.shape == (1, 9)


def probe_phi():
    outputs, logits = run_phi()
    assert outputs.shape[1] - logits.shape[1] == 5
