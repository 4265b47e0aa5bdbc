"""The sample module the line-shift tests edit (tests/engine/test_keystrokes.py in process, tests/lsp/
test_lsp_line_shift.py through the server): `first`, without findings, above `second` and `Answers.third`, each
with a cache conflict (HFC001), so a line added or removed in `first` moves findings whose functions are replayed,
not run again. Its text is the data; the module is never run or checked as a file."""

TEXT = '''from transformers import AutoModelForCausalLM, AutoTokenizer, DynamicCache

tokenizer = AutoTokenizer.from_pretrained("gpt2")
model = AutoModelForCausalLM.from_pretrained("gpt2")


def first(prompt):
    inputs = tokenizer(prompt, return_tensors="pt")
    return inputs


def second(prompt):
    inputs = tokenizer(prompt, return_tensors="pt")
    out = model.generate(**inputs, past_key_values=DynamicCache(), cache_implementation="static")
    return tokenizer.decode(out[0])


class Answers:
    def third(self, prompt):
        cache = DynamicCache()
        out = model.generate(tokenizer(prompt, return_tensors="pt").input_ids, past_key_values=cache,
                             cache_implementation="static")
        return out
'''
