"""ProGen2 (salesforce/progen) and its fine-tuning fork (hugohrban/ProGen2-finetuning): conditional protein generation with ProGen2 (family tokens
such as `<|pf03668|>` then amino acids, `1`/`2` as the N-/C-terminus marks, a bidirectional variant sampling
C -> N). The repository vendors its own ProGen modeling (ProGenForCausalLM over ProGenPreTrainedModel(PreTrainedModel))
with legacy tuple caches: `ProGenModel.forward` reads `past_length = past_key_values[0][0].size(-2)` (a tuple of Nones
per block when `past_key_values is None`), each attention concatenates `layer_past` and returns `(key, value)`.
The original release's `progen2/sample.py` (and `likelihood.py`) builds `ProGenForCausalLM` from the same vendored
modeling module and samples with `model.generate(input_ids, do_sample=True, temperature=..., max_length=...,
top_p=..., num_return_sequences=..., pad_token_id=...)`; the fork's `sample.py` does not call `generate`: it feeds the whole prompt batch first, then one sampled token per row with
`output = model(x, past_key_values=past_key_values)`, `past_key_values = output.past_key_values`, top-k filtering and
temperature, until `max_length`.

Provenance (mechanisms read; this code is written here, not copied):
- salesforce/progen @c27a419c234a0997923761e1fe7daffcebf0eaf5
  progen2/models/progen/modeling_progen.py (ProGenPreTrainedModel(PreTrainedModel), ProGenForCausalLM);
  progen2/sample.py (sample: `model.generate(...)` then `tokenizer.decode_batch`).
- hugohrban/ProGen2-finetuning @3532e08d2902724e76ce02020555cc85bbaefb3e
  src/models/progen/modeling_progen.py (ProGenAttention.forward: `layer_past`, `torch.cat((past_key, key), dim=-2)`,
  `present = (key, value) if use_cache`; ProGenModel.forward's cache reads); src/sample.py (sample, truncate).
Reduced: one block of single-head attention without rotary embedding, integer ids instead of the tokenizers
library, greedy top-1 instead of multinomial top-k in the fork's loop (reproducible lengths); the original's sampling keeps
its generate keywords.
"""

import torch
from torch import nn
from transformers import PretrainedConfig, PreTrainedModel
from transformers.modeling_outputs import CausalLMOutputWithPast


class ProGenConfig(PretrainedConfig):
    model_type = "progen"

    def __init__(self, vocab_size=32, n_embd=32, n_positions=64, n_layer=1, use_cache=True, **kwargs):
        super().__init__(**kwargs)
        self.vocab_size, self.n_embd, self.n_positions, self.n_layer = vocab_size, n_embd, n_positions, n_layer
        self.use_cache = use_cache


class ProGenAttention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.out = nn.Linear(dim, dim, bias=False)

    def forward(self, hidden_states, layer_past=None, use_cache=False):
        q, k, v = self.qkv(hidden_states).chunk(3, dim=-1)
        if layer_past is not None:
            k = torch.cat((layer_past[0], k), dim=-2)
            v = torch.cat((layer_past[1], v), dim=-2)
        present = (k, v) if use_cache else None
        scores = q @ k.transpose(-1, -2) / q.shape[-1] ** 0.5
        t, s = q.shape[-2], k.shape[-2]
        scores = scores.masked_fill(torch.ones(t, s, dtype=torch.bool).triu(s - t + 1), float("-inf"))
        return self.out(torch.softmax(scores, -1) @ v), present


class ProGenForCausalLM(PreTrainedModel):
    config_class = ProGenConfig

    def __init__(self, config):
        super().__init__(config)
        self.wte = nn.Embedding(config.vocab_size, config.n_embd)
        self.h = nn.ModuleList([ProGenAttention(config.n_embd) for _ in range(config.n_layer)])
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size)
        self.post_init()

    def forward(self, input_ids, past_key_values=None, use_cache=None, **kwargs):
        use_cache = use_cache if use_cache is not None else self.config.use_cache
        if past_key_values is None:
            past_key_values = tuple([None] * len(self.h))
        else:
            past_length = past_key_values[0][0].size(-2)  # clean: pg_past_length
            assert past_length > 0
        hidden = self.wte(input_ids.long())
        presents = () if use_cache else None
        for block, layer_past in zip(self.h, past_key_values):
            out, present = block(hidden, layer_past=layer_past, use_cache=use_cache)
            hidden = hidden + out
            if use_cache:
                presents = presents + (present,)
        return CausalLMOutputWithPast(logits=self.lm_head(hidden), past_key_values=presents)


torch.manual_seed(0)
model = ProGenForCausalLM(ProGenConfig()).eval()


@torch.no_grad()
def sample(prompt_ids, max_length, num_return_sequences):
    x = torch.zeros((num_return_sequences, len(prompt_ids)), dtype=torch.int32) + torch.tensor(prompt_ids)
    past_key_values = None
    generated = x
    while generated.shape[-1] < max_length:
        output = model(x, past_key_values=past_key_values)  # clean: pg_step_forward
        past_key_values = output.past_key_values  # clean: pg_keep_past
        logits = output.logits[:, -1, :]
        x = torch.argmax(logits, dim=-1, keepdim=True).to(torch.int32)
        generated = torch.cat([generated, x], dim=-1)
    return generated, past_key_values


@torch.no_grad()
def sample_original(context_ids, max_length=12, num_return_sequences=2, temp=0.8, top_p=0.9, pad_token_id=0):
    input_ids = torch.tensor(context_ids).view([1, -1])
    tokens_batch = model.generate(input_ids, do_sample=True, temperature=temp, max_length=max_length,  # site: pg_generate
                                  top_p=top_p, num_return_sequences=num_return_sequences, pad_token_id=pad_token_id)
    return [tokens_batch[i].tolist() for i in range(tokens_batch.shape[0])]


def probe_sample_original():
    samples = sample_original([3, 1, 5, 6, 7])
    assert len(samples) == 2


def probe_sample():
    generated, past = sample([3, 1, 5, 6, 7], max_length=10, num_return_sequences=2)
    assert generated.shape == (2, 10)
    assert past[0][0].shape[-2] == 9
