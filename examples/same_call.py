"""Both in one call: the cache you built and the one `cache_implementation` asks generate to build."""
from transformers import AutoModelForCausalLM, AutoTokenizer, DynamicCache

tokenizer = AutoTokenizer.from_pretrained("meta-llama/Llama-3.2-1B-Instruct")
model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B-Instruct", torch_dtype="auto")

inputs = tokenizer("Explain KV caches in one sentence.", return_tensors="pt")
cache = DynamicCache()
out = model.generate(**inputs, past_key_values=cache, cache_implementation="static", max_new_tokens=32)
print(tokenizer.decode(out[0], skip_special_tokens=True))
