"""The torch.compile recipe sets a static cache on the model; a later prefix-cache reuse passes its own."""
import copy

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, DynamicCache

ckpt = "meta-llama/Llama-3.2-1B-Instruct"
tokenizer = AutoTokenizer.from_pretrained(ckpt)
model = AutoModelForCausalLM.from_pretrained(ckpt, torch_dtype=torch.bfloat16, device_map="auto")

model.generation_config.cache_implementation = "static"
model.forward = torch.compile(model.forward, mode="reduce-overhead", fullgraph=True)

SYSTEM = "You are a helpful assistant. "
prompt_cache = DynamicCache()
with torch.no_grad():
    prompt_cache = model(**tokenizer(SYSTEM, return_tensors="pt").to(model.device), past_key_values=prompt_cache).past_key_values

for question in ["What is a KV cache?", "Why compile the forward pass?"]:
    inputs = tokenizer(SYSTEM + question, return_tensors="pt").to(model.device)
    out = model.generate(**inputs, past_key_values=copy.deepcopy(prompt_cache), max_new_tokens=32)
    print(tokenizer.decode(out[0], skip_special_tokens=True))
