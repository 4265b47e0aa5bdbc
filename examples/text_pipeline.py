"""A text-generation pipeline built with a static cache, then called with a prefix cache."""
from transformers import AutoModelForCausalLM, DynamicCache, pipeline

model = AutoModelForCausalLM.from_pretrained("HuggingFaceTB/SmolLM2-135M-Instruct")
pipe = pipeline("text-generation", model=model, cache_implementation="static")

print(pipe("Once upon a time", max_new_tokens=20))
print(pipe("Once upon a time", past_key_values=DynamicCache(), max_new_tokens=20))
