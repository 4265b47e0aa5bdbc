"""A checkpoint saved with cache_implementation="static": the first call is fine, feeding its cache back is not."""
import os

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

CKPT = os.path.dirname(os.path.abspath(__file__))
tokenizer = AutoTokenizer.from_pretrained(CKPT)
model = AutoModelForCausalLM.from_pretrained(CKPT)

inputs = tokenizer("The theory of special relativity states ", return_tensors="pt")
first = model.generate(**inputs, max_new_tokens=16, return_dict_in_generate=True)
follow_up = tokenizer(" In simple words,", return_tensors="pt", add_special_tokens=False).input_ids
second = model.generate(torch.cat([first.sequences, follow_up], dim=-1), past_key_values=first.past_key_values)
print(tokenizer.decode(second[0], skip_special_tokens=True))
