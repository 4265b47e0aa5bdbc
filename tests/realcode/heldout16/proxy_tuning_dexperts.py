"""Proxy-tuning (DExperts at decoding time): a large base model is steered by the logit difference of a small tuned
expert and its untuned anti-expert. The project's own `generate` loop keeps one kwargs dict per model; at each step it
asks each model's `prepare_inputs_for_generation(input_ids, **kwargs)` for its inputs, runs the three forwards, mixes
the last-position logits (`base + alpha * (expert - antiexpert)`), picks the token, and its
`_update_model_kwargs_for_generation` stores `outputs.past_key_values` in that model's kwargs and grows the attention
mask by one.

Provenance (mechanisms read; this code is written here, not copied):
- alisawuffles/proxy-tuning @5f2da2c2783b3dd898f76e3df3759f16350d9b15
  modeling/dexperts.py (DExpertsLlama.__init__: three `AutoModelForCausalLM.from_pretrained`; forward: `base_outputs
  = self.base(**base_inputs, return_dict=return_dict)` and the same for expert/antiexpert; generate: `base_kwargs =
  kwargs.copy()`, `for step in range(max_new_tokens):`, `base_inputs = self.base.prepare_inputs_for_generation(
  input_ids, **base_kwargs)`, `next_token_logits = base_next_token_logits + self.alpha * (expert_next_token_logits -
  antiexpert_next_token_logits)`, `input_ids = torch.cat([input_ids, next_tokens[:, None]], dim=-1)`, `base_kwargs =
  self._update_model_kwargs_for_generation(base_outputs, base_kwargs)`; _update_model_kwargs_for_generation:
  `kwargs["past_key_values"] = outputs.past_key_values`, the attention mask grown with `new_ones`), eval/utils.py
  (generate_completions: `batch_outputs = model.generate(input_ids=batch_input_ids, attention_mask=attention_mask,
  stopping_criteria=stopping_criteria, logits_processor=logits_processor, temperature=temperature, top_p=top_p,
  **generation_kwargs)`, the same call for a plain model (the baselines) and for DExperts).
Reduced: no chat-format re-tokenisation of the expert's prompt (the three models read the same ids), greedy
decoding only (the project's `top_k_top_p_filtering` import, gone from transformers, is left out), no analysis data,
no stopping criteria.
"""

import torch
from transformers import AutoModelForCausalLM


class DExpertsLlama:
    def __init__(self, base_name, expert_name, antiexpert_name, alpha=1.0, pad_token_id=0, eos_token_id=2):
        self.base = AutoModelForCausalLM.from_pretrained(base_name).eval()
        self.expert = AutoModelForCausalLM.from_pretrained(expert_name).eval()
        self.antiexpert = AutoModelForCausalLM.from_pretrained(antiexpert_name).eval()
        self.alpha = alpha
        self.pad_token_id = pad_token_id
        self.eos_token_id = eos_token_id

    def forward(self, base_inputs, expert_inputs, antiexpert_inputs, return_dict=None):
        base_outputs = self.base(**base_inputs, return_dict=return_dict)  # clean: px_base_forward
        expert_outputs = self.expert(**expert_inputs, return_dict=return_dict)
        antiexpert_outputs = self.antiexpert(**antiexpert_inputs, return_dict=return_dict)
        return base_outputs, expert_outputs, antiexpert_outputs

    @torch.no_grad()
    def generate(self, input_ids, max_new_tokens=100, **kwargs):
        base_kwargs = kwargs.copy()
        expert_kwargs = kwargs.copy()
        antiexpert_kwargs = kwargs.copy()
        expert_input_ids = input_ids
        unfinished_sequences = torch.ones(input_ids.shape[0], dtype=torch.long)
        for step in range(max_new_tokens):
            base_inputs = self.base.prepare_inputs_for_generation(input_ids, **base_kwargs)  # site: px_prepare_inputs
            expert_inputs = self.expert.prepare_inputs_for_generation(expert_input_ids, **expert_kwargs)
            antiexpert_inputs = self.antiexpert.prepare_inputs_for_generation(input_ids, **antiexpert_kwargs)
            base_outputs, expert_outputs, antiexpert_outputs = self.forward(
                base_inputs, expert_inputs, antiexpert_inputs, return_dict=True)
            base_next_token_logits = base_outputs.logits[..., -1, :]
            expert_next_token_logits = expert_outputs.logits[..., -1, :base_next_token_logits.shape[-1]]
            antiexpert_next_token_logits = antiexpert_outputs.logits[..., -1, :]
            next_token_logits = (base_next_token_logits
                                 + self.alpha * (expert_next_token_logits - antiexpert_next_token_logits))
            next_tokens = torch.argmax(next_token_logits, dim=-1)
            next_tokens = next_tokens * unfinished_sequences + self.pad_token_id * (1 - unfinished_sequences)
            input_ids = torch.cat([input_ids, next_tokens[:, None]], dim=-1)
            expert_input_ids = torch.cat([expert_input_ids, next_tokens[:, None]], dim=-1)
            base_kwargs = self._update_model_kwargs_for_generation(base_outputs, base_kwargs)
            expert_kwargs = self._update_model_kwargs_for_generation(expert_outputs, expert_kwargs)
            antiexpert_kwargs = self._update_model_kwargs_for_generation(antiexpert_outputs, antiexpert_kwargs)
            unfinished_sequences = unfinished_sequences.mul((next_tokens != self.eos_token_id).long())
            if unfinished_sequences.max() == 0:
                break
        return input_ids, base_kwargs

    def _update_model_kwargs_for_generation(self, outputs, kwargs):
        kwargs["past_key_values"] = outputs.past_key_values  # clean: px_keep_cache
        if "attention_mask" in kwargs:
            attention_mask = kwargs["attention_mask"]
            kwargs["attention_mask"] = torch.cat(
                [attention_mask, attention_mask.new_ones((attention_mask.shape[0], 1))], dim=-1)
        return kwargs


def generate_completions(model, batch_input_ids, temperature=1.0, top_p=1.0, **generation_kwargs):
    attention_mask = torch.ones_like(batch_input_ids)
    batch_outputs = model.generate(input_ids=batch_input_ids, attention_mask=attention_mask, stopping_criteria=None,  # clean: px_baseline_generate
                                   logits_processor=None, temperature=temperature, top_p=top_p, **generation_kwargs)
    return batch_outputs[:, batch_input_ids.shape[1]:]


dexperts = DExpertsLlama("meta-llama/Llama-2-13b-hf", "meta-llama/Llama-2-7b-chat-hf", "meta-llama/Llama-2-7b-hf",
                         eos_token_id=-1)
prompt = torch.tensor([[1, 11, 12, 13, 14]])


def probe_first_token():
    ids, base_kwargs = dexperts.generate(prompt, 1, attention_mask=torch.ones_like(prompt),
                                         use_cache=True)
    assert ids.shape == (1, 6) and base_kwargs["past_key_values"].get_seq_length() == 5


def probe_baseline():
    out = generate_completions(dexperts.base, prompt, max_new_tokens=3, min_new_tokens=3, do_sample=False)
    assert out.shape == (1, 3)


def probe_generate():
    ids, base_kwargs = dexperts.generate(prompt, 3, attention_mask=torch.ones_like(prompt),
                                         use_cache=True)
    assert ids.shape == (1, 8)
    assert base_kwargs["past_key_values"].get_seq_length() == 7, "px_prepare_inputs: the cache did not grow by one token a step"  # observe: px_prepare_inputs
