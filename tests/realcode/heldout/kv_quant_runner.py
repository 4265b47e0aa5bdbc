"""A KV-quantization benchmark runner (KIVI/KVQuant-style): it builds generate's `cache_config` dictionary,
installs its own quantized cache class onto transformers' cache module, and inspects caches with 4.4x-era
attribute names when it compares layers.

Provenance (mechanisms read; this code is written here, not copied):
- Zefan-Cai/KVCache-Factory pyramidkv/quantization.py @f1d76cff775446fd06d6f6abf7ba7980622b173d
  (`generate(..., cache_config={...})` built as a dict; `cache_utils.HQQQuantizedCache = KVQuantizedCache`)
- Zefan-Cai/KVCache-Factory pyramidkv/llama_model.py @485af3cb33433f7d8814388d5125c7813e3bc458
  (`past_key_value.key_cache[layer_idx]`-style reads and writes in patched attention)
"""

import torch
from transformers import AutoModelForCausalLM, DynamicCache, cache_utils

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.1-8B-Instruct")
ids = torch.tensor([[1, 6, 12, 18, 24]])


class LocalOutlierCache(DynamicCache):
    """The project's stand-in, installed by name for its own runner only."""


def install_local_cache():
    cache_utils.OutlierQuantizedCache = LocalOutlierCache  # clean: kq_module_assign


def quant_config(nbits, residual):
    return {"backend": "quanto", "nbits": nbits, "residual_length": residual, "q_group_size": 64,
            "axis_key": 0, "axis_value": 0}


def run_quantized(nbits):
    return model.generate(ids, cache_implementation="quantized", cache_config=quant_config(nbits, 2),  # clean: kq_cache_config
                          max_new_tokens=3, do_sample=False)


def first_layer_keys(cache):
    return cache.key_cache[0]  # site: kq_key_cache_read


def overwrite_values(cache, layer_idx, values):
    cache.value_cache[layer_idx] = values  # site: kq_value_cache_item_write


def tokens_seen(cache):
    return cache.seen_tokens  # site: kq_seen_tokens


def tokens_now(cache):
    return cache.get_seq_length()  # clean: kq_seq_length


def prefill():
    cache = DynamicCache()
    model(ids, past_key_values=cache, use_cache=True)
    return cache


def probe_install():
    install_local_cache()
    assert cache_utils.OutlierQuantizedCache is LocalOutlierCache


def probe_quantized():
    model.generation_config.min_new_tokens = 3  # fixed length: the random tiny model's EOS must not end generate early (the labelled line stays as written)
    assert run_quantized(4).shape[1] <= 8


def probe_key_read():
    assert first_layer_keys(prefill()).shape[-2] == 5


def probe_value_write():
    cache = prefill()
    overwrite_values(cache, 0, torch.zeros(1, 1, 5, 64))
    assert cache.get_seq_length() == 5


def probe_seen():
    assert tokens_seen(prefill()) == 5


def probe_now():
    assert tokens_now(prefill()) == 5
