"""LM-Infinite (Glaciohound): length generalisation of Llama-family models, evaluated by streaming perplexity. A
`Model_Base` wrapper's `forward_features` runs the model with `return_dict=True` and `past_key_values=`, computes the
token NLL from the logits and stores it in the output under `token_nll_list`; the evaluation script feeds the text
chunk by chunk, each with its own attention mask, carrying `past_key_values = output["past_key_values"]` from one
chunk to the next; `generate` hands the prompt to the model's `generate` with `max_new_tokens` and `min_new_tokens`.

Provenance (mechanisms read; this code is written here, not copied):
- Glaciohound/LM-Infinite @a0ce64c6b7ae54f6059668c899603a6eb0c94c18
  models/model_base.py (`forward_features(self, input_ids, attention_mask, output_attentions=False,
  output_hidden_states=False, use_cache=False, past_key_values=None)`: `output = self.model(input_ids=input_ids,
  use_cache=use_cache, attention_mask=attention_mask, return_dict=True, ..., past_key_values=past_key_values)`,
  `logits = output["logits"]`, `F.cross_entropy(...)`, `output["token_nll_list"] = token_nll_list`; `generate`:
  `self.model.generate(input_ids=input_ids, attention_mask=attention_mask, do_sample=do_sample,
  max_new_tokens=max_generation_length, min_new_tokens=min_new_tokens, ...)`) and scripts/eval_infinite_ppl.py
  (`past_key_values = None`, per chunk `output = model.forward_features(input_ids, attention_mask, use_cache=True,
  past_key_values=past_key_values)`, `past_key_values = output["past_key_values"]`).
Reduced: the stock Llama (no lambda-shaped attention patch), no DeepSpeed, two fixed chunks of token ids; each
chunk's mask covers the cache and the chunk (the script's data loader yields the chunk's own mask).
"""

import torch
import torch.nn.functional as F
from torch import nn
from transformers import AutoModelForCausalLM


class Model_Base(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward_features(self, input_ids, attention_mask, use_cache=False, past_key_values=None):
        output = self.model(input_ids=input_ids, use_cache=use_cache, attention_mask=attention_mask, return_dict=True,  # clean: li_model_call
                            past_key_values=past_key_values)
        logits = output["logits"]  # clean: li_logits_key
        batch_size, length, _ = logits.shape
        token_nll = F.cross_entropy(logits[:, :-1].reshape(batch_size * (length - 1), -1), input_ids[:, 1:].reshape(-1),
                                    reduction="none").reshape(batch_size, -1)
        output["token_nll_list"] = [nll[:mask.sum() - 1] for nll, mask in zip(token_nll, attention_mask)]  # clean: li_nll_key
        return output

    def generate(self, input_ids, attention_mask, max_generation_length, min_new_tokens):
        return self.model.generate(input_ids=input_ids, attention_mask=attention_mask, do_sample=False,  # clean: li_generate
                                   max_new_tokens=max_generation_length, min_new_tokens=min_new_tokens)


model = Model_Base(AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf").eval())
chunks = [torch.tensor([1, 160, 161, 162, 163]), torch.tensor([164, 165, 166])]


def stream(chunks):
    all_nll = torch.zeros(0)
    past_key_values = None  # clean: li_no_cache
    seen = 0
    for chunk in chunks:
        with torch.no_grad():
            input_ids = chunk[None]
            attention_mask = torch.ones(1, seen + input_ids.shape[1], dtype=torch.long)
            output = model.forward_features(input_ids, attention_mask, use_cache=True, past_key_values=past_key_values)  # clean: li_chunk
            past_key_values = output["past_key_values"]  # clean: li_carry_cache
        seen += input_ids.shape[1]
        all_nll = torch.cat([all_nll, output["token_nll_list"][0]])
    return all_nll, past_key_values


def probe_stream():
    nll, cache = stream(chunks)
    assert cache.get_seq_length() == 8 and nll.shape[0] >= 6


def probe_generate():
    prompt = chunks[0][None]
    out = model.generate(prompt, torch.ones_like(prompt), 3, 3)
    assert out.shape[1] == 8
