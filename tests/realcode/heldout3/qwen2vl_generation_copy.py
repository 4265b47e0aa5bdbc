"""A research repository's vendored copy of a 4.4x vision-language modeling file: its causal-mask helper sizes the
mask from the cache class, and its `prepare_inputs_for_generation` override slices the prompt by the
`cache_position` generate used to pass, dropping the image inputs after the first step.

Provenance (mechanisms read; this code is written here, not copied):
- DarthZhu/lm-extend src/models/modeling_qwen2_vl.py @9f26e508ad7fb6d07513a374ae4a6b452b272177
  (`from transformers.cache_utils import Cache, DynamicCache, SlidingWindowCache, StaticCache`;
  `_update_causal_mask`: `past_seen_tokens = past_key_values.get_seq_length() if past_key_values is not None
  else 0`, `isinstance(past_key_values, SlidingWindowCache)`, `target_length =
  past_key_values.get_max_cache_shape()` for static/sliding caches; `prepare_inputs_for_generation(self,
  input_ids, past_key_values=None, ..., cache_position=None, ...)` slicing `input_ids[:, cache_position]` and
  testing `cache_position[0] != 0`)
Reduced: the text model is Llama (the tiny oracle has no Qwen2-VL vision tower); the SlidingWindowCache import
sits in a function of its own.
"""

import torch
from transformers import AutoModelForCausalLM, DynamicCache, LlamaForCausalLM, StaticCache

prompt = torch.tensor([[1, 7, 7, 7, 9, 11]])


def mask_cache_classes():
    from transformers.cache_utils import SlidingWindowCache  # clean: qv_sliding_import
    return SlidingWindowCache


def mask_target_length(past_key_values, attention_mask, sequence_length):
    past_seen_tokens = past_key_values.get_seq_length() if past_key_values is not None else 0  # clean: qv_past_seen
    if isinstance(past_key_values, StaticCache):
        return past_key_values.get_max_cache_shape()  # site: qv_max_cache_shape
    if isinstance(attention_mask, torch.Tensor):
        return attention_mask.shape[-1]
    return past_seen_tokens + sequence_length + 1


class VLForConditionalGeneration(LlamaForCausalLM):
    steps = []

    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, attention_mask=None,  # site: qv_hook
                                      inputs_embeds=None, cache_position=None, position_ids=None,
                                      use_cache=True, pixel_values=None, **kwargs):
        if past_key_values is not None:
            if inputs_embeds is not None:
                input_ids = input_ids[:, -cache_position.shape[0]:]
            elif input_ids.shape[1] != cache_position.shape[0]:  # observe: qv_hook
                input_ids = input_ids[:, cache_position]
        if cache_position[0] != 0:  # observe: qv_hook
            pixel_values = None
        self.steps.append(input_ids.shape[1])
        return {"input_ids": input_ids, "position_ids": position_ids, "past_key_values": past_key_values,
                "use_cache": use_cache, "attention_mask": attention_mask, "cache_position": cache_position,
                "pixel_values": pixel_values}


def probe_sliding_import():
    assert mask_cache_classes() is not None


def probe_dynamic_target():
    model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2-VL-7B-Instruct")
    cache = DynamicCache()
    model(prompt, past_key_values=cache, use_cache=True)
    assert mask_target_length(cache, None, 1) == 8


def probe_static_target():
    model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2-VL-7B-Instruct")
    cache = StaticCache(config=model.config, max_cache_len=32)
    model(prompt, past_key_values=cache, use_cache=True)
    assert mask_target_length(cache, None, 1) == 32


def probe_hook():
    model = VLForConditionalGeneration.from_pretrained("Qwen/Qwen2-VL-7B-Instruct")
    model.steps.clear()
    model.generate(prompt, max_new_tokens=3, min_new_tokens=3, do_sample=False)
    assert model.steps[1:] == [1, 1], model.steps
