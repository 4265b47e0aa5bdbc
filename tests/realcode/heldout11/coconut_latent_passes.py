"""Coconut (continuous chain of thought, facebookresearch/coconut): the latent tokens of a question are filled in
over several passes of the base causal LM on `inputs_embeds`. The first pass runs the prefix before the first latent
token; every later pass cuts the previous pass's cache back to the start of the range it computes (`for k, v in
kv_cache`, slicing each key and value) and hands that list of (key, value) pairs to the model with
`past_key_values=`, then writes the last hidden state into the next latent position of `inputs_embeds`.

Provenance (mechanisms read; this code is written here, not copied):
- facebookresearch/coconut @27273cb8cca4bb763c041a63b036d0c3b7cbbb48
  coconut.py (Coconut.forward: `next_compute_range`, the first pass `self.base_causallm(inputs_embeds=inputs_embeds[:,
  a:b, :], attention_mask=..., position_ids=..., output_hidden_states=True)`, later passes `past_key_values = [(k[:, :,
  :next_compute_range[0], :], v[:, :, :next_compute_range[0], :]) for k, v in kv_cache]` passed with
  `attention_mask[:, :next_compute_range[1]]`, `kv_cache = outputs.past_key_values`, `hidden_states =
  outputs.hidden_states[-1]`, the feedback of the last hidden state into the latent positions).
Reduced: one question, batch 1, GPT-2 replaced by a Llama causal LM; the prefix cut and the cached pass split into
helpers, each reached by its own probe (in the original the cut runs right before the pass); no loss.
"""

import torch
from torch import nn
from transformers import AutoModelForCausalLM

base = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")


def cut_prefix(kv_cache, end):
    return [(k[:, :, :end, :], v[:, :, :end, :]) for k, v in kv_cache]  # site: cn_cut_prefix


class Coconut(nn.Module):
    def __init__(self, base_causallm, latent_positions):
        super().__init__()
        self.base_causallm = base_causallm
        self.embedding = base_causallm.get_input_embeddings()
        self.latent_positions = latent_positions

    def first_pass(self, inputs_embeds, attention_mask, position_ids, end):
        return self.base_causallm(inputs_embeds=inputs_embeds[:, :end, :], attention_mask=attention_mask[:, :end],  # clean: cn_first_pass
                                  position_ids=position_ids[:, :end], output_hidden_states=True)

    def cached_pass(self, inputs_embeds, attention_mask, position_ids, past_key_values, start, end):
        return self.base_causallm(inputs_embeds=inputs_embeds[:, start:end, :], attention_mask=attention_mask[:, :end],  # site: cn_cached_pass
                                  position_ids=position_ids[:, start:end], past_key_values=past_key_values,
                                  output_hidden_states=True)

    def prefix(self, input_ids):
        inputs_embeds = self.embedding(input_ids).detach().clone()
        attention_mask = torch.ones_like(input_ids)
        position_ids = torch.arange(input_ids.shape[1]).unsqueeze(0)
        outputs = self.first_pass(inputs_embeds, attention_mask, position_ids, self.latent_positions[0])
        kv_cache = outputs.past_key_values  # clean: cn_keep_cache
        return inputs_embeds, attention_mask, position_ids, outputs, kv_cache

    def forward(self, input_ids):
        inputs_embeds, attention_mask, position_ids, outputs, kv_cache = self.prefix(input_ids)
        start, end = 0, self.latent_positions[0]
        for pass_idx, latent in enumerate(self.latent_positions):
            hidden = outputs.hidden_states[-1]
            inputs_embeds[:, latent, :] = hidden[:, latent - 1 - start, :]
            start, end = end, latent + 1
            outputs = self.cached_pass(inputs_embeds, attention_mask, position_ids, cut_prefix(kv_cache, start),
                                       start, end)
            kv_cache = outputs.past_key_values
        return outputs


coconut = Coconut(base, latent_positions=[4, 5])
question = torch.tensor([[1, 21, 32, 43, 0, 0, 54]])


def probe_prefix():
    with torch.no_grad():
        *_, kv_cache = coconut.prefix(question)
    assert kv_cache.get_seq_length() == 4


def probe_cut_prefix():
    out = coconut.first_pass(coconut.embedding(question), torch.ones_like(question),
                             torch.arange(7).unsqueeze(0), 4)
    pairs = cut_prefix(out.past_key_values, 3)
    assert pairs[0][0].shape[2] == 3


def probe_cached_pass():
    cfg = base.config
    head_dim = getattr(cfg, "head_dim", None) or cfg.hidden_size // cfg.num_attention_heads
    pairs = [(torch.zeros(1, cfg.num_key_value_heads, 4, head_dim), torch.zeros(1, cfg.num_key_value_heads, 4, head_dim))
             for _ in range(cfg.num_hidden_layers)]
    with torch.no_grad():
        coconut.cached_pass(coconut.embedding(question), torch.ones_like(question), torch.arange(7).unsqueeze(0),
                            pairs, 4, 5)
