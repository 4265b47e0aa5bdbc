"""text-generation-inference's transformers fallback (CausalLM): a batch keeps the model's returned
`past_key_values` between decode steps and the router filters finished requests out of it and concatenates
batches. `filter` makes the layers mutable when the first one is a tuple (`[list(layer) for layer in past]`) and
slices every layer's keys and values to the kept rows and the longest remaining input; `concatenate` views each
batch's layers as [batch, heads, ...] when its first layer is a tuple and builds padded per-layer [keys, values]
lists for the merged batch. Every forward goes through `CausalLM.forward`, which builds the keyword dictionary
with `past_key_values` and `use_cache=True` and returns `outputs.past_key_values`.

Provenance (mechanisms read; this code is written here, not copied):
- huggingface/text-generation-inference @db931fcf42da018a3657580c64bf2720f167f9ab
  server/text_generation_server/models/causal_lm.py (CausalLMBatch.from_pb: `past_key_values=None`;
  CausalLMBatch.filter: `if type(self.past_key_values[0]) is tuple: self.past_key_values = [list(layer) for layer in
  self.past_key_values]`, `for layer in self.past_key_values: past_keys, past_values = layer`, `layer[0] =
  past_keys[keep_indices, :, -past_kv_length:, :]`; CausalLMBatch.concatenate: `if
  isinstance(batch.past_key_values[0], tuple): batch.past_key_values = [[t.view(len(batch), -1, *t.shape[-2:]) for
  t in layer] for layer in batch.past_key_values]`, `first_past_kvs[j][0].new_zeros(...)`,
  `past_key_values.append([padded_past_keys, padded_past_values])`; CausalLM.forward: `kwargs = {"input_ids": ...,
  "attention_mask": ..., "past_key_values": past_key_values, "use_cache": True, "return_dict": True}`, `outputs =
  self.model.forward(**kwargs)`, `return outputs.logits, speculative_logits, outputs.past_key_values`;
  generate_token: `batch.past_key_values = past`).
Reduced: no protobuf requests, tokenizers, stopping criteria or sampling (greedy argmax); left padding and the
BLOOM layout are dropped; a batch is input ids, an attention mask, position ids and the cache.
"""

from dataclasses import dataclass
from typing import List, Optional

import torch
from transformers import AutoModelForCausalLM


@dataclass
class CausalLMBatch:
    input_ids: torch.Tensor
    attention_mask: torch.Tensor
    position_ids: torch.Tensor
    past_key_values: Optional[List]
    max_input_length: int
    keys_head_dim_last: bool = True

    @classmethod
    def from_ids(cls, input_ids):
        return cls(input_ids=input_ids, attention_mask=torch.ones_like(input_ids),
                   position_ids=torch.arange(input_ids.shape[1]).expand(input_ids.shape[0], -1),
                   past_key_values=None, max_input_length=input_ids.shape[1])  # clean: tg_no_past

    def __len__(self):
        return self.input_ids.shape[0]

    def filter(self, keep_indices):
        self.input_ids = self.input_ids[keep_indices]
        self.position_ids = self.position_ids[keep_indices]
        self.attention_mask = self.attention_mask[keep_indices]
        if type(self.past_key_values[0]) is tuple:  # site: tg_filter_layers
            self.past_key_values = [list(layer) for layer in self.past_key_values]
        past_kv_length = self.max_input_length - 1
        for layer in self.past_key_values:
            past_keys, past_values = layer
            layer[0] = past_keys[keep_indices, :, -past_kv_length:, :]
            layer[1] = past_values[keep_indices, :, -past_kv_length:, :]
        return self

    @classmethod
    def concatenate(cls, batches):
        total_batch_size = sum(len(b) for b in batches)
        max_input_length = max(b.max_input_length for b in batches)
        for batch in batches:
            if isinstance(batch.past_key_values[0], tuple):  # site: tg_concat_layers
                batch.past_key_values = [[t.view(len(batch), -1, *t.shape[-2:]) for t in layer]
                                         for layer in batch.past_key_values]
        first_past_kvs = batches[0].past_key_values
        _, num_heads, _, head_dim = first_past_kvs[0][1].shape
        padded_shape = (total_batch_size, num_heads, max_input_length - 1, head_dim)
        past_key_values = []
        for j in range(len(first_past_kvs)):
            padded = [first_past_kvs[j][k].new_zeros(padded_shape) for k in range(2)]
            start_index = 0
            for batch in batches:
                end_index = start_index + len(batch)
                past_seq_len = batch.max_input_length - 1
                for k in range(2):
                    padded[k][start_index:end_index, :, -past_seq_len:, :] = batch.past_key_values[j][k][:, :, -past_seq_len:, :]
                    batch.past_key_values[j][k] = None
                start_index = end_index
            past_key_values.append(padded)
        return past_key_values


class CausalLM:
    def __init__(self, model_id):
        self.model = AutoModelForCausalLM.from_pretrained(model_id, torch_dtype=torch.float32)
        self.has_position_ids = True

    def forward(self, input_ids, attention_mask, position_ids, past_key_values=None):
        kwargs = {
            "input_ids": input_ids,
            "attention_mask": attention_mask,
            "past_key_values": past_key_values,
            "use_cache": True,
            "return_dict": True,
        }
        if self.has_position_ids:
            kwargs["position_ids"] = position_ids
        outputs = self.model.forward(**kwargs)  # observe: tg_filter_layers
        return outputs.logits, None, outputs.past_key_values  # clean: tg_return_past

    @torch.no_grad()
    def generate_token(self, batch):
        logits, _, past = self.forward(batch.input_ids, batch.attention_mask, batch.position_ids,
                                       batch.past_key_values)
        next_ids = logits[:, -1, :].argmax(dim=-1, keepdim=True)
        batch.past_key_values = past  # clean: tg_keep_past
        batch.input_ids = next_ids
        batch.attention_mask = torch.cat([batch.attention_mask, torch.ones_like(next_ids)], dim=1)
        batch.position_ids = batch.position_ids[:, -1:] + 1
        batch.max_input_length += 1
        return next_ids, batch


engine = CausalLM("HuggingFaceTB/SmolLM2-360M")
prompts = torch.tensor([[1, 20, 21, 22], [1, 30, 31, 32]])


def probe_decode():
    batch = CausalLMBatch.from_ids(prompts)
    engine.generate_token(batch)
    engine.generate_token(batch)
    assert batch.past_key_values.get_seq_length() == 5


def probe_filter_then_decode():
    batch = CausalLMBatch.from_ids(prompts)
    engine.generate_token(batch)
    batch.filter([1])
    engine.generate_token(batch)


def probe_concatenate():
    first = CausalLMBatch.from_ids(prompts[:1])
    second = CausalLMBatch.from_ids(prompts[1:])
    engine.generate_token(first)
    engine.generate_token(second)
    merged = CausalLMBatch.concatenate([first, second])
    assert merged[0][0].shape[0] == 2
