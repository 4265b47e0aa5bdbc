"""LMQL's LMTP `transformers` backend: the serving process behind LMQL's constrained decoding scores a token
sequence by calling the model's own `prepare_inputs_for_generation(input_ids, **model_kwargs,
attention_mask=..., eos_token_id=...)` and running the model on what it returns, and generates by building a
`generate` keyword dictionary (greedy or sampled, a logits-bias processor, `output_scores=True`,
`return_dict_in_generate=True`) merged with the user's keywords.

Provenance (mechanisms read; this code is written here, not copied):
- eth-sri/lmql @fc8edd4457dc5a5e4e595302166bec797582bf53
  src/lmql/models/lmtp/backends/transformers_model.py (TransformersLLM.score: `model_inputs =
  self.model.prepare_inputs_for_generation(input_ids, **model_kwargs, attention_mask=attention_mask,
  eos_token_id=self.eos_token_id)`, `model_inputs["attention_mask"] = attention_mask`, `outputs =
  self.model(**model_inputs, return_dict=True, output_attentions=False, output_hidden_states=False)`, the
  log-softmax gather of each token's score; TransformersLLM.generate: `generate_args = {"input_ids": ...,
  "do_sample": temperature > 0.0, "attention_mask": ..., "max_new_tokens": ..., "logits_processor": ...,
  "output_scores": True, "return_dict_in_generate": True}`, `self.model.generate(**generate_args)`).
Reduced: no AWQ loader or torch.compile, the bias processor a plain logits processor, no streamer.
"""

import numpy as np
import torch
from transformers import AutoModelForCausalLM, LogitsProcessor, LogitsProcessorList


class BiasProcessor(LogitsProcessor):
    def __init__(self, bias):
        self.bias = bias

    def __call__(self, input_ids, scores):
        return scores if self.bias is None else scores + self.bias


class TransformersLLM:
    def __init__(self, model_identifier):
        self.model = AutoModelForCausalLM.from_pretrained(model_identifier)
        self.device = self.model.device

    @property
    def eos_token_id(self):
        return self.model.config.eos_token_id

    def score(self, input_ids, attention_mask, **model_kwargs):
        input_ids = torch.tensor(input_ids).to(self.device)
        attention_mask = torch.tensor(attention_mask).to(self.device)
        model_inputs = self.model.prepare_inputs_for_generation(input_ids, **model_kwargs, attention_mask=attention_mask,  # clean: lq_prepare_inputs
                                                                eos_token_id=self.eos_token_id)
        model_inputs["attention_mask"] = attention_mask
        outputs = self.model(**model_inputs, return_dict=True, output_attentions=False,
                             output_hidden_states=False)
        next_token_logits = torch.log_softmax(outputs.logits[:, :-1, :], dim=-1)
        token_scores = next_token_logits.gather(-1, input_ids[:, 1:].unsqueeze(-1))
        return np.array([[0.0] + scores.flatten().tolist() for scores in token_scores])

    def generate(self, input_ids, attention_mask, temperature, max_new_tokens, bias_tensor, **kwargs):
        input_ids = torch.tensor(input_ids).to(self.device)
        attention_mask = torch.tensor(attention_mask).to(self.device)
        generate_args = {
            "input_ids": input_ids,
            "do_sample": temperature > 0.0,
            "attention_mask": attention_mask,
            **({"temperature": temperature} if temperature > 0.0 else {}),
            "max_new_tokens": max_new_tokens,
            "logits_processor": LogitsProcessorList([BiasProcessor(bias_tensor)]),
            "output_scores": True,
            "return_dict_in_generate": True,
        }  # clean: lq_generate_args
        generate_args.update(kwargs)
        return self.model.generate(**generate_args)  # clean: lq_generate


llm = TransformersLLM("gpt2-medium")


def probe_score():
    scores = llm.score([[1, 5, 9, 13, 17]], [[1, 1, 1, 1, 1]])
    assert scores.shape == (1, 5)


def probe_generate():
    llm.model.generation_config.min_new_tokens = 4
    out = llm.generate([[1, 5, 9]], [[1, 1, 1]], 0.0, 4, None)
    assert out.sequences.shape == (1, 7) and len(out.scores) == 4


def probe_generate_with_cache_kwargs():
    llm.model.generation_config.min_new_tokens = 2
    out = llm.generate([[1, 5, 9]], [[1, 1, 1]], 0.0, 2, None, use_cache=True)
    assert out.sequences.shape == (1, 5)
