"""llmware's HFGenerativeModel: instead of `generate`, a hand-written sampling loop that calls the model with the
whole prompt first, then only the last token with `past_key_values=pkv` and a growing attention mask, keeps
`outputs.past_key_values` for the next step, and stops on the end-of-sequence token; the same loop runs again in
the method that serves function-calling models.

Provenance (mechanisms read; this code is written here, not copied):
- llmware-ai/llmware @3e168945ac77c9451ae74d4c94d003ca2ee411bf
  llmware/models.py (HFGenerativeModel.inference: `pkv = None`, `inp_one_time = input_ids[:, -1:]` after the first
  step, `outputs = self.model(input_ids=inp0, attention_mask=inp1, past_key_values=pkv, return_dict=True)`,
  argmax or multinomial over `outputs.logits[:, -1, :]`, `pkv = outputs.past_key_values`, `attn_mask =
  torch.cat([attn_mask, attn_mask.new_ones((attn_mask.shape[0], 1))], dim=-1)`, the `unfinished_sequences` stop
  test; HFGenerativeModel.function_call: the same loop with `self.model(input_ids=inp0, attention_mask=inp1,
  past_key_values=pkv, return_dict=True)`).
Reduced: greedy only, no GPU switch, timing or logit registry, a fixed token budget, function_call returns the
token ids instead of parsing a structured answer.
"""

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer


class HFGenerativeModel:
    def __init__(self, model_name, max_output=6):
        self.model = AutoModelForCausalLM.from_pretrained(model_name)
        self.tokenizer = AutoTokenizer.from_pretrained(model_name)
        self.max_output = max_output

    def inference(self, prompt):
        input_ids = self.tokenizer(prompt, return_tensors="pt").input_ids
        attn_mask = torch.ones(input_ids.shape, dtype=torch.long)
        pkv = None
        new_tokens_generated = 0
        while new_tokens_generated < self.max_output:
            inp_one_time = input_ids
            if new_tokens_generated > 0:
                inp_one_time = input_ids[:, -1:]
            with torch.no_grad():
                outputs = self.model(input_ids=inp_one_time, attention_mask=attn_mask, past_key_values=pkv,  # clean: lw_step
                                     return_dict=True)
            new_tokens_generated += 1
            next_tokens = torch.argmax(outputs.logits[:, -1, :], dim=-1)
            input_ids = torch.cat([input_ids, next_tokens[:, None]], dim=-1)
            pkv = outputs.past_key_values  # clean: lw_keep_pkv
            attn_mask = torch.cat([attn_mask, attn_mask.new_ones((attn_mask.shape[0], 1))], dim=-1)
        return input_ids, pkv

    def function_call(self, prompt):
        input_ids = self.tokenizer(prompt, return_tensors="pt").input_ids
        attn_mask = torch.ones(input_ids.shape, dtype=torch.long)
        pkv = None
        tokens = []
        for step in range(self.max_output):
            inp = input_ids if step == 0 else input_ids[:, -1:]
            with torch.no_grad():
                outputs = self.model(input_ids=inp, attention_mask=attn_mask, past_key_values=pkv, use_cache=True)  # clean: lw_call_step
            pkv = outputs.past_key_values
            token = outputs.logits[:, -1, :].argmax(-1)
            input_ids = torch.cat([input_ids, token[:, None]], dim=-1)
            attn_mask = torch.cat([attn_mask, attn_mask.new_ones((1, 1))], dim=-1)
            tokens.append(int(token[0]))
        return tokens


model = HFGenerativeModel("llmware/bling-1b-0.1")


def probe_inference():
    ids, pkv = model.inference("what is the total amount of the invoice")
    assert ids.shape[1] == 14
    assert pkv.get_seq_length() == 13  # clean: lw_cache_length


def probe_function_call():
    tokens = model.function_call("summarize the key points")
    assert len(tokens) == 6
