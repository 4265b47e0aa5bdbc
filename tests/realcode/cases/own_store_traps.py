"""False-alarm traps: a project-defined KV store with transformers-like method names, and a compatibility shim
that assigns missing names onto the transformers module."""

import torch
import transformers
from _kvstore import TensorKVStore
from transformers import AutoModelForCausalLM, DynamicCache

try:
    from transformers import SinkCache
except ImportError:
    transformers.SinkCache = None  # clean: trap_module_assignment
    SinkCache = None

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")
prompt = torch.tensor([[1, 5, 9, 14, 20]])


def snapshot():
    cache = DynamicCache()
    model(prompt, past_key_values=cache, use_cache=True)
    store = TensorKVStore()
    for layer in cache.layers:
        store.append(layer.keys, layer.values)
    return store


def probe_store():
    store = snapshot()
    legacy = store.to_legacy_cache()  # clean: trap_own_to_legacy
    again = TensorKVStore.from_legacy_cache(legacy)  # clean: trap_own_from_legacy
    again.crop(3)  # clean: trap_own_crop
    k, v = again[0]  # clean: trap_own_index
    assert k.shape[-2] == 3 and again.seen_tokens == 3  # clean: trap_own_seen_tokens
    assert len(again.key_cache) == 2  # clean: trap_own_key_cache


def probe_shim():
    assert SinkCache is None or transformers.SinkCache is SinkCache
