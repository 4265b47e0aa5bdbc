"""An EAGLE-style speculative head: the base model keeps a preallocated key/value store of the project's own
(`KVCache` objects with `.cat`/`.copy`, indexed per layer as `[k, v]`), while the small draft head runs a
transformers model and keeps the draft cache in an attribute between rounds.

Provenance (mechanisms read; this code is written here, not copied):
- SafeAILab/EAGLE eagle/model/kv_cache.py @43f7f09cdca639a40e31a773bc46711a3a88c78c (KVCache with data,
  current_length, `copy(indices, prev_length)`, `cat(tensor)`; `initialize_past_key_values` returns a list of
  `[KVCache, KVCache]` per layer)
- SafeAILab/EAGLE eagle/model/ea_model.py (the draft layer's `stable_kv` kept on the module between rounds;
  seen in the search excerpt)
"""

import torch
from transformers import AutoModelForCausalLM


class KVCache:
    def __init__(self, data, current_length):
        self.data = data
        self.current_length = current_length

    def cat(self, tensor):
        n = int(self.current_length)
        self.data[:, :, n:n + tensor.shape[2]] = tensor
        self.current_length += tensor.shape[2]
        return self.data[:, :, :self.current_length]

    def copy(self, indices, prev_length):
        picked = self.data.index_select(2, indices)
        self.data[:, :, prev_length:prev_length + picked.shape[2]] = picked
        self.current_length = prev_length + picked.shape[2]


def own_store(layers, length):
    return [[KVCache(torch.zeros(1, 1, length, 8), 0) for _ in range(2)] for _ in range(layers)]


class DraftHead:
    def __init__(self):
        self.model = AutoModelForCausalLM.from_pretrained("yuhuili/EAGLE-LLaMA3-Instruct-8B")
        self.stable_kv = None

    def step(self, ids):
        out = self.model(ids, past_key_values=self.stable_kv, use_cache=True)
        self.stable_kv = out.past_key_values
        return out.logits[:, -1:].argmax(-1)

    def drafted(self):
        return self.stable_kv[0][0].shape[2]  # site: dh_attr_index

    def drafted_new(self):
        return self.stable_kv.get_seq_length()  # clean: dh_attr_length

    def reset(self, keep):
        self.stable_kv.crop(keep)  # site: dh_attr_crop


def accept(store, indices, prev):
    for layer in store:
        layer[0].copy(indices, prev)  # clean: dh_own_copy
        layer[1].copy(indices, prev)
    return store[0][0].current_length  # clean: dh_own_index


def probe_own():
    store = own_store(2, 16)
    for layer in store:
        for kv in layer:
            kv.cat(torch.ones(1, 1, 5, 8))
    assert accept(store, torch.tensor([1, 3]), 2) == 4


def probe_attr_index():
    head = DraftHead()
    head.step(torch.tensor([[1, 2, 3]]))
    assert head.drafted() == 3


def probe_attr_length():
    head = DraftHead()
    head.step(torch.tensor([[1, 2, 3]]))
    head.step(torch.tensor([[4]]))
    assert head.drafted_new() == 4


def probe_attr_crop():
    head = DraftHead()
    head.step(torch.tensor([[1, 2, 3, 4, 5]]))
    head.reset(3)
    assert head.drafted_new() == 3
