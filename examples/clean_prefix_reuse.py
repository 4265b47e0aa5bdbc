"""Correct prefix-cache reuse: no cache_implementation anywhere, so hf-cache-lint reports nothing."""
import copy

from transformers import AutoModelForCausalLM, AutoTokenizer, DynamicCache

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B-Instruct")
tokenizer = AutoTokenizer.from_pretrained("meta-llama/Llama-3.2-1B-Instruct")

prefix = model(**tokenizer("You are terse. ", return_tensors="pt"), past_key_values=DynamicCache()).past_key_values
for q in ["Why is the sky blue?", "What is 2 + 2?"]:
    out = model.generate(**tokenizer("You are terse. " + q, return_tensors="pt"),
                         past_key_values=copy.deepcopy(prefix), max_new_tokens=20)
