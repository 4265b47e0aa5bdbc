"""Cache-augmented generation (CAG, hhhuang/CAG): the whole knowledge base is run through the model once into a
DynamicCache, saved with `torch.save` and loaded back with `torch.load(..., weights_only=True)` (DynamicCache
allow-listed with `torch.serialization.add_safe_globals`); every question is appended to that knowledge cache and
answered by a greedy loop that feeds one token at a time with `past_key_values=`; between questions `clean_up`
truncates every layer of `kv.key_cache` / `kv.value_cache` back to the knowledge length, and the script logs that
length from `knowledge_cache.key_cache[0].shape[-2]`.

Provenance (mechanisms read; this code is written here, not copied):
- hhhuang/CAG @5c0d8ed6e28f34c72bb7208068f55cb3147d0c8c
  kvcache.py (`torch.serialization.add_safe_globals([DynamicCache])`; `generate`: `outputs = model(input_ids=next_token,
  past_key_values=past_key_values, use_cache=True)`, argmax, `past_key_values = outputs.past_key_values`;
  `preprocess_knowledge`: `past_key_values = DynamicCache()` then one forward with it; `write_kv_cache` torch.save;
  `clean_up(kv, origin_len)`: `for i in range(len(kv.key_cache))`, `kv.key_cache[i] = kv.key_cache[i][:, :, :origin_len,
  :]` and the same for value_cache; `read_kv_cache` torch.load; `kv_len = knowledge_cache.key_cache[0].shape[-2]`).
Reduced: no dataset, no scoring; the eos test of the loop dropped (fixed number of tokens); the knowledge length
read split into its own helper, the key and value truncations of `clean_up` into two helpers with one-line loops,
each reached by its own probe.
"""

import os
import tempfile

import torch
from transformers import AutoModelForCausalLM
from transformers.cache_utils import DynamicCache

torch.serialization.add_safe_globals([DynamicCache])

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.1-8B-Instruct")
knowledge_ids = torch.tensor([[1, 12, 23, 34, 45, 56, 67]])


def generate(model, input_ids, past_key_values, max_new_tokens=4):
    output_ids = input_ids.clone()
    next_token = input_ids
    with torch.no_grad():
        for _ in range(max_new_tokens):
            outputs = model(input_ids=next_token, past_key_values=past_key_values, use_cache=True)  # clean: cg_step
            next_token = outputs.logits[:, -1, :].argmax(dim=-1).unsqueeze(-1)
            past_key_values = outputs.past_key_values  # clean: cg_keep
            output_ids = torch.cat([output_ids, next_token], dim=1)
    return output_ids[:, input_ids.shape[-1]:]


def preprocess_knowledge(model, input_ids):
    past_key_values = DynamicCache()  # clean: cg_new_cache
    with torch.no_grad():
        outputs = model(input_ids=input_ids, past_key_values=past_key_values, use_cache=True)  # clean: cg_prefill
    return outputs.past_key_values


def write_kv_cache(kv, path):
    torch.save(kv, path)  # clean: cg_save


def read_kv_cache(path):
    return torch.load(path, weights_only=True)  # site: cg_load


def _truncate_keys(kv, origin_len):
    for i in range(len(kv.key_cache)): kv.key_cache[i] = kv.key_cache[i][:, :, :origin_len, :]  # site: cg_clean_keys


def _truncate_values(kv, origin_len):
    for i in range(len(kv.value_cache)): kv.value_cache[i] = kv.value_cache[i][:, :, :origin_len, :]  # site: cg_clean_values


def clean_up(kv, origin_len):
    _truncate_keys(kv, origin_len)
    _truncate_values(kv, origin_len)


def knowledge_length(knowledge_cache):
    return knowledge_cache.key_cache[0].shape[-2]  # site: cg_kv_len


def probe_answer():
    kv = preprocess_knowledge(model, knowledge_ids)
    answer = generate(model, torch.tensor([[88, 99]]), kv)
    assert answer.shape[1] == 4 and kv.get_seq_length() == 7 + 2 + 3


def probe_save():
    kv = preprocess_knowledge(model, knowledge_ids)
    path = os.path.join(tempfile.mkdtemp(), "cache_knowledges.pt")
    write_kv_cache(kv, path)
    assert os.path.getsize(path) > 0


def probe_roundtrip():
    kv = preprocess_knowledge(model, knowledge_ids)
    path = os.path.join(tempfile.mkdtemp(), "cache_knowledges.pt")
    write_kv_cache(kv, path)
    loaded = read_kv_cache(path)
    assert loaded.get_seq_length() == 7


def probe_clean_up():
    kv = preprocess_knowledge(model, knowledge_ids)
    generate(model, torch.tensor([[88, 99]]), kv)
    clean_up(kv, 7)


def probe_clean_values():
    kv = preprocess_knowledge(model, knowledge_ids)
    generate(model, torch.tensor([[88, 99]]), kv)
    _truncate_values(kv, 7)


def probe_kv_len():
    kv = preprocess_knowledge(model, knowledge_ids)
    knowledge_length(kv)
