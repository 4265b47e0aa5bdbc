"""A chat class: __init__ turns on a static cache, reply() brings its own cache from a helper."""
from transformers import AutoModelForCausalLM, AutoTokenizer, DynamicCache


class ChatSession:
    def __init__(self, model_id: str):
        self.tokenizer = AutoTokenizer.from_pretrained(model_id)
        self.model = AutoModelForCausalLM.from_pretrained(model_id)
        self.model.generation_config.cache_implementation = "static"
        self.history = []

    def _new_cache(self):
        return DynamicCache()

    def reply(self, text: str) -> str:
        self.history.append({"role": "user", "content": text})
        inputs = self.tokenizer.apply_chat_template(self.history, add_generation_prompt=True, return_tensors="pt", return_dict=True)
        cache = self._new_cache()
        out = self.model.generate(**inputs, past_key_values=cache, max_new_tokens=64)
        answer = self.tokenizer.decode(out[0, inputs["input_ids"].shape[1]:], skip_special_tokens=True)
        self.history.append({"role": "assistant", "content": answer})
        return answer
