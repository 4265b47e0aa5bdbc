"""A chat loop written for transformers 4.x: it runs on 4.57 and breaks on 5.x in four places.

`hf-cache-lint check --upgrade-to 5.24.0 examples/upgrade_from_4x.py` (with 4.57 installed) lists them, each
with the release that brings it; on 5.x `hf-cache-lint check` reports them as errors.
"""

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, DynamicCache

checkpoint = "mistralai/Mistral-7B-Instruct-v0.3"
tokenizer = AutoTokenizer.from_pretrained(checkpoint)
model = AutoModelForCausalLM.from_pretrained(checkpoint, torch_dtype=torch.bfloat16)

inputs = tokenizer("Summarise the meeting notes:", return_tensors="pt")
first = model.generate(**inputs, max_new_tokens=64, return_dict_in_generate=True, use_model_defaults=False)
print("tokens so far:", first.past_key_values[0][0].shape[2])

# Keep the conversation's cache as plain tensors between requests, then rebuild it.
saved = first.past_key_values.to_legacy_cache()
cache = DynamicCache.from_legacy_cache(saved)
follow_up = tokenizer(" And the action items?", return_tensors="pt").input_ids
second = model.generate(torch.cat([first.sequences, follow_up], dim=-1), past_key_values=cache, max_new_tokens=32)
print(tokenizer.decode(second[0], skip_special_tokens=True))
