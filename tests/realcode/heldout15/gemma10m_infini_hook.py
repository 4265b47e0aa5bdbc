"""gemma-2B-10M (mustafaaljadery): a Gemma with recurrent local attention for 10M-token contexts, shipped as its own
modeling file whose `prepare_inputs_for_generation` is transformers 4.40's: with a Cache it takes the past length
from `cache_position[0]` (else `get_seq_length()`), the maximum from `get_max_length()`, trims the input ids and the
mask, builds position ids and a `cache_position` when none is given, and returns the cache under
`past_key_values`; with no cache it falls back to a static cache parked on the first attention module.

Provenance (mechanisms read; this code is written here, not copied):
- mustafaaljadery/gemma-2B-10M @cb97c2f686a41d4d54c259437dcdcd4f7f8da5f0
  src/gemma.py (`GemmaForCausalLM.prepare_inputs_for_generation(self, input_ids, past_key_values=None,
  attention_mask=None, inputs_embeds=None, cache_position=None, **kwargs)`: `past_key_values = getattr(getattr(
  self.model.layers[0], "self_attn", {}), "past_key_value", None)`, `past_length = (cache_position[0] if
  cache_position is not None else past_key_values.get_seq_length())`, `max_cache_length = (torch.tensor(
  past_key_values.get_max_length(), ...) if past_key_values.get_max_length() is not None else None)`, the trimming,
  `cache_position = torch.arange(past_length, past_length + input_length)` when None, `model_inputs.update({
  "position_ids", "cache_position", "past_key_values", "use_cache", "attention_mask"})`).
Reduced: the Gemma with its memory blocks is a Llama (loaded from a Llama checkpoint id), no inputs_embeds path.
"""

import torch
from transformers import LlamaForCausalLM
from transformers.cache_utils import Cache


class GemmaForCausalLM(LlamaForCausalLM):
    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, attention_mask=None, inputs_embeds=None,
                                      cache_position=None, **kwargs):
        has_static_cache = False
        if past_key_values is None:
            past_key_values = getattr(getattr(self.model.layers[0], "self_attn", {}), "past_key_value", None)  # clean: gm_static_fallback
            has_static_cache = past_key_values is not None
        past_length = 0
        if past_key_values is not None:
            if isinstance(past_key_values, Cache):
                past_length = cache_position[0] if cache_position is not None else past_key_values.get_seq_length()
                max_cache_length = (
                    torch.tensor(past_key_values.get_max_length())  # site: gm_max_length
                    if past_key_values.get_max_length() is not None
                    else None
                )
                cache_length = past_length if max_cache_length is None else torch.min(max_cache_length, past_length)  # observe: gm_max_length
            else:
                cache_length = past_length = past_key_values[0][0].shape[2]
                max_cache_length = None
            if attention_mask is not None and attention_mask.shape[1] > input_ids.shape[1]:
                input_ids = input_ids[:, -(attention_mask.shape[1] - past_length):]
            elif past_length < input_ids.shape[1]:
                input_ids = input_ids[:, past_length:]
            if max_cache_length is not None and attention_mask is not None and \
                    cache_length + input_ids.shape[1] > max_cache_length:
                attention_mask = attention_mask[:, -max_cache_length:]
        position_ids = kwargs.get("position_ids", None)
        if attention_mask is not None and position_ids is None:
            position_ids = attention_mask.long().cumsum(-1) - 1
            position_ids.masked_fill_(attention_mask == 0, 1)
            if past_key_values:
                position_ids = position_ids[:, -input_ids.shape[1]:]
        model_inputs = {"input_ids": input_ids.contiguous()}
        input_length = position_ids.shape[-1] if position_ids is not None else input_ids.shape[-1]
        if cache_position is None:
            cache_position = torch.arange(past_length, past_length + input_length)
        else:
            cache_position = cache_position[-input_length:]
        if has_static_cache:
            past_key_values = None
        model_inputs.update({"position_ids": position_ids, "cache_position": cache_position,
                             "past_key_values": past_key_values, "use_cache": kwargs.get("use_cache"),
                             "attention_mask": attention_mask})
        return model_inputs


model = GemmaForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B").eval()
prompt = torch.tensor([[1, 110, 111, 112, 113]])


def probe_first_step():
    inputs = model.prepare_inputs_for_generation(prompt, attention_mask=torch.ones_like(prompt), use_cache=True)
    assert inputs["input_ids"].shape[1] == 5 and inputs["cache_position"].tolist() == [0, 1, 2, 3, 4]


def probe_generate():
    mask = torch.ones_like(prompt)
    out = model.generate(prompt, attention_mask=mask, max_new_tokens=3, min_new_tokens=3, return_dict_in_generate=True)  # observe: gm_max_length
    assert out.past_key_values.get_seq_length() == 7, "gm_max_length: the cache did not grow one token a step"  # observe: gm_max_length
