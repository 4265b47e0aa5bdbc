"""KIVI (jy-yuan/KIVI, 2-bit KV-cache quantization): its Llama keeps the quantized cache as legacy tuples whose
last element is the cached length, and its `prepare_inputs_for_generation` first turns the cache generate hands
it into that form (`if isinstance(past_key_values, DynamicCache): past_key_values =
past_key_values.to_legacy_cache()`, None when empty), then reads `past_length = past_key_values[0][-1]`, drops
the tokens already cached and builds position ids from the attention mask.

Provenance (mechanisms read; this code is written here, not copied):
- jy-yuan/KIVI @876b4d2d08e3b1d5f70d0969c299d8c7c42ddfb6
  models/llama_kivi.py (LlamaForCausalLM_KIVI.prepare_inputs_for_generation: the DynamicCache check and
  `to_legacy_cache()`, `if len(past_key_values) == 0: past_key_values = None`, `past_length =
  past_key_values[0][-1]`, `remove_prefix_length`, `input_ids[:, remove_prefix_length:]`, position ids from
  `attention_mask.long().cumsum(-1) - 1`, the returned dict; LlamaModel_KIVI.forward reading
  `past_key_values[0][-1]` as the cached length).
Reduced: the quantized attention and its tuple layout are not run; the override is reached by its probes the way
generate calls it on its first step (an empty DynamicCache) and on a later one (KIVI's own tuple, length last).
"""

import torch
from transformers import LlamaForCausalLM
from transformers.cache_utils import DynamicCache


class LlamaForCausalLM_KIVI(LlamaForCausalLM):
    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, attention_mask=None, inputs_embeds=None,
                                      **kwargs):
        if isinstance(past_key_values, DynamicCache):
            past_key_values = past_key_values.to_legacy_cache()  # site: kv_to_legacy
            if len(past_key_values) == 0:
                past_key_values = None
        if past_key_values is not None:
            past_length = past_key_values[0][-1]  # clean: kv_past_length
            if input_ids.shape[1] > past_length:
                remove_prefix_length = past_length
            else:
                remove_prefix_length = input_ids.shape[1] - 1
            input_ids = input_ids[:, remove_prefix_length:]
        position_ids = kwargs.get("position_ids", None)
        if attention_mask is not None and position_ids is None:
            position_ids = attention_mask.long().cumsum(-1) - 1
            position_ids.masked_fill_(attention_mask == 0, 1)
            if past_key_values:
                position_ids = position_ids[:, -input_ids.shape[1]:]
        if inputs_embeds is not None and past_key_values is None:
            model_inputs = {"inputs_embeds": inputs_embeds}
        else:
            model_inputs = {"input_ids": input_ids}
        model_inputs.update({"position_ids": position_ids, "past_key_values": past_key_values,
                             "use_cache": kwargs.get("use_cache"), "attention_mask": attention_mask})
        return model_inputs


model = LlamaForCausalLM_KIVI.from_pretrained("meta-llama/Llama-2-7b-hf")
ids = torch.tensor([[1, 4, 9, 16, 25, 36]])


def probe_first_step():
    inputs = model.prepare_inputs_for_generation(ids, past_key_values=DynamicCache(),
                                                 attention_mask=torch.ones_like(ids), use_cache=True)
    assert inputs["past_key_values"] is None and inputs["input_ids"].shape[1] == 6


def probe_later_step():
    kivi_past = ((torch.zeros(1, 2, 5, 8), torch.zeros(1, 2, 5, 8), 5),)
    inputs = model.prepare_inputs_for_generation(ids, past_key_values=kivi_past,
                                                 attention_mask=torch.ones_like(ids), use_cache=True)
    assert inputs["input_ids"].shape[1] == 1 and inputs["position_ids"].tolist() == [[5]]
