"""A token-recycling / SAM-draft decoder: the target model writes a whole draft tree into its cache, then the
accepted branch's entries are gathered to the front of the tree area and the rest is cut off, all inside a
`DynamicCache` subclass that keeps its own committed length.

Provenance (mechanisms read; this code is written here, not copied):
- hemingkx/Spec-Bench model/samd/cache.py @fd2c1cd7d2201ef71db4c5f4e455008f017967bf (SamdCache(DynamicCache):
  `super().__init__(num_hidden_layers)`, `cache_length` set from `get_seq_length()`, `select_indices` walks
  `self.key_cache + self.value_cache`, copies the accepted rows with index_select/narrow, then
  `self.crop(self.cache_length)`)
Reduced: the gather and the cut are two methods here (one in the original) so each can be probed.
"""

import torch
from transformers import AutoModelForCausalLM, DynamicCache

model = AutoModelForCausalLM.from_pretrained("lmsys/vicuna-7b-v1.3")
prompt = torch.tensor([[1, 5, 9, 13, 17, 21]])
tree = torch.tensor([[30, 31, 32, 33]])


class TreeCache(DynamicCache):
    def __init__(self, num_hidden_layers=None):
        super().__init__(num_hidden_layers)  # site: sd_init_layers
        self.cache_length = 0

    def set_length(self):
        self.cache_length = self.get_seq_length()  # clean: sd_set_length

    def select_indices(self, indices=None, accept_length=1):
        start = self.cache_length
        picked = start + indices if indices is not None else None
        for data in self.key_cache + self.value_cache:  # site: sd_legacy_lists
            if picked is not None:
                data.narrow(-2, start, accept_length).copy_(data.index_select(-2, picked))
        self.commit(accept_length)

    def commit(self, accept_length):
        self.cache_length += accept_length
        self.crop(self.cache_length)  # site: sd_crop_accept


def verify_tree(cache):
    model(prompt, past_key_values=cache, use_cache=True)  # clean: sd_prefill
    cache.set_length()
    model(tree, past_key_values=cache, use_cache=True)
    return cache


def probe_sized():
    cache = TreeCache(model.config.num_hidden_layers)
    verify_tree(cache)
    assert cache.cache_length == 6


def probe_length():
    cache = verify_tree(TreeCache())
    assert cache.cache_length == 6 and cache.get_seq_length() == 10


def probe_select():
    cache = verify_tree(TreeCache())
    cache.select_indices(torch.tensor([0, 2]), 2)
    assert cache.get_seq_length() == 8


def probe_commit():
    cache = verify_tree(TreeCache())
    cache.commit(2)
    assert cache.get_seq_length() == 8
