"""DeepSeek-VL2's language model (a DeepSeek-V2 / MoE causal LM shipped as the project's own modeling_deepseek.py,
written against transformers 4.38-4.4x): its model forward turns a legacy (or missing) cache into a DynamicCache
with `DynamicCache.from_legacy_cache`, takes the positions from `get_usable_length(seq_length)`, and hands a legacy
caller back `to_legacy_cache()`; its `prepare_inputs_for_generation` reads `get_seq_length()`, `seen_tokens` and
`get_max_length()` of a Cache (or `past_key_values[0][0].shape[2]` of a tuple) to drop the tokens already cached and
crop the attention mask to the cache's maximum length.

Provenance (mechanisms read; this code is written here, not copied):
- deepseek-ai/DeepSeek-VL2 @ef9f91e2b6426536b83294c11742c27be66361b1
  deepseek_vl2/models/modeling_deepseek.py (DeepseekV2Model.forward: `use_legacy_cache = not
  isinstance(past_key_values, Cache)`, `past_key_values = DynamicCache.from_legacy_cache(past_key_values)`,
  `past_key_values_length = past_key_values.get_usable_length(seq_length)`, positions from that length, `next_cache
  = next_decoder_cache.to_legacy_cache() if use_legacy_cache else next_decoder_cache`;
  DeepseekV2ForCausalLM.prepare_inputs_for_generation: `cache_length = past_key_values.get_seq_length()`,
  `past_length = past_key_values.seen_tokens`, `max_cache_length = past_key_values.get_max_length()`, the legacy
  `past_key_values[0][0].shape[2]`, `input_ids[:, past_length:]`, `attention_mask[:, -max_cache_length:]`,
  position ids from the mask, `cache_position = torch.arange(past_length, ...)`).
Reduced: the MoE/MLA body is transformers' Llama (the override converts the cache, then runs Llama's forward);
the conversion steps (from_legacy_cache, get_usable_length, to_legacy_cache) and the cache reads of
prepare_inputs_for_generation (seen_tokens, get_max_length) are split into helpers, each reached by its own probe
(in the original each one stops the run before the next is reached).
"""

import torch
from transformers import AutoModelForCausalLM, LlamaForCausalLM
from transformers.cache_utils import Cache, DynamicCache


def _from_legacy(past_key_values):
    return DynamicCache.from_legacy_cache(past_key_values)  # site: dv_from_legacy


def _usable_length(past_key_values, seq_length):
    return past_key_values.get_usable_length(seq_length)  # site: dv_usable_length


def _to_legacy(next_decoder_cache):
    return next_decoder_cache.to_legacy_cache()  # site: dv_to_legacy


def _seen_length(past_key_values):
    return past_key_values.seen_tokens  # site: dv_seen_tokens


def _max_length(past_key_values):
    return past_key_values.get_max_length()  # site: dv_max_length


class DeepseekV2ForCausalLM(LlamaForCausalLM):
    def forward(self, input_ids=None, attention_mask=None, position_ids=None, past_key_values=None,
                inputs_embeds=None, use_cache=None, **kwargs):
        seq_length = (input_ids if input_ids is not None else inputs_embeds).shape[1]
        past_key_values_length = 0
        use_legacy_cache = False
        if use_cache:
            use_legacy_cache = not isinstance(past_key_values, Cache)
            if use_legacy_cache:
                past_key_values = _from_legacy(past_key_values)
            past_key_values_length = _usable_length(past_key_values, seq_length)
        if position_ids is None:
            position_ids = torch.arange(past_key_values_length, past_key_values_length + seq_length).unsqueeze(0)
        out = super().forward(input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids,
                              past_key_values=past_key_values, inputs_embeds=inputs_embeds, use_cache=use_cache,
                              **kwargs)
        if use_legacy_cache:
            out.past_key_values = _to_legacy(out.past_key_values)
        return out

    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, attention_mask=None, inputs_embeds=None,
                                      **kwargs):
        past_length = 0
        if past_key_values is not None:
            if isinstance(past_key_values, Cache):
                cache_length = past_key_values.get_seq_length()
                past_length = _seen_length(past_key_values)
                max_cache_length = _max_length(past_key_values)
            else:
                cache_length = past_length = past_key_values[0][0].shape[2]
                max_cache_length = None
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
        cache_position = torch.arange(past_length, past_length + position_ids.shape[-1])
        if inputs_embeds is not None and past_key_values is None:
            model_inputs = {"inputs_embeds": inputs_embeds}
        else:
            model_inputs = {"input_ids": input_ids.contiguous()}
        model_inputs.update({"position_ids": position_ids.contiguous(), "cache_position": cache_position,
                             "past_key_values": past_key_values, "use_cache": kwargs.get("use_cache"),
                             "attention_mask": attention_mask})
        return model_inputs


language = DeepseekV2ForCausalLM.from_pretrained("deepseek-ai/deepseek-vl2-tiny")
plain = AutoModelForCausalLM.from_pretrained("deepseek-ai/deepseek-vl2-tiny")
prompt = torch.tensor([[1, 9, 18, 27, 36]])


def _prefilled():
    with torch.no_grad():
        return plain(prompt, use_cache=True).past_key_values


def probe_from_legacy():
    cache = _from_legacy(None)
    assert cache.get_seq_length() == 0


def probe_usable_length():
    _usable_length(_prefilled(), 1)


def probe_to_legacy():
    legacy = _to_legacy(_prefilled())
    assert legacy[0][0].shape[2] == 5


def probe_prepare_step():
    ids = torch.cat([prompt, torch.tensor([[40]])], dim=-1)
    language.prepare_inputs_for_generation(ids, past_key_values=_prefilled(), attention_mask=torch.ones_like(ids),
                                           use_cache=True)


def probe_max_length():
    _max_length(_prefilled())
