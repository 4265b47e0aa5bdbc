"""Apple's recurrent drafter (apple/ml-recurrent-drafter, ReDrafter): a small recurrent head drafts several tokens
from the base LLM's last hidden state. Its training wrapper `ReDrafter` holds the base `LlamaForCausalLM` and the
drafter; `base_forward` and `forward` run `self.llm.model(input_ids=..., attention_mask=..., past_key_values=...,
position_ids=...)` under `torch.inference_mode()` (`past_key_values` defaulting to None), take `outputs[0]`, and the
drafter unrolls `next_n` steps over the token embeddings (`self.llm.model.embed_tokens(input_ids)`) and the
hidden states, with `self.llm.lm_head` for the base logits.

Provenance (mechanisms read; this code is written here, not copied):
- apple/ml-recurrent-drafter @bd8586bb9bbfa761644c36f932a0cd1eb3f1cdf9
  recurrent_drafting/train/model.py (ReDrafter.from_pretrained: `LlamaForCausalLM.from_pretrained(...)`;
  `base_forward(input_ids, attention_mask, past_key_values=None, position_ids)`: `self.llm.model(...)`,
  `self.llm.lm_head(outputs[0])`; `forward(..., past_key_values=None, position_ids=None, next_n=1)`: the same call,
  `hidden_states = outputs[0].clone()`, `input_embs = self.llm.model.embed_tokens(input_ids)`, the drafter loop).
Reduced: the drafter is one GRU-like cell and one head shared by the steps; no loss, no inference path (the
repository's inference uses its own Llama with its own KV views).
"""

import torch
from torch import nn
from transformers import LlamaForCausalLM


class ReDrafter(nn.Module):
    def __init__(self, llm, hidden):
        super().__init__()
        self.llm = llm
        self.cell = nn.Linear(2 * hidden, hidden)
        self.head = nn.Linear(hidden, llm.config.vocab_size)

    def base_forward(self, input_ids=None, attention_mask=None, past_key_values=None, position_ids=None):
        with torch.inference_mode():
            outputs = self.llm.model(input_ids=input_ids, attention_mask=attention_mask,  # clean: rd_base_forward
                                     past_key_values=past_key_values, position_ids=position_ids)
            return self.llm.lm_head(outputs[0])

    def forward(self, input_ids=None, attention_mask=None, past_key_values=None, position_ids=None, next_n=1):
        with torch.inference_mode():
            outputs = self.llm.model(input_ids=input_ids, attention_mask=attention_mask,  # clean: rd_forward
                                     past_key_values=past_key_values, position_ids=position_ids)
        hidden_states = outputs[0].clone()
        input_embs = self.llm.model.embed_tokens(input_ids).clone()
        h, cumsum = hidden_states, torch.zeros_like(input_embs)
        drafter_logits = []
        for i in range(next_n):
            cumsum = cumsum + torch.roll(input_embs, -(i + 1), dims=1)
            h = torch.tanh(self.cell(torch.cat([h, cumsum], dim=-1)))
            drafter_logits.append(self.head(h))
        return torch.stack(drafter_logits, dim=0)


llm = LlamaForCausalLM.from_pretrained("lmsys/vicuna-7b-v1.3")
redrafter = ReDrafter(llm, llm.config.hidden_size)
batch = torch.tensor([[1, 31, 41, 59, 26, 53]])


def probe_base_logits():
    logits = redrafter.base_forward(input_ids=batch, attention_mask=torch.ones_like(batch))
    assert logits.shape[:2] == (1, 6)


def probe_drafter_logits():
    logits = redrafter(input_ids=batch, attention_mask=torch.ones_like(batch), next_n=3)
    assert logits.shape[:3] == (3, 1, 6)
