"""guidance's transformers engine: every call gets the logits for a token sequence, reusing the KV cache of the
longest common prefix with the previous call. The cached length comes from `past_key_values[0][0].size(-2)` for a
legacy tuple or `get_seq_length()` for a `Cache`; when the new sequence diverges, the tuple is sliced to the
common prefix, a cache with `crop` is cropped to the number of tokens to keep (`crop(num_cached)`), else reset;
then the model runs on the new tokens only with explicit `position_ids` and a full attention mask, and the output's
cache is kept for the next call.

Provenance (mechanisms read; this code is written here, not copied):
- guidance-ai/guidance @5413339aad8d36ce49df29902a7730d025bd6027
  guidance/models/_transformers.py (TransformersEngine: `self._past_key_values = None`, `_cached_token_ids`;
  get_logits: `num_cached = sum(takewhile(operator.truth, map(operator.eq, token_ids, self._cached_token_ids)))`,
  `elif isinstance(past_key_values, tuple): past_length = past_key_values[0][0].size(-2)`, `elif
  isinstance(past_key_values, transformers_package.Cache): past_length = past_key_values.get_seq_length()`, `if
  past_length > num_cached:` tuple slicing `p[..., :num_cached, :]` or `if hasattr(past_key_values, "crop"):
  self._past_key_values.crop(num_cached)` else `reset()`; `self.model_obj(input_ids=..., past_key_values=
  self._past_key_values, use_cache=True, position_ids=torch.arange(past_length, ...), attention_mask=torch.ones(1,
  past_length + n), return_dict=True)`; `self._past_key_values = model_out.past_key_values`).
Reduced: one engine over a Llama, no tokenizer or grammar (token ids in, last logits out), no token-by-token
fallback.
"""

import operator
from itertools import takewhile

import torch
import transformers as transformers_package


class TransformersEngine:
    def __init__(self, model_id):
        self.model_obj = transformers_package.AutoModelForCausalLM.from_pretrained(model_id)
        self._past_key_values = None
        self._cached_token_ids = []
        self._cached_logits = None

    def get_logits(self, token_ids):
        num_cached = sum(takewhile(operator.truth, map(operator.eq, token_ids, self._cached_token_ids)))
        if num_cached == len(token_ids):
            if num_cached == len(self._cached_token_ids):
                return self._cached_logits
            num_cached = num_cached - 1

        past_key_values = self._past_key_values
        if past_key_values is None:
            past_length = 0
        elif isinstance(past_key_values, tuple):
            past_length = past_key_values[0][0].size(-2)
        elif isinstance(past_key_values, transformers_package.Cache):
            past_length = past_key_values.get_seq_length()  # clean: gd_cached_length
        else:
            raise TypeError(f"Unknown type of past_key_values: {type(past_key_values)}")

        if past_length > num_cached:
            if isinstance(past_key_values, tuple):
                self._past_key_values = tuple(tuple(p[..., :num_cached, :] for p in v) for v in past_key_values)
            elif hasattr(past_key_values, "crop"):
                self._past_key_values.crop(num_cached)  # site: gd_crop_prefix
            else:
                self._past_key_values = None
                num_cached = 0
            past_length = num_cached
        elif past_length < num_cached:
            num_cached = past_length

        new_token_ids = token_ids[past_length:]
        with torch.no_grad():
            model_out = self.model_obj(  # clean: gd_forward
                input_ids=torch.tensor(new_token_ids).unsqueeze(0),
                past_key_values=self._past_key_values,
                use_cache=True,
                position_ids=torch.arange(past_length, past_length + len(new_token_ids)).unsqueeze(0),
                attention_mask=torch.ones(1, past_length + len(new_token_ids)),
                return_dict=True,
            )
        self._past_key_values = model_out.past_key_values  # clean: gd_keep_cache
        self._cached_token_ids = list(token_ids)
        self._cached_logits = model_out.logits[0, -1]
        return self._cached_logits


engine = TransformersEngine("microsoft/Phi-3-mini-4k-instruct")


def probe_extend():
    engine.get_logits([1, 20, 30, 40])
    engine.get_logits([1, 20, 30, 40, 50, 60])
    assert engine._past_key_values.get_seq_length() == 6


def probe_same_prompt():
    first = engine.get_logits([1, 21, 31])
    again = engine.get_logits([1, 21, 31])
    assert again is first


def probe_diverge():
    engine.get_logits([1, 22, 32, 42, 52])
    engine.get_logits([1, 22, 32, 99])
    assert engine._past_key_values.get_seq_length() == 4
