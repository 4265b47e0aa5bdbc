"""MemoRAG's long-context memory (qhjqhj00/MemoRAG): the "longllm" memory reads a whole context once into a
`DynamicCache` (`self.memory = DynamicCache()`, `self.model(**context_inputs, past_key_values=self.memory)`, then
`self.memory = model_outputs.past_key_values`), keeps the context's ids beside it, and answers each question by
generating from the context ids followed by the question's ids with `past_key_values=copy.deepcopy(self.memory)`, so
only the question is prefilled. `generate` refuses to run `if not self.memory`; the memory is saved with
`torch.save({"memory": self.memory, "context_inputs": ...}, path)` and loaded back with `torch.load(path)`.

Provenance (mechanisms read; this code is written here, not copied):
- qhjqhj00/MemoRAG @67a88db0e20eacf187f0f3ca033183a96e016a4c
  memorag/memorag.py (`merge_inputs` concatenating two BatchEncodings' ids and masks; `Model.ids2text`:
  `self.model.generate(**inputs, **generation_kwargs, pad_token_id=self.tokenizer.eos_token_id)` and the slice of the
  new tokens; `Memory.memorize` (longllm branch): `self.memory = DynamicCache()`, `model_outputs = self.model(
  **context_inputs, past_key_values=self.memory)`, `self.memory = model_outputs.past_key_values`, `self.context_inputs
  = context_inputs`; `Memory.generate`: `if not self.memory: raise ValueError(...)`, `generation_kwargs[
  "past_key_values"] = copy.deepcopy(self.memory)`, `sample_inputs = merge_inputs(self.context_inputs,
  sample_inputs)`, `del generation_kwargs["past_key_values"]` after the first instruction; `save` / `load`:
  `torch.save({"memory": self.memory, "context_inputs": self.context_inputs}, path)`, `_cache = torch.load(path)`,
  `self.memory = _cache["memory"]`).
Reduced: token ids instead of chat templates and prompts, no MInference patch, model reload or beacon memory; the
generation kwargs carry `min_new_tokens` beside `max_new_tokens` (the oracle's random models).
"""

import copy
import os
import tempfile

import torch
from transformers import AutoModelForCausalLM, BatchEncoding, DynamicCache


def merge_inputs(inputs1, inputs2):
    return BatchEncoding({"input_ids": torch.cat([inputs1["input_ids"], inputs2["input_ids"]], dim=1),
                          "attention_mask": torch.cat([inputs1["attention_mask"], inputs2["attention_mask"]], dim=1)})


def ids(values):
    t = torch.tensor([values])
    return BatchEncoding({"input_ids": t, "attention_mask": torch.ones_like(t)})


class Memory:
    def __init__(self, model_name_or_path):
        self.model = AutoModelForCausalLM.from_pretrained(model_name_or_path).eval()
        self.memory = None
        self.context_inputs = None

    def ids2text(self, inputs, **generation_kwargs):
        outputs = self.model.generate(**inputs, **generation_kwargs, pad_token_id=0)  # clean: mr_generate_from_memory
        return outputs[:, inputs["input_ids"].shape[1]:]

    def memorize(self, context_inputs):
        self.memory = DynamicCache()  # clean: mr_fresh_memory
        with torch.no_grad():
            model_outputs = self.model(**context_inputs, past_key_values=self.memory)  # clean: mr_read_context
        self.memory = model_outputs.past_key_values  # clean: mr_keep_memory
        self.context_inputs = context_inputs

    def generate(self, instructions, max_new_tokens=3, with_cache=True):
        if not self.memory:  # clean: mr_memory_formed
            raise ValueError("Memory is not initialized. Please ensure that memory has been formed before using generate.")
        generation_kwargs = {"max_new_tokens": max_new_tokens, "min_new_tokens": max_new_tokens, "do_sample": False}
        if with_cache:
            generation_kwargs["past_key_values"] = copy.deepcopy(self.memory)  # clean: mr_copy_memory
        outputs = []
        for inst in instructions:
            sample_inputs = ids(inst)
            if with_cache:
                sample_inputs = merge_inputs(self.context_inputs, sample_inputs)
            outputs.append(self.ids2text(sample_inputs, **generation_kwargs))
            if with_cache and "past_key_values" in generation_kwargs:
                del generation_kwargs["past_key_values"]
        return outputs

    def save(self, path):
        torch.save({"memory": self.memory, "context_inputs": self.context_inputs}, path)  # clean: mr_save

    def load(self, path):
        _cache = torch.load(path)  # site: mr_load
        self.memory = _cache["memory"]
        self.context_inputs = _cache["context_inputs"]


mem = Memory("meta-llama/Meta-Llama-3.1-8B-Instruct")
context = ids([1, 90, 91, 92, 93, 94, 95, 96])


def probe_answer():
    mem.memorize(context)
    fed = []
    handle = mem.model.model.embed_tokens.register_forward_hook(lambda module, args, out: fed.append(args[0].shape[1]))
    answers = mem.generate([[100, 101], [102, 103]])
    handle.remove()
    assert [a.shape[1] for a in answers] == [3, 3]
    assert fed[:3] == [2, 1, 1] and fed[3] == 10, fed
    assert mem.memory.get_seq_length() == 8


def probe_save():
    mem.memorize(context)
    with tempfile.TemporaryDirectory() as d:
        mem.save(os.path.join(d, "memory.bin"))


def probe_roundtrip():
    mem.memorize(context)
    with tempfile.TemporaryDirectory() as d:
        mem.save(os.path.join(d, "memory.bin"))
        mem.load(os.path.join(d, "memory.bin"))
    assert mem.memory.get_seq_length() == 8
