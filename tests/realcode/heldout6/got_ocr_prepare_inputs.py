"""An OCR vision-language model built on Qwen2: the project subclasses `Qwen2ForCausalLM` with its own config
class and overrides `prepare_inputs_for_generation` the 4.4x way: for a cache object it asks for the cached
length, the seen-token count and the maximum length, for a legacy tuple it reads the length off the first key,
then trims the input ids and the attention mask and passes the image tensors along.

Provenance (mechanisms read; this code is written here, not copied):
- Ucas-HaoranWei/GOT-OCR2.0 @d76b7e0e121979c08d3465a7c200b505fe3b4366 GOT-OCR-2.0-master/GOT/model/GOT_ocr_2_0.py
  (`from transformers.cache_utils import Cache, DynamicCache`; `class GOTConfig(Qwen2Config)` with `model_type =
  "GOT"`; `GOTQwenForCausalLM(Qwen2ForCausalLM).prepare_inputs_for_generation(self, input_ids, past_key_values=None,
  attention_mask=None, inputs_embeds=None, **kwargs)`: `if isinstance(past_key_values, Cache): cache_length =
  past_key_values.get_seq_length(); past_length = past_key_values.seen_tokens; max_cache_length =
  past_key_values.get_max_length()` else `cache_length = past_length = past_key_values[0][0].shape[2]`, then the
  input/mask trimming and `"images": kwargs.get("images", None)` in the model inputs)
Reduced: the vision towers and the image-token splicing are left out; the length lookups are two small helpers
(the override calls them in the original order) so each is reached on its own.
"""

import torch
from transformers import Qwen2Config, Qwen2ForCausalLM
from transformers.cache_utils import Cache, DynamicCache


class GOTConfig(Qwen2Config):
    model_type = "GOT"


def _cached_lengths(past_key_values):
    if isinstance(past_key_values, Cache):
        cache_length = past_key_values.get_seq_length()
        past_length = past_key_values.seen_tokens  # site: got_seen_tokens
    else:
        cache_length = past_length = past_key_values[0][0].shape[2]  # clean: got_legacy_length
    return cache_length, past_length


def _max_cache_length(past_key_values):
    if isinstance(past_key_values, Cache):
        return past_key_values.get_max_length()  # site: got_max_length
    return None


class GOTQwenForCausalLM(Qwen2ForCausalLM):
    config_class = GOTConfig

    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, attention_mask=None,
                                      inputs_embeds=None, **kwargs):
        if past_key_values is not None:
            cache_length, past_length = _cached_lengths(past_key_values)
            max_cache_length = _max_cache_length(past_key_values)
            if attention_mask is not None and attention_mask.shape[1] > input_ids.shape[1]:
                input_ids = input_ids[:, -(attention_mask.shape[1] - past_length):]
            elif past_length < input_ids.shape[1]:
                input_ids = input_ids[:, past_length:]
            if (max_cache_length is not None and attention_mask is not None
                    and cache_length + input_ids.shape[1] > max_cache_length):
                attention_mask = attention_mask[:, -max_cache_length:]
        position_ids = kwargs.get("position_ids", None)
        if attention_mask is not None and position_ids is None:
            position_ids = attention_mask.long().cumsum(-1) - 1
            position_ids.masked_fill_(attention_mask == 0, 1)
            if past_key_values:
                position_ids = position_ids[:, -input_ids.shape[1]:]
        model_inputs = {"input_ids": input_ids}
        model_inputs.update({"position_ids": position_ids, "past_key_values": past_key_values,
                             "use_cache": kwargs.get("use_cache"), "attention_mask": attention_mask})
        return model_inputs


def tiny_config():
    return GOTConfig(vocab_size=320, hidden_size=64, intermediate_size=64, num_hidden_layers=2,
                     num_attention_heads=2, num_key_value_heads=1)


def filled_cache():
    cache = DynamicCache()
    for layer_idx in range(2):
        cache.update(torch.ones(1, 1, 5, 32), torch.ones(1, 1, 5, 32), layer_idx)
    return cache


def probe_cached_lengths():
    assert _cached_lengths(filled_cache()) == (5, 5)


def probe_max_length():
    max_cache_length = _max_cache_length(filled_cache())
    assert max_cache_length is None or max_cache_length >= 5, "got_max_length: a dynamic cache reported a maximum length below its content"  # observe: got_max_length


def probe_legacy_lengths():
    kv = torch.ones(1, 1, 5, 32)
    assert _cached_lengths(((kv, kv), (kv, kv))) == (5, 5)


def probe_cache_length_only():
    assert filled_cache().get_seq_length() == 5
    model = GOTQwenForCausalLM(tiny_config())
    out = model(torch.tensor([[1, 2, 3]]), past_key_values=DynamicCache(), use_cache=True)  # clean: got_forward_cache
    assert out.past_key_values.get_seq_length() == 3
