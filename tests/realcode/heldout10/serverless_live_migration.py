"""ServerlessLLM's transformers backend (live migration of an in-flight request between GPUs): the source backend
generates with a streamer (`InferenceStatus`) that records every token; when the request is migrated, the
destination backend first rebuilds the KV cache from the tokens so far (`resume_kv_cache`: `generate(input_ids,
past_key_values=self.past_key_values, max_new_tokens=1, return_dict_in_generate=True, return_legacy_cache=True)`,
keeping `output.past_key_values` and `output.sequences` on the backend and logging the cached length from
`self.past_key_values[0][0][0][0]`), then continues the request (`resume_generate`: `generate(current_output,
past_key_values=self.past_key_values, max_new_tokens=..., temperature=..., streamer=...)`).

Provenance (mechanisms read; this code is written here, not copied):
- ServerlessLLM/ServerlessLLM @9f50241baa5386e06a9321c51f19a9ef5f964c2b
  sllm/backends/transformers_backend.py (InferenceStatus(BaseStreamer).put / get; TransformersBackend.__init__:
  `self.past_key_values = None`; generate: `generate_kwargs = {"max_new_tokens": max_tokens, "temperature":
  temperature, "streamer": self.inf_status}`, `outputs = self.model.generate(**inputs, **generate_kwargs)`;
  resume_kv_cache: `output = self.model.generate(input_ids, past_key_values=self.past_key_values, max_new_tokens=1,
  return_dict_in_generate=True, return_legacy_cache=True)`, `self.past_key_values = output.past_key_values`,
  `self.current_tokens = output.sequences`, `len(self.past_key_values[0][0][0][0])`; resume_generate: `if
  len(current_output[0]) < len(self.current_tokens[0]): current_output = self.current_tokens`, `outputs =
  self.model.generate(current_output, past_key_values=self.past_key_values, max_new_tokens=max_tokens,
  temperature=temperature, streamer=self.inf_status)`).
Reduced: token ids instead of chat messages (no tokenizer, LoRA adapters, status lock or preemption exception),
greedy decoding (the temperature is dropped), a print instead of the logger; the request's generate kwargs also fix
`min_new_tokens` (the oracle's model is random).
"""

from copy import deepcopy

import torch
from transformers import AutoModelForCausalLM
from transformers.generation.streamers import BaseStreamer


class InferenceStatus(BaseStreamer):
    def __init__(self):
        super().__init__()
        self.intermediate = []

    def put(self, value):
        value = value.tolist()
        if not self.intermediate:
            self.intermediate = value
        else:
            for i, v in enumerate(value):
                self.intermediate[i].append(v)

    def end(self):
        pass

    def get(self):
        return deepcopy(self.intermediate)

    def delete(self):
        self.intermediate = []


class TransformersBackend:
    def __init__(self, pretrained_model_name_or_path):
        self.model = AutoModelForCausalLM.from_pretrained(pretrained_model_name_or_path).eval()
        self.inf_status = InferenceStatus()
        self.past_key_values = None
        self.current_tokens = None

    def generate(self, input_ids, max_tokens=3):
        generate_kwargs = {"max_new_tokens": max_tokens, "min_new_tokens": max_tokens, "do_sample": False,
                           "streamer": self.inf_status}
        with torch.no_grad():
            outputs = self.model.generate(input_ids, **generate_kwargs)  # clean: sv_generate
        status = self.inf_status.get()
        self.inf_status.delete()
        return outputs, status

    def resume_kv_cache(self, request_datas):
        with torch.no_grad():
            input_ids = torch.tensor(request_datas)
            output = self.model.generate(input_ids, past_key_values=self.past_key_values, max_new_tokens=1,  # site: sv_return_legacy
                                         return_dict_in_generate=True, return_legacy_cache=True)
            self.past_key_values = output.past_key_values
            self.current_tokens = output.sequences
        print(f"Resumed {len(self.past_key_values[0][0][0][0])} tokens")

    def resume_generate(self, current_output, max_tokens=2):
        with torch.no_grad():
            current_output = torch.tensor(current_output)
            if len(current_output[0]) < len(self.current_tokens[0]):
                current_output = self.current_tokens
            outputs = self.model.generate(current_output, past_key_values=self.past_key_values,
                                          max_new_tokens=max_tokens, min_new_tokens=max_tokens, do_sample=False,
                                          streamer=self.inf_status)
        return outputs


source = TransformersBackend("meta-llama/Llama-3.2-1B-Instruct")
destination = TransformersBackend("meta-llama/Llama-3.2-1B-Instruct")


def probe_generate():
    outputs, status = source.generate(torch.tensor([[1, 30, 31, 32]]))
    assert outputs.shape == (1, 7) and len(status[0]) == 7


def probe_migrate():
    destination.model.generation_config.min_new_tokens = 1
    _, status = source.generate(torch.tensor([[1, 40, 41, 42]]))
    destination.resume_kv_cache(status)
    outputs = destination.resume_generate(status)
    assert outputs.shape[1] >= 8
