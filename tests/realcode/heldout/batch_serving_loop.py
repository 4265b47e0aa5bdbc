"""A small serving loop with continuous batching: finished rows are dropped from the batch cache, beams are
reordered, and a request's cache is expanded for n samples.

Provenance (mechanisms read; this code is written here, not copied):
- Zefan-Cai/KVCache-Factory pyramidkv/llama_model.py @485af3cb33433f7d8814388d5125c7813e3bc458 (batched
  decoding on a DynamicCache the project manages between steps)
- code-search excerpts of serving loops (continuous batching: `remove_sequence_from_cache` over (k, v) pairs;
  beam reordering with `index_select`), repositories not named by the search; read for the mechanism only
"""

import torch
from transformers import AutoModelForCausalLM, DynamicCache

model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B-Instruct")
batch = torch.tensor([[1, 2, 3, 4], [1, 5, 6, 7], [1, 8, 9, 10]])


class Scheduler:
    def __init__(self):
        self.cache = DynamicCache()
        self.active = list(range(batch.shape[0]))

    def prefill(self, ids):
        out = model(ids, past_key_values=self.cache, use_cache=True)
        return out.logits[:, -1:].argmax(-1)

    def retire(self, finished):
        keep = [i for i in range(len(self.active)) if self.active[i] not in finished]
        self.cache.batch_select_indices(torch.tensor(keep))  # clean: sv_batch_select
        self.active = [self.active[i] for i in keep]

    def retire_by_layers(self, keep):
        for layer in self.cache.layers:  # clean: sv_layers_select
            layer.keys = layer.keys[keep]
            layer.values = layer.values[keep]


def reorder_beams(cache, beam_idx):
    cache.reorder_cache(beam_idx)  # clean: sv_reorder


def expand_for_samples(cache, n):
    cache.batch_repeat_interleave(n)  # clean: sv_repeat


def rows_of(cache):
    return cache[0][0].shape[0]  # site: sv_rows_index


def probe_retire():
    s = Scheduler()
    nxt = s.prefill(batch)
    s.retire({1})
    out = model(nxt[[0, 2]], past_key_values=s.cache, use_cache=True)
    assert out.logits.shape[0] == 2 and s.cache.get_seq_length() == 5


def probe_retire_layers():
    s = Scheduler()
    s.prefill(batch)
    s.retire_by_layers(torch.tensor([0, 2]))
    assert s.cache.layers[0].keys.shape[0] == 2


def probe_reorder():
    s = Scheduler()
    s.prefill(batch)
    first = s.cache.layers[0].keys[2].clone()
    reorder_beams(s.cache, torch.tensor([2, 1, 0]))
    assert torch.equal(s.cache.layers[0].keys[0], first)


def probe_repeat():
    s = Scheduler()
    s.prefill(batch[:1])
    expand_for_samples(s.cache, 3)
    assert s.cache.layers[0].keys.shape[0] == 3


def probe_rows():
    s = Scheduler()
    s.prefill(batch)
    assert rows_of(s.cache) == 3
