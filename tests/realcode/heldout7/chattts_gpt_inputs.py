"""ChatTTS's GPT: a LlamaModel backbone driven by the project's own decoding loop. Each step the project prepares the
inputs itself (a port of an older transformers `prepare_inputs_for_generation`): for a Cache it takes the length
from `get_seq_length()` and the maximum from `get_max_cache_shape()` (falling back to `get_max_length()` for older
releases), for a legacy tuple from `past_key_values[0][0].shape[2]`; it keeps only the unprocessed tokens, crops
the attention mask when the cache would overflow, narrows the position ids when there is a cache, and builds
`cache_position`; then it calls the backbone with those inputs and keeps `outputs.past_key_values`.

Provenance (mechanisms read; this code is written here, not copied):
- 2noise/ChatTTS @1092c1ffcaa82f4bdef104c35aa5541227c3e1d7
  ChatTTS/model/gpt.py (GPT._prepare_generation_inputs: `isinstance(past_key_values, Cache)`, `past_length =
  int(cache_position[0]) if cache_position is not None else past_key_values.get_seq_length()`, `try:
  max_cache_length = past_key_values.get_max_cache_shape()` / `except: max_cache_length =
  past_key_values.get_max_length()`, the legacy `past_key_values[0][0].shape[2]` branch, `if past_key_values:`
  position narrowing, `cache_position = torch.arange(past_length, past_length + input_length)`; GPT.generate's loop:
  `self.gpt(attention_mask=..., position_ids=..., past_key_values=model_input.past_key_values,
  inputs_embeds=..., use_cache=..., cache_position=model_input.cache_position)`, `past_key_values =
  outputs.past_key_values`).
Reduced: text embeddings only (the audio-code heads, streaming and the static-cache path are left out), greedy.
"""

from dataclasses import dataclass
from typing import Optional

import torch
from transformers import LlamaConfig, LlamaModel
from transformers.cache_utils import Cache


@dataclass
class GenerationInputs:
    position_ids: torch.Tensor
    cache_position: torch.Tensor
    use_cache: bool
    input_ids: Optional[torch.Tensor] = None
    past_key_values: object = None
    attention_mask: Optional[torch.Tensor] = None


class GPT(torch.nn.Module):
    def __init__(self):
        super().__init__()
        config = LlamaConfig(vocab_size=320, hidden_size=128, intermediate_size=128, num_hidden_layers=2,
                             num_attention_heads=2, num_key_value_heads=1, head_dim=64)
        self.gpt = LlamaModel(config)
        self.emb_text = torch.nn.Embedding(320, 128)
        self.head_text = torch.nn.Linear(128, 320, bias=False)

    @torch.no_grad()
    def prepare_generation_inputs(self, input_ids, past_key_values=None, attention_mask=None, cache_position=None,
                                  use_cache=True):
        past_length = 0
        max_cache_length = None
        if past_key_values is not None:
            if isinstance(past_key_values, Cache):
                past_length = (int(cache_position[0]) if cache_position is not None
                               else past_key_values.get_seq_length())  # clean: ct_seq_length
                try:
                    max_cache_length = past_key_values.get_max_cache_shape()  # site: ct_max_shape
                except Exception:
                    max_cache_length = past_key_values.get_max_length()  # clean: ct_max_length_fallback
                cache_length = past_length if max_cache_length is None else min(max_cache_length, past_length)
            else:
                cache_length = past_length = past_key_values[0][0].shape[2]  # clean: ct_legacy_length
            if attention_mask is not None and attention_mask.shape[1] > input_ids.shape[1]:
                start = attention_mask.shape[1] - past_length
                input_ids = input_ids.narrow(1, -start, start)
            elif past_length < input_ids.shape[1]:
                input_ids = input_ids.narrow(1, past_length, input_ids.size(1) - past_length)
            if (max_cache_length is not None and attention_mask is not None
                    and cache_length + input_ids.shape[1] > max_cache_length):
                attention_mask = attention_mask.narrow(1, -max_cache_length, max_cache_length)  # observe: ct_max_shape
        position_ids = None
        if attention_mask is not None:
            position_ids = attention_mask.long().cumsum(-1) - 1
            position_ids.masked_fill_(attention_mask.eq(0), 1)
            if past_key_values:  # clean: ct_cache_truthy
                position_ids = position_ids.narrow(1, -input_ids.shape[1], input_ids.shape[1])
        input_length = position_ids.shape[-1] if position_ids is not None else input_ids.shape[-1]
        cache_position = torch.arange(past_length, past_length + input_length)
        return GenerationInputs(position_ids, cache_position, use_cache, input_ids.contiguous(), past_key_values,
                                attention_mask)

    @torch.no_grad()
    def generate(self, input_ids, max_new_token=4):
        past_key_values = None
        attention_mask = torch.ones_like(input_ids)
        for _ in range(max_new_token):
            model_input = self.prepare_generation_inputs(input_ids, past_key_values, attention_mask)
            outputs = self.gpt(  # clean: ct_backbone_step
                attention_mask=model_input.attention_mask,
                position_ids=model_input.position_ids,
                past_key_values=model_input.past_key_values,
                inputs_embeds=self.emb_text(model_input.input_ids),
                use_cache=model_input.use_cache,
                cache_position=model_input.cache_position,
            )
            past_key_values = outputs.past_key_values  # clean: ct_keep_cache
            next_id = self.head_text(outputs.last_hidden_state[:, -1]).argmax(-1, keepdim=True)
            input_ids = torch.cat([input_ids, next_id], dim=1)
            attention_mask = torch.cat([attention_mask, torch.ones_like(next_id)], dim=1)
        return input_ids, past_key_values


torch.manual_seed(0)
gpt = GPT().eval()
prompt = torch.tensor([[1, 4, 8, 15, 16, 23]])


def probe_generate():
    ids, cache = gpt.generate(prompt, max_new_token=4)
    assert ids.shape == (1, 10) and cache.get_seq_length() == 9


def probe_first_step():
    ids, cache = gpt.generate(prompt, max_new_token=1)
    assert ids.shape == (1, 7) and cache.get_seq_length() == 6


def probe_prepare_unmasked():
    with torch.no_grad():
        cache = gpt.gpt(input_ids=None, inputs_embeds=gpt.emb_text(prompt), use_cache=True).past_key_values
    inputs = gpt.prepare_generation_inputs(torch.tensor([[1, 4, 8, 15, 16, 23, 42]]), cache)
    assert inputs.input_ids.shape == (1, 1) and inputs.cache_position.tolist() == [6]


def probe_legacy_tuple():
    legacy = tuple((torch.zeros(1, 1, 6, 64), torch.zeros(1, 1, 6, 64)) for _ in range(2))
    inputs = gpt.prepare_generation_inputs(torch.tensor([[1, 4, 8, 15, 16, 23, 42]]), legacy, torch.ones(1, 7))
    assert inputs.input_ids.shape == (1, 1) and inputs.cache_position.tolist() == [6]
