"""A multi-turn serving system keeps each session's KV in layer-wise chunks of its own store and hands the model
a `Cache` subclass that gathers a layer's chunks on indexing; a plain wrapper with the same methods serves the
baseline.

Provenance (mechanisms read; this code is written here, not copied):
- sg20180546/Pensieve src/pensieve/worker/custom_cache.py @008b7eb46580dad09db19b553d683198b9b1c658
  (`from transformers import Cache` with an `object` fallback; PensieveCache(Cache) never calls the base
  `__init__`, sets `self.layers = [None] * num_layers`, gathers chunks in `__getitem__` (concatenated on dim 1),
  `update(key_states, value_states, layer_idx)` stores the pair and returns None, `get_seq_length()` without a
  layer index; SimpleCacheWrapper with `__getitem__`/`__setitem__`/`update`/`__len__` over a dict; the newest
  version of the file subclasses DynamicCache instead)
"""

import torch
from transformers import AutoModelForCausalLM

try:
    from transformers import Cache
except ImportError:
    Cache = object

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-chat-hf")


class ChunkStore:
    def __init__(self):
        self.chunks = {}

    def put(self, session, layer_idx, key, value):
        self.chunks.setdefault((session, layer_idx), []).append((key, value))

    def get(self, session, layer_idx):
        return self.chunks.get((session, layer_idx), [])


class SessionCache(Cache):
    def __init__(self, store, session, num_layers):
        self.store = store
        self.session = session
        self.num_layers = num_layers
        self._layer_kv = {}
        self._seq_length = 0
        self.layers = [None] * num_layers

    def __getitem__(self, layer_idx):
        if layer_idx in self._layer_kv:
            return self._layer_kv[layer_idx]
        chunks = self.store.get(self.session, layer_idx)
        keys = torch.cat([k for k, _ in chunks], dim=1)
        values = torch.cat([v for _, v in chunks], dim=1)
        self._layer_kv[layer_idx] = (keys, values)
        self._seq_length = keys.shape[1]
        return keys, values

    def __len__(self):
        return self.num_layers

    def get_seq_length(self):
        return self._seq_length

    def update(self, key_states, value_states, layer_idx):
        self._layer_kv[layer_idx] = (key_states, value_states)


class SimpleCacheWrapper:
    def __init__(self, num_layers):
        self.num_layers = num_layers
        self._cache = {}

    def __getitem__(self, layer_idx):
        return self._cache.get(layer_idx)

    def __setitem__(self, layer_idx, kv):
        self._cache[layer_idx] = kv

    def __len__(self):
        return self.num_layers

    def update(self, key_states, value_states, layer_idx):
        self._cache[layer_idx] = (key_states, value_states)


def filled_store(session, chunks):
    store = ChunkStore()
    for _ in range(chunks):
        for layer_idx in range(2):
            store.put(session, layer_idx, torch.ones(1, 4, 1, 64), torch.ones(1, 4, 1, 64))
    return store


def gathered_tokens(cache):
    keys, values = cache[0]  # clean: pv_session_index
    return keys.shape[1], cache.get_seq_length()  # clean: pv_session_length


def baseline_step(wrapper, key, value):
    wrapper.update(key, value, 1)  # clean: pv_wrapper_update
    return wrapper[1][0].shape[2]  # clean: pv_wrapper_index


def run_turn(cache, ids):
    return model(ids, past_key_values=cache, use_cache=True)  # site: pv_forward_session


def probe_gather():
    cache = SessionCache(filled_store("s1", 2), "s1", 2)
    assert gathered_tokens(cache) == (8, 8)


def probe_wrapper():
    wrapper = SimpleCacheWrapper(2)
    assert baseline_step(wrapper, torch.ones(1, 1, 3, 64), torch.ones(1, 1, 3, 64)) == 3


def probe_forward():
    cache = SessionCache(ChunkStore(), "s2", 2)
    out = run_turn(cache, torch.tensor([[1, 2, 3]]))
    assert out.logits.shape[1] == 3
