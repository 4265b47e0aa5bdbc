"""A chat-bot experiment's generation script for Llama 2: greedy generation with the quantized KV cache turned on
through `generate` (`cache_implementation="quantized"` with a `cache_config` dict choosing 4 bits and the quanto
backend).

Provenance (mechanisms read; this code is written here, not copied):
- guerrerocarlos/gpt-c @c1fb2d0297be415084b9c1d5eb1f924fedec3a95 generator_meta.py (`model.generate(**inputs,
  do_sample=False, max_new_tokens=20, cache_implementation="quantized", cache_config={"nbits": 4, "backend":
  "quanto"})` on meta-llama/Llama-2-7b-chat-hf in float16, then `batch_decode`)
Reduced: the prompt is tokenized by the stand-in tokenizer; the model stays on the CPU.
"""

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("meta-llama/Llama-2-7b-chat-hf")
model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-chat-hf", torch_dtype=torch.float16)
inputs = tokenizer("I like rock music because", return_tensors="pt")


def generate_reply():
    out = model.generate(**inputs, do_sample=False, max_new_tokens=20, min_new_tokens=20,  # clean: gc_quantized
                         cache_implementation="quantized", cache_config={"nbits": 4, "backend": "quanto"})
    return tokenizer.batch_decode(out, skip_special_tokens=True)[0], out


def probe_quantized_reply():
    text, out = generate_reply()
    assert out.shape[1] == inputs["input_ids"].shape[1] + 20 and isinstance(text, str)
