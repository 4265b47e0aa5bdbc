"""Streaming chat with attention sinks: a greedy loop feeds each step's cache back to the model, and between
turns the project's evictor keeps the first (sink) tokens and the most recent ones.

Provenance (mechanisms read; this code is written here, not copied):
- mit-han-lab/streaming-llm examples/run_streaming_llama.py @b67bb6dda3cf621d959fead607a080f1734900e6
  (greedy loop over `outputs.past_key_values`; `kv_cache.evict_for_space(past_key_values, n)` between turns)
- mit-han-lab/streaming-llm streaming_llm/kv_cache.py @d729b3ffc947caca63fc0f7644b7468ca2d50881
  (the evictor iterates the cache as (k, v) pairs, slices the sequence dimension and returns lists)
"""

import torch
from transformers import AutoModelForCausalLM, DynamicCache

model = AutoModelForCausalLM.from_pretrained("lmsys/vicuna-7b-v1.5")
turn = torch.tensor([[1, 4, 9, 16, 25, 36, 49, 64]])


class SinkWindow:
    """The project's evictor (not a transformers class): `start` sink tokens plus the `recent` newest."""

    def __init__(self, start, recent):
        self.start = start
        self.recent = recent

    def crop(self, length):
        return min(length, self.start + self.recent)

    def evict_pairs(self, past):
        kept = []
        for k, v in past:  # site: sink_iter_pairs
            kept.append([torch.cat([k[:, :, :self.start], k[:, :, -self.recent:]], dim=2),
                         torch.cat([v[:, :, :self.start], v[:, :, -self.recent:]], dim=2)])
        return kept

    def evict_layers(self, cache):
        for layer in cache.layers:  # clean: sink_layers_loop
            layer.keys = torch.cat([layer.keys[:, :, :self.start], layer.keys[:, :, -self.recent:]], dim=2)
            layer.values = torch.cat([layer.values[:, :, :self.start], layer.values[:, :, -self.recent:]], dim=2)
        return cache

    def evict_for_space(self, cache, room):
        if cache.get_seq_length() + room > self.start + self.recent:  # clean: sink_seq_length
            return self.evict_layers(cache)
        return cache


window = SinkWindow(2, 3)


def greedy(ids, past, steps):
    out = model(ids, past_key_values=past, use_cache=True)
    past = out.past_key_values
    for _ in range(steps):
        nxt = out.logits[:, -1:].argmax(-1)
        out = model(nxt, past_key_values=past, use_cache=True)  # clean: sink_loop_forward
        past = out.past_key_values
    return past


def probe_iter_pairs():
    past = greedy(turn, DynamicCache(), 2)
    kept = window.evict_pairs(past)
    assert kept[0][0].shape[2] == 5


def probe_list_forward():
    past = greedy(turn, DynamicCache(), 2)
    kept = [[layer.keys[:, :, -5:], layer.values[:, :, -5:]] for layer in past.layers]
    out = model(turn[:, :1], past_key_values=kept, use_cache=True)  # site: sink_list_forward
    assert out.logits.shape[1] == 1


def probe_evict_layers():
    past = greedy(turn, DynamicCache(), 2)
    past = window.evict_for_space(past, 4)
    assert past.get_seq_length() == 5
    past = greedy(turn[:, :2], past, 1)
    assert past.get_seq_length() == 8


def probe_own_crop():
    assert window.crop(40) == 5  # clean: sink_own_crop
