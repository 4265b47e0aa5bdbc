"""Fuzzy speculative decoding's CommonsenseQA evaluation: a large target model generates each answer with a small
draft model as `assistant_model` (assisted generation), sampling with temperature/top-k/top-p up to the prompt
length plus a budget, and the answer is cut off the prompt by token count.

Provenance (mechanisms read; this code is written here, not copied):
- maxholsman/fsd @01cbbde554622eebf0cdd0a525bea37ae4d9a3a6 csqa_eval_example.py (`model.generate(
  **question_tokenized, max_length=question_tokenized['input_ids'].shape[1] + 512, do_sample=do_sample,
  assistant_model=small_model, temperature=..., top_k=..., top_p=...)`, `outputs[0][input_len:]` decoded as the
  answer, `extract_latest_answer` with a regular expression)
Reduced: the stock model classes replace the project's FSD subclasses (and their extra generate keywords); the
dataset is two inline questions; the budget is a few tokens (no minimum length: 4.57.6 refuses one with an
assistant model, so the probes assert nothing about the answer length).
"""

import re

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

small_model_id = "meta-llama/Meta-Llama-3.1-8B-Instruct"
large_model_id = "meta-llama/Meta-Llama-3.1-70B-Instruct"
tokenizer = AutoTokenizer.from_pretrained(small_model_id)
small_model = AutoModelForCausalLM.from_pretrained(small_model_id, torch_dtype=torch.float32)
model = AutoModelForCausalLM.from_pretrained(large_model_id, torch_dtype=torch.float32)


def extract_latest_answer(response):
    for sentence in reversed(response.split(". ")):
        match = re.search(r"Therefore, the answer is ([A-Za-z])", sentence)
        if match:
            return match.group(1)
    return None


def eval_commonsenseqa(questions, do_sample=True, temperature=0.6, top_k=50, top_p=0.9, budget=6):
    outputs_per_question = []
    with torch.no_grad():
        for question in questions:
            question_tokenized = tokenizer(f"Question: {question} Answer:", return_tensors="pt")
            prompt_len = question_tokenized["input_ids"].shape[1]
            outputs = model.generate(**question_tokenized, max_length=prompt_len + budget,  # clean: fs_assisted_generate
                                     do_sample=do_sample, assistant_model=small_model, temperature=temperature,
                                     top_k=top_k, top_p=top_p)
            generated_answer_tokens = outputs[0][prompt_len:]
            outputs_per_question.append(tokenizer.decode(generated_answer_tokens, skip_special_tokens=True))
    return outputs_per_question


def probe_eval():
    answers = eval_commonsenseqa(["where do people go", "what needs cable"])
    assert len(answers) == 2
    assert all(extract_latest_answer(a) is None or len(extract_latest_answer(a)) == 1 for a in answers)


def probe_greedy_eval():
    answers = eval_commonsenseqa(["where do people go"], do_sample=False, temperature=None, top_k=None, top_p=None)
    assert len(answers) == 1
