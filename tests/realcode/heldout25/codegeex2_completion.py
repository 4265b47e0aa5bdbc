"""CodeGeeX2 (THUDM/CodeGeeX2): a multilingual code model (ChatGLM2 architecture). Its HumanEval-X evaluation worker
pulls problems over zmq and generates per problem in one of two modes: "instruction" calls
`model.generate(**inputs, max_length=..., do_sample=not greedy, use_cache=True, top_p=..., top_k=...,
temperature=..., pad_token_id=tokenizer.eos_token_id)` for a batch of the same prompt; "completion" adds a
`CodeStoppingCriteria` (a StoppingCriteria that decodes each row after the prompt and stops once every row has
reached a new top-level statement or `max_length`) and cleans the code after the prompt.

Provenance (mechanisms read; this code is written here, not copied):
- THUDM/CodeGeeX2 @754a2082356dec1293826c03d2dc4fcc9e48f160
  evaluation/generation.py (CodeStoppingCriteria, the two `model.generate` calls, cleanup_code).
Reduced: the oracle's tiny Llama stands for the ChatGLM2 checkpoint (its remote code is not in the repository);
the stopping test looks for a stop word in the decoded tail; greedy decoding; no zmq.
"""

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, StoppingCriteria

MODEL = "THUDM/codegeex2-6b"
tokenizer = AutoTokenizer.from_pretrained(MODEL)
model = AutoModelForCausalLM.from_pretrained(MODEL).eval()


class CodeStoppingCriteria(StoppingCriteria):
    def __init__(self, max_length, micro_batch_size, prompt_len, stop_words=("def", "class", "print")):
        self.max_length = max_length
        self.micro_batch_size = micro_batch_size
        self.prompt_len = prompt_len
        self.stop_words = stop_words

    def __call__(self, input_ids, scores, **kwargs):
        if input_ids.shape[-1] >= self.max_length:
            return True
        done = 0
        for row in input_ids:
            tail = tokenizer.decode(row[self.prompt_len:])
            done += any(w in tail.split() for w in self.stop_words)
        return done == self.micro_batch_size


def run_problem(prompt, mode, micro_batch_size=2, max_length=16):
    inputs = tokenizer([prompt] * micro_batch_size, return_tensors="pt")
    if mode == "instruction":
        outputs = model.generate(**inputs, max_length=max_length, do_sample=False, use_cache=True,  # clean: cg_instruction
                                 pad_token_id=tokenizer.eos_token_id)
    else:
        stop = CodeStoppingCriteria(max_length, micro_batch_size, inputs.input_ids.shape[1])
        outputs = model.generate(**inputs, max_length=max_length, do_sample=False, use_cache=True,  # clean: cg_completion
                                 stopping_criteria=[stop], pad_token_id=tokenizer.eos_token_id)
    return outputs[:, inputs.input_ids.shape[1]:]


def probe_instruction():
    model.generation_config.min_length = 16
    out = run_problem("write a function that adds two numbers", "instruction")
    assert out.shape[0] == 2 and out.shape[1] == 16 - len(tokenizer("write a function that adds two numbers").input_ids)


def probe_completion():
    out = run_problem("def add ( a , b ) :", "completion")
    assert out.shape[0] == 2 and out.shape[1] >= 1
