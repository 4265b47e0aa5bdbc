"""A block-hashed prefix cache for batched prompts: after a prefill, the batch's cache is checked, cut to whole
blocks, peeled block by block off the front, split per row and stored under the block's hash; a hit is put back
together from the stored per-row caches.

Provenance (mechanisms read; this code is written here, not copied):
- ba144220/hf-prefix-caching @6233ac005b948a4f418a695dd3c68de9a3c28c20 hf_prefix_caching/prefix_cache.py
  (PrefixCache.update: `isinstance(past_key_values, DynamicCache)`, `past_key_values[0][0].shape[0]` against the
  batch size, `past_key_values.crop(block_num * self.block_size)`, then per block `crop_first(past_key_values,
  self.block_size)` and `.batch_split(batch_size, 1)`; PrefixCache.get: `DynamicCache.from_batch_splits(
  batch_caches)`), hf_prefix_caching/utils/cache.py (crop_first walks `cache.key_cache` / `value_cache`, updates a
  new DynamicCache with the first `length` positions and reassigns the rest into the lists)
Reduced: update's steps are small methods here (one method in the original) so each can be probed.
"""

import torch
from transformers import AutoModelForCausalLM
from transformers.cache_utils import DynamicCache

model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen3-8B")
batch = torch.tensor([[1, 2, 3, 4, 5, 6], [1, 2, 3, 4, 7, 8]])


def crop_first(cache, length):
    new_cache = DynamicCache()
    for layer_idx in range(len(cache.key_cache)):  # site: bp_crop_first_lists
        if cache.key_cache[layer_idx].numel():
            new_cache.update(cache.key_cache[layer_idx][..., :length, :],
                             cache.value_cache[layer_idx][..., :length, :], layer_idx)
            cache.key_cache[layer_idx] = cache.key_cache[layer_idx][..., length:, :]
            cache.value_cache[layer_idx] = cache.value_cache[layer_idx][..., length:, :]
    return new_cache


class PrefixCache:
    def __init__(self, block_size=4, max_block_length=8):
        self.block_size = block_size
        self.max_block_length = max_block_length
        self.caches = {}

    def check_batch(self, input_ids, past_key_values):
        if not isinstance(past_key_values, DynamicCache):
            raise ValueError("past_key_values must be a DynamicCache")
        if input_ids.shape[0] != past_key_values[0][0].shape[0]:  # site: bp_batch_index
            raise ValueError("input_ids and past_key_values must have the same batch size")

    def align(self, input_ids, past_key_values):
        block_num = min(input_ids.shape[1] // self.block_size, self.max_block_length)
        past_key_values.crop(block_num * self.block_size)  # site: bp_crop_blocks
        return input_ids[:, :block_num * self.block_size], block_num

    def store_block(self, block_cache, input_ids, start_pos):
        rows = block_cache.batch_split(input_ids.shape[0], 1)  # site: bp_batch_split
        for row, cache in enumerate(rows):
            key = tuple(input_ids[row, :start_pos + self.block_size].tolist())
            self.caches[key] = cache

    def update(self, input_ids, past_key_values):
        self.check_batch(input_ids, past_key_values)
        input_ids, block_num = self.align(input_ids, past_key_values)
        for block_idx in range(block_num):
            self.store_block(crop_first(past_key_values, self.block_size), input_ids, block_idx * self.block_size)

    def gather(self, row_caches):
        return DynamicCache.from_batch_splits(row_caches)  # site: bp_from_splits


def prefill(input_ids):
    return model(input_ids, use_cache=True).past_key_values  # clean: bp_prefill


def probe_prefill():
    assert prefill(batch).get_seq_length() == 6


def probe_check():
    PrefixCache().check_batch(batch, prefill(batch))


def probe_align():
    cache = prefill(batch)
    ids, blocks = PrefixCache().align(batch, cache)
    assert blocks == 1 and cache.get_seq_length() == 4


def probe_crop_first():
    cache = prefill(batch)
    assert crop_first(cache, 4).get_seq_length() == 4


def probe_store():
    store = PrefixCache()
    store.store_block(prefill(batch[:, :4]), batch, 0)
    assert len(store.caches) == 2


def probe_gather():
    rows = [prefill(batch[:1, :4]), prefill(batch[1:, :4])]
    assert PrefixCache().gather(rows).get_seq_length() == 4
