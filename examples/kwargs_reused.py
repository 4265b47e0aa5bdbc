"""One generation-kwargs dict for every turn; turn two adds the cache returned by turn one."""
from transformers import AutoModelForCausalLM, AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("meta-llama/Llama-2-7b-chat-hf")
model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-chat-hf", device_map="auto")

gen_kwargs = dict(max_new_tokens=20, do_sample=False, return_dict_in_generate=True)
gen_kwargs["cache_implementation"] = "offloaded"

inputs = tokenizer("I like rock music because", return_tensors="pt").to(model.device)
turn1 = model.generate(**inputs, **gen_kwargs)
turn2 = model.generate(turn1.sequences, past_key_values=turn1.past_key_values, **gen_kwargs)
print(tokenizer.batch_decode(turn2.sequences, skip_special_tokens=True)[0])
