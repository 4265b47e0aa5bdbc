"""A GenerationConfig does not shield the call: unset fields come from model.generation_config."""
from transformers import AutoModelForCausalLM, AutoTokenizer, GenerationConfig, StaticCache

model_id = "Qwen/Qwen2.5-0.5B-Instruct"
tokenizer = AutoTokenizer.from_pretrained(model_id)
model = AutoModelForCausalLM.from_pretrained(model_id)
model.generation_config.update(cache_implementation="static")

config = GenerationConfig(max_new_tokens=16, do_sample=False, cache_implementation=None)
inputs = tokenizer("Hello", return_tensors="pt")
cache = StaticCache(config=model.config, max_cache_len=64)
out = model.generate(**inputs, generation_config=config, past_key_values=cache)
