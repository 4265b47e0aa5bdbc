"""SynCode (uiuc-focal-lab/syncode): grammar-constrained decoding. For greedy or sampled generation of one sequence it
does not call `generate` but drives the model itself, step by step: `_generate` starts with `past_key_values = None`,
prepares the special tokens with the model's private `_prepare_special_tokens(gen_config, False, device=...)`, takes
the sampling warpers from the model's private `_get_logits_warper(gen_config, device)`, then loops: when
`if past_key_values:` holds it feeds only the last token, calls `self.model(input_ids, attention_mask=...,
past_key_values=past_key_values)`, keeps `outputs.past_key_values`, lets the grammar decoder check (and, in the
opportunist mode, mask) the next token, appends it and grows the attention mask by one column. Other modes fall back
to `model.generate(..., logits_processor=..., stop_strings=...)`.

Provenance (mechanisms read; this code is written here, not copied):
- uiuc-focal-lab/syncode @01aeae1f22485338cbdf4daf3a6681b59b3c7541 (2025-03-28; syncode/language_model.py last
  changed at 6ef876739837850bdb3681fb6822098de1db1a96, 2025-03-23)
  syncode/language_model.py (`HuggingFaceModel.generate_grammar_constrained_completion`: `gen_config =
  GenerationConfig.from_model_config(self.model.config)`, the greedy / sample branch to `_generate`, otherwise
  `self.model.generate(**inputs, logits_processor=self.grammar_processor, stop_strings=stop_words, tokenizer=...)`;
  `_generate`: `token_ids, attention_mask, past_key_values = inputs['input_ids'], inputs['attention_mask'], None`,
  `self.model._prepare_special_tokens(gen_config, False, device=self.device)`, `logits_processor =
  self.model._get_logits_warper(gen_config, self.device)`, `if past_key_values: input_ids = token_ids[...,
  -1].unsqueeze(-1)`, `outputs = self.model(input_ids, attention_mask=attention_mask,
  past_key_values=past_key_values)`, `next_token_scores, past_key_values = outputs.logits[:, -1, :],
  outputs.past_key_values`, the attention-mask growth; `_get_next_token`) and notebooks/example_date.ipynb (its
  output: the tuple `past_key_values` deprecation warning of 4.4x).
Reduced: the grammar decoder is a stand-in that accepts every token (SynCode's LR-parser mask store is not about the
cache), no stop criteria nor stop strings (the fallback passes an empty processor list), greedy only, CPU, a fixed prompt; the warper call is kept in its own helper.
"""

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, GenerationConfig, LogitsProcessorList


class AcceptAll:
    def is_valid(self, token_ids, next_token):
        return True

    def __call__(self, token_ids, scores):
        return scores


class HuggingFaceModel:
    def __init__(self, model, tokenizer, **gen_args):
        self.model = model
        self.tokenizer = tokenizer
        self.device = model.device
        self.gen_args = gen_args
        self.grammar_decoder = AcceptAll()

    def warpers(self, gen_config):
        return self.model._get_logits_warper(gen_config, self.device)  # site: sc_logits_warper

    @torch.inference_mode()
    def _generate(self, inputs, gen_config):
        token_ids, attention_mask, past_key_values = inputs["input_ids"], inputs["attention_mask"], None
        self.model._prepare_special_tokens(gen_config, False, device=self.device)  # clean: sc_special_tokens
        max_tokens = self.gen_args["max_new_tokens"] + token_ids.size(1)
        steps = []
        while True:
            if past_key_values:  # clean: sc_truthy_cache
                input_ids = token_ids[..., -1].unsqueeze(-1)
            else:
                input_ids = token_ids
            outputs = self.model(input_ids, attention_mask=attention_mask, past_key_values=past_key_values)  # clean: sc_step
            next_token_scores, past_key_values = outputs.logits[:, -1, :], outputs.past_key_values  # clean: sc_keep_cache
            steps.append(input_ids.shape[1])
            next_token = torch.argmax(next_token_scores, dim=-1)
            if not self.grammar_decoder.is_valid(token_ids, next_token):
                next_token = torch.argmax(self.grammar_decoder(token_ids, next_token_scores), dim=-1)
            token_ids = torch.cat([token_ids, next_token[:, None]], dim=-1)
            if token_ids.size(1) >= max_tokens:
                break
            attention_mask = torch.cat(
                [attention_mask, torch.ones((attention_mask.size(0), 1), dtype=attention_mask.dtype)], dim=-1
            )
        return token_ids, steps, past_key_values

    def fallback(self, inputs, gen_config):
        return self.model.generate(  # clean: sc_fallback_generate
            **inputs, generation_config=gen_config, logits_processor=LogitsProcessorList([]),
            **self.gen_args,
        )


model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf", torch_dtype=torch.float32).eval()
tokenizer = AutoTokenizer.from_pretrained("meta-llama/Llama-2-7b-hf")
lm = HuggingFaceModel(model, tokenizer, max_new_tokens=4, min_new_tokens=4)


def probe_warpers():
    gen_config = GenerationConfig.from_model_config(model.config)
    assert lm.warpers(gen_config) is not None


def probe_constrained_loop():
    inputs = tokenizer("The date today is", return_tensors="pt")
    gen_config = GenerationConfig.from_model_config(model.config)
    ids, steps, cache = lm._generate(inputs, gen_config)
    assert ids.shape[1] == inputs["input_ids"].shape[1] + 4
    assert steps[1:] == [1, 1, 1], f"sc_truthy_cache: later steps re-ran the sequence ({steps})"
    assert cache.get_seq_length() == ids.shape[1] - 1


def probe_fallback():
    inputs = tokenizer("The date today is", return_tensors="pt")
    gen_config = GenerationConfig.from_model_config(model.config)
    out = lm.fallback(inputs, gen_config)
    assert out.shape[1] == inputs["input_ids"].shape[1] + 4
