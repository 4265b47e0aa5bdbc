"""Induce-then-Contrast Decoding (HillZhang1999/ICD): `ContrastiveDecoding` loads a base (expert) model and an
"evil" amateur model fine-tuned to hallucinate, and decodes with the difference of their next-token scores. Its
`generate` calls the forked `model.generate(..., contrastive_decoding=True, student_model=self.amateur_model)`; a
contrastive loop outside the fork keeps one `model_kwargs` per model, builds each step's inputs with
`prepare_inputs_for_generation(input_ids, **model_kwargs)` / `(..., **model_kwargs_student)`, runs both models,
scores `(1 + beta) * expert - beta * amateur` under an alpha plausibility cutoff, and carries each model's cache on
with `_update_model_kwargs_for_generation`; the prompt-contrastive mode (`evil_input_ids=`) contrasts the same model
on the "evil" prompt, whose cache the loop keeps for that side. The baseline mode is a plain `generate` with
`output_scores=True, return_dict_in_generate=True`.

Provenance (mechanisms read; this code is written here, not copied):
- HillZhang1999/ICD @20ee87accc12012dd06e7962623f0dbb0785af69 src/decoding_algorithm/contrastive_decoding.py
  (ContrastiveDecoding.generate modes baseline / contrastive-decoding / prompt-contrastive-decoding, lm_score); the
  fork's transformers/src/transformers/generation/utils.py was listed, not read: the two-model_kwargs loop here is the
  shape such contrastive loops take (prepare_inputs_for_generation per model, _update_model_kwargs_for_generation).
The prompt-contrastive mode is also written the two ways it runs without the fork: transformers' own negative-prompt
guidance (`negative_prompt_ids=`, `guidance_scale=`) and a loop that keeps the normal and the evil prompt's caches side
by side.
Reduced: two tiny Llamas from one config (no checkpoints); greedy choice; the loop is written as a 4.4x-era port
outside the fork (the cache position of each side built with generate's own helper, as generate did then).
"""

import math

import torch
from transformers import LlamaConfig, LlamaForCausalLM

config = LlamaConfig(vocab_size=320, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                     num_attention_heads=4, num_key_value_heads=2, bos_token_id=1, eos_token_id=2, pad_token_id=0)
torch.manual_seed(0)
expert = LlamaForCausalLM(config).eval()
torch.manual_seed(1)
amateur = LlamaForCausalLM(config).eval()


def init_model_kwargs(model, input_ids):
    model_kwargs = {"attention_mask": torch.ones_like(input_ids), "use_cache": True}
    return model._get_initial_cache_position(input_ids.shape[1], input_ids.device, model_kwargs)  # site: icd_initial_cache_position


@torch.no_grad()
def contrastive_decode(input_ids, max_new_tokens, alpha=0.1, beta=0.5):
    model_kwargs = init_model_kwargs(expert, input_ids)
    model_kwargs_student = init_model_kwargs(amateur, input_ids)
    for _ in range(max_new_tokens):
        model_inputs = expert.prepare_inputs_for_generation(input_ids, **model_kwargs)
        outputs = expert(**model_inputs, return_dict=True)
        scores = outputs.logits[:, -1, :].log_softmax(-1)
        cutoff = math.log(alpha) + scores.max(dim=-1, keepdim=True).values
        model_inputs_student = amateur.prepare_inputs_for_generation(input_ids, **model_kwargs_student)
        outputs_student = amateur(**model_inputs_student, return_dict=True)
        student_scores = outputs_student.logits[:, -1, :].log_softmax(-1)
        diffs = (1 + beta) * scores - beta * student_scores
        next_tokens = diffs.masked_fill(scores < cutoff, -float("inf")).argmax(dim=-1)
        input_ids = torch.cat([input_ids, next_tokens[:, None]], dim=-1)
        model_kwargs = expert._update_model_kwargs_for_generation(outputs, model_kwargs)
        model_kwargs_student = amateur._update_model_kwargs_for_generation(outputs_student, model_kwargs_student)
    return input_ids


@torch.no_grad()
def evil_prefix(evil_input_ids):
    outputs = expert(input_ids=evil_input_ids, use_cache=True)
    prefix_cache = outputs.past_key_values  # clean: icd_outputs_past
    return prefix_cache.get_seq_length(), outputs.logits[:, -1, :]


@torch.no_grad()
def evil_prefix_kwargs(evil_input_ids):
    kwargs = {"attention_mask": torch.ones_like(evil_input_ids), "use_cache": True,
              "cache_position": torch.arange(evil_input_ids.shape[1])}
    outputs = expert(input_ids=evil_input_ids, **kwargs)
    kwargs = expert._update_model_kwargs_for_generation(outputs, kwargs)
    return kwargs["past_key_values"]  # site: icd_evil_cache_key


def prompt_contrast_generate(input_ids, evil_input_ids, max_new_tokens=3, guidance_scale=1.5):
    return expert.generate(input_ids, negative_prompt_ids=evil_input_ids, guidance_scale=guidance_scale,  # clean: icd_guidance_generate
                           max_new_tokens=max_new_tokens, do_sample=False)


@torch.no_grad()
def prompt_contrast_loop(input_ids, evil_input_ids, max_new_tokens=3, beta=0.5):
    out = expert(input_ids=input_ids, use_cache=True)
    evil_out = expert(input_ids=evil_input_ids, use_cache=True)
    past, evil_past = out.past_key_values, evil_out.past_key_values
    for _ in range(max_new_tokens):
        scores = out.logits[:, -1, :].log_softmax(-1)
        evil_scores = evil_out.logits[:, -1, :].log_softmax(-1)
        next_tokens = ((1 + beta) * scores - beta * evil_scores).argmax(dim=-1, keepdim=True)
        input_ids = torch.cat([input_ids, next_tokens], dim=-1)
        out = expert(input_ids=next_tokens, past_key_values=past, use_cache=True)  # clean: icd_cond_step
        evil_out = expert(input_ids=next_tokens, past_key_values=evil_past, use_cache=True)  # clean: icd_evil_step
        past, evil_past = out.past_key_values, evil_out.past_key_values
    return input_ids, past.get_seq_length(), evil_past.get_seq_length()


def baseline(input_ids, max_new_tokens=3):
    outputs = expert.generate(input_ids, max_length=input_ids.shape[-1] + max_new_tokens,  # clean: icd_baseline_generate
                              num_return_sequences=1, output_scores=True, return_dict_in_generate=True,
                              do_sample=False)
    return outputs.sequences, outputs.scores


prompt = torch.tensor([[1, 30, 31, 32, 33]])
evil_prompt = torch.tensor([[1, 40, 41, 42, 30, 31, 32, 33]])


def probe_contrastive():
    out = contrastive_decode(prompt, 3)
    assert out.shape == (1, 8)


def probe_evil_prefix():
    n, logits = evil_prefix(evil_prompt)
    assert n == 8 and logits.shape == (1, 320)


def probe_evil_prefix_kwargs():
    cache = evil_prefix_kwargs(evil_prompt)
    assert cache.get_seq_length() == 8


def probe_prompt_contrast():
    expert.generation_config.min_new_tokens = 3
    out = prompt_contrast_generate(prompt, evil_prompt)
    assert out.shape == (1, 8)
    ids, n, evil_n = prompt_contrast_loop(prompt, evil_prompt)
    assert ids.shape == (1, 8) and (n, evil_n) == (8, 11)


def probe_baseline():
    expert.generation_config.min_new_tokens = 3
    sequences, scores = baseline(prompt)
    assert sequences.shape == (1, 8) and len(scores) == 3
