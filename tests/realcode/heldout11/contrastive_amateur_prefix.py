"""Contrastive decoding (XiangLi1999/ContrastiveDecoding): the amateur ("student") LM is conditioned on a contrastive
prompt once (`contrastive_out = student_lm(ids)`, `len(contrastive_out.past_key_values)` logged), its cache
expanded to the beam count layer by layer (`[[l1.expand(5, -1, -1, -1) for l1 in l2] for l2 in
student_lm_past]`), and for the "ignore prefix" mode the student's `prepare_inputs_for_generation` is replaced on
the instance by a function with the pre-4.x signature `(input_ids, past=None, **kwargs)` that keeps only the last
token and returns `"past_key_values": past`.

Provenance (mechanisms read; this code is written here, not copied):
- XiangLi1999/ContrastiveDecoding @170e9142e92159c1237d731e240f5eb14aabf428
  text-generation/run_generation.py (`student_lm.prepare_inputs_for_generation =
  ignore_prefix_prepare_inputs_for_generation`; `ignore_prefix_prepare_inputs_for_generation(input_ids, past=None,
  **kwargs)`: `input_ids[:, -1].unsqueeze(-1)`, position ids from the mask's last column, returning
  `"past_key_values": past`; the "prompt" mode: `contrastive_out = student_lm(contrastive_ids['input_ids'])`,
  `len(contrastive_out.past_key_values)`, `student_lm_past = contrastive_out.past_key_values`, the nested expand).
Reduced: a GPT-2 student as in the repository's gpt runs; the student is run by plain `generate` (the repository drives it
from its own patched generation loop in a vendored transformers 4.x, where `past=` was the cache keyword).
"""

import torch
from transformers import AutoModelForCausalLM

student_lm = AutoModelForCausalLM.from_pretrained("gpt2")
contrastive_ids = torch.tensor([[1, 17, 18, 19]])


def ignore_prefix_prepare_inputs_for_generation(input_ids, past=None, **kwargs):
    input_ids = input_ids[:, -1].unsqueeze(-1)
    attention_mask = kwargs.get("attention_mask", None)
    position_ids = kwargs.get("position_ids", None)
    if attention_mask is not None and position_ids is None:
        position_ids = attention_mask.long().cumsum(-1) - 1
        position_ids.masked_fill_(attention_mask == 0, 1)
        position_ids = position_ids[:, -1].unsqueeze(-1)
    else:
        position_ids = None
    return {
        "input_ids": input_ids,
        "past_key_values": past,  # site: cd_hook_past
        "use_cache": kwargs.get("use_cache"),
        "position_ids": position_ids,
        "attention_mask": attention_mask,
    }


def prompt_student():
    contrastive_out = student_lm(contrastive_ids)  # clean: cd_prompt_forward
    n_layers = len(contrastive_out.past_key_values)  # clean: cd_len_past
    student_lm_past = contrastive_out.past_key_values  # clean: cd_keep_past
    return n_layers, student_lm_past


def expand_for_beams(student_lm_past):
    return [[l1.expand(5, -1, -1, -1) for l1 in l2] for l2 in student_lm_past]  # site: cd_expand_layers


def probe_prompt():
    n_layers, past = prompt_student()
    assert n_layers == student_lm.config.num_hidden_layers and past.get_seq_length() == 4


def probe_expand():
    _, past = prompt_student()
    expanded = expand_for_beams(past)
    assert expanded[0][0].shape[0] == 5


def probe_ignore_prefix():
    student_lm.prepare_inputs_for_generation = ignore_prefix_prepare_inputs_for_generation
    student_lm.generation_config.min_new_tokens = 3
    ids = torch.tensor([[1, 21, 22, 23, 24]])
    out = student_lm.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=3, min_new_tokens=3,
                              do_sample=False, return_dict_in_generate=True)
    assert out.past_key_values.get_seq_length() == 5 + 3 - 1, (  # observe: cd_hook_past
        "cd_hook_past: the student decoded each token without its past")
