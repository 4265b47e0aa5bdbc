"""Retrieval_Head (nightdessert): detects retrieval heads with needle-in-a-haystack prompts. The question is
prefilled once with `use_cache=True`, then the answer is decoded one token at a time with `past_key_values=` the
previous output's cache and `output_attentions=True`; for every layer and head the most attended prompt position of
the step is checked against the needle span, and the score is accumulated per head.

Provenance (mechanisms read; this code is written here, not copied):
- nightdessert/Retrieval_Head @3ac171a6f71ce7ef1cda57d4215c390fb6ab51f2
  retrieval_head_detection.py (`q_outputs = self.model_to_test(input_ids=input_ids[:, :-1], use_cache=True,
  return_dict=True)`; `decode`: `past_kv = q_outputs.past_key_values`, `outputs = self.model_to_test(input_ids=inp,
  past_key_values=past_kv, use_cache=True, output_attentions=True, attn_mode="torch")`, `past_kv =
  outputs.past_key_values`, `inp = outputs.logits[0, -1].argmax()`; `retrieval_calculate`: `attention_matrix[layer_idx]
  [0][head_idx][-1].topk(k)`, the score added when the attended position holds the emitted token inside the needle)
  and needle_in_haystack_with_mask.py (the same decode loop).
Reduced: the project's own modeling files (the `attn_mode` keyword) are the stock Llama in eager attention, a fixed
token prompt with a needle span instead of Paul Graham essays and a tokenizer, no stopping on a newline.
"""

import torch
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf", attn_implementation="eager").eval()
layer_num, head_num = model.config.num_hidden_layers, model.config.num_attention_heads
prompt_ids = torch.tensor([[1, 80, 81, 82, 83, 84, 85, 86]])
needle_start, needle_end = 3, 6


def retrieval_calculate(attentions, retrieval_score, inp):
    for layer_idx in range(layer_num):
        for head_idx in range(head_num):
            values, idx = attentions[layer_idx][0][head_idx][-1].topk(1)
            for i in idx:
                if needle_start <= i < needle_end and inp.item() == prompt_ids[0, i].item():
                    retrieval_score[layer_idx][head_idx] += 1 / (needle_end - needle_start)


@torch.no_grad()
def decode(q_outputs, inp, decode_len):
    output, retrieval_score = [], [[0.0] * head_num for _ in range(layer_num)]
    past_kv = q_outputs.past_key_values  # clean: rh_question_cache
    for _ in range(decode_len):
        inp = inp.view(1, 1)
        outputs = model(input_ids=inp, past_key_values=past_kv, use_cache=True, output_attentions=True)  # clean: rh_step
        past_kv = outputs.past_key_values  # clean: rh_carry_cache
        inp = outputs.logits[0, -1].argmax()
        output.append(inp.item())
        retrieval_calculate(outputs.attentions, retrieval_score, inp)
    return output, retrieval_score, past_kv


@torch.no_grad()
def question(input_ids):
    return model(input_ids=input_ids[:, :-1], use_cache=True, return_dict=True)  # clean: rh_prefill


def probe_detect():
    q_outputs = question(prompt_ids)
    output, score, cache = decode(q_outputs, prompt_ids[0, -1], decode_len=3)
    assert len(output) == 3 and len(score) == layer_num and cache.get_seq_length() == 10
