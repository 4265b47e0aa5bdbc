"""smolagents' `TransformersModel`, the local engine of its tool-calling agents: each agent step renders the chat
with the tokenizer's template, builds the generate keywords once (`inputs=`, `use_cache=True`, a string-stopping
criteria list, `max_new_tokens` from the step's or the model's settings) and either generates in place, decoding the
tokens after the prompt, or streams them through a `TextIteratorStreamer` fed by `model.generate` in a thread.

Provenance (mechanisms read; this code is written here, not copied):
- huggingface/smolagents @e3a5b8994b301983b91c0325546e9dc82eab8cf0
  src/smolagents/models.py (`TransformersModel.__init__`: `AutoModelForCausalLM.from_pretrained`, `self.streamer =
  TextIteratorStreamer(self.tokenizer, skip_prompt=True, skip_special_tokens=True)`; `make_stopping_criteria` with a
  `StopOnStrings(StoppingCriteria)` over the decoded stream; `_prepare_completion_args`: `max_new_tokens =
  kwargs.get("max_new_tokens") or ... or 1024`, `apply_chat_template(messages, return_tensors="pt",
  add_generation_prompt=True, tokenize=True, return_dict=True)`, `prompt_tensor["input_ids"]`, `return
  dict(inputs=prompt_tensor, use_cache=True, stopping_criteria=stopping_criteria, **completion_kwargs)`; `generate`:
  `out = self.model.generate(**generation_kwargs)`, `out[0, count_prompt_tokens:]`; `generate_stream`: `thread =
  Thread(target=self.model.generate, kwargs={"streamer": self.streamer, **generation_kwargs})`).
Reduced: the model's settings kept as one attribute, plain dict messages, no tools, VLM processor or token usage objects; the probes fix the length through the
model's generation config.
"""

from threading import Thread

from transformers import (
    AutoModelForCausalLM,
    AutoTokenizer,
    StoppingCriteria,
    StoppingCriteriaList,
    TextIteratorStreamer,
)


class StopOnStrings(StoppingCriteria):
    def __init__(self, stop_strings, tokenizer):
        self.stop_strings = stop_strings
        self.tokenizer = tokenizer
        self.stream = ""

    def __call__(self, input_ids, scores, **kwargs):
        self.stream += self.tokenizer.decode(input_ids[0][-1], skip_special_tokens=True)
        return any(self.stream.endswith(s) for s in self.stop_strings)


class TransformersModel:
    def __init__(self, model_id, max_new_tokens=6):
        self.tokenizer = AutoTokenizer.from_pretrained(model_id)
        self.model = AutoModelForCausalLM.from_pretrained(model_id)
        self.streamer = TextIteratorStreamer(self.tokenizer, skip_prompt=True, skip_special_tokens=True)
        self.max_new_tokens = max_new_tokens

    def _prepare_completion_args(self, messages, stop_sequences=None, **kwargs):
        completion_kwargs = {}
        max_new_tokens = kwargs.get("max_new_tokens") or self.max_new_tokens or 1024
        prompt_tensor = self.tokenizer.apply_chat_template(
            messages, return_tensors="pt", add_generation_prompt=True, tokenize=True, return_dict=True
        )
        prompt_tensor = prompt_tensor["input_ids"]
        stopping_criteria = (
            StoppingCriteriaList([StopOnStrings(stop_sequences, self.tokenizer)]) if stop_sequences else None
        )
        completion_kwargs["max_new_tokens"] = max_new_tokens
        return dict(inputs=prompt_tensor, use_cache=True, stopping_criteria=stopping_criteria,  # clean: sa_use_cache
                    **completion_kwargs)

    def generate(self, messages, stop_sequences=None, **kwargs):
        generation_kwargs = self._prepare_completion_args(messages, stop_sequences, **kwargs)
        count_prompt_tokens = generation_kwargs["inputs"].shape[1]
        out = self.model.generate(**generation_kwargs)  # clean: sa_generate
        generated_tokens = out[0, count_prompt_tokens:]
        return self.tokenizer.decode(generated_tokens, skip_special_tokens=True), len(generated_tokens)

    def generate_stream(self, messages, stop_sequences=None, **kwargs):
        generation_kwargs = self._prepare_completion_args(messages, stop_sequences, **kwargs)
        thread = Thread(target=self.model.generate, kwargs={"streamer": self.streamer, **generation_kwargs})  # clean: sa_thread_generate
        thread.start()
        pieces = list(self.streamer)
        thread.join()
        return pieces


engine = TransformersModel("HuggingFaceTB/SmolLM2-1.7B-Instruct")
engine.model.generation_config.min_new_tokens = 6
messages = [{"role": "user", "content": "what is the weather in paris"}]


def probe_step():
    _, n = engine.generate(messages)
    assert n == 6


def probe_stream():
    pieces = engine.generate_stream(messages)
    assert len(pieces) >= 1
