"""A KV-compression library's patch: it wraps the model's own `prepare_inputs_for_generation` and swaps the
cache it finds in the returned model inputs for its compressing cache class.

Provenance (mechanisms read; this code is written here, not copied):
- microsoft/MInference minference/patch.py (`prepare_inputs_for_generation_kvcompression`: calls the original
  hook, then `outputs.get("past_key_values")`, and if it is not the method's cache class builds one and stores
  it under "past_key_values"; seen in a find_string excerpt)
"""

import torch
from transformers import AutoModelForCausalLM, DynamicCache

prompt = torch.tensor([[1, 12, 13, 14, 15]])


class CountingCache(DynamicCache):
    """The library's cache: counts the layers it was asked to update."""

    updates = 0

    def update(self, key_states, value_states, layer_idx, *args, **kwargs):
        CountingCache.updates += 1
        return super().update(key_states, value_states, layer_idx, *args, **kwargs)


def patch_by_name(model):
    original = model.prepare_inputs_for_generation

    def wrapped(*args, **kwargs):
        inputs = original(*args, **kwargs)
        if not isinstance(inputs.get("past_key_values"), CountingCache):  # site: pw_inputs_key
            inputs["past_key_values"] = CountingCache()
        return inputs

    model.prepare_inputs_for_generation = wrapped


def probe_wrap():
    model = AutoModelForCausalLM.from_pretrained("THUDM/glm-4-9b-chat-hf")
    patch_by_name(model)
    CountingCache.updates = 0
    model.generate(prompt, max_new_tokens=2, min_new_tokens=2, do_sample=False)
    assert CountingCache.updates > 0, f"pw_inputs_key: {CountingCache.updates}"  # observe: pw_inputs_key

def probe_user_cache():
    model = AutoModelForCausalLM.from_pretrained("THUDM/glm-4-9b-chat-hf")
    model.generation_config.min_new_tokens = 2  # fixed length: the random tiny model's EOS must not end generate early (the labelled line stays as written)
    CountingCache.updates = 0
    model.generate(prompt, past_key_values=CountingCache(), max_new_tokens=2, do_sample=False)  # clean: pw_user_cache
    assert CountingCache.updates > 0
