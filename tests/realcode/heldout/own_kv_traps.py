"""False-alarm traps from projects with their own decoding machinery: a preallocated KV buffer class named
like transformers' (Medusa/EAGLE style), a region object with `.crop`, tuples of tensors that are not caches,
and a small torch module whose forward takes `past_key_values` it defines itself.

Provenance (mechanisms read; this code is written here, not copied):
- ysyisyourbrother/HelloWorld Medusa/medusa/pipeline_model/medusa_llama_pp.py (`initialize_past_key_values`
  returns the project's own KVCache objects, indexed as past_key_values[layer][0|1])
- mit-han-lab/streaming-llm streaming_llm/kv_cache.py @d729b3ffc947caca63fc0f7644b7468ca2d50881 (a plain
  class holding start/recent sizes, called on lists of (k, v))
- facebookresearch/LayerSkip self_speculation/llama_model_utils.py @0a80c3511507c39c6bbc4a5f75f10a3b32dfa4b5
  (lists of (k, v) tuples passed between the project's own helpers)
"""

import torch
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")


class KVCache:
    """A preallocated buffer with a current length (the project's, not transformers')."""

    def __init__(self, data, current_length):
        self.data = data
        self.current_length = current_length

    def copy(self, indices, prev_length):
        chosen = self.data[:, :, indices]
        self.data[:, :, prev_length:prev_length + chosen.shape[2]] = chosen
        self.current_length.fill_(prev_length + chosen.shape[2])

    def cat(self, tensor):
        n = tensor.shape[2]
        start = int(self.current_length)
        self.data[:, :, start:start + n] = tensor
        self.current_length.add_(n)
        return self.data[:, :, :start + n]

    def crop(self, length):
        self.current_length.fill_(length)


def initialize_past_key_values(layers, length):
    lengths = torch.zeros(layers * 2, dtype=torch.long)
    return [[KVCache(torch.zeros(1, 1, length, 8), lengths[2 * i + j]) for j in range(2)] for i in range(layers)]


class Region:
    def __init__(self, box):
        self.box = box

    def crop(self, box):
        return Region(box)


class TinyDecoder(torch.nn.Module):
    """A toy module with its own cache convention: a list of (k, v) tensors per layer."""

    def forward(self, x, past_key_values=None):
        if past_key_values is not None:
            k, v = past_key_values[0]  # clean: own_param_index
            x = x + k.sum() * 0 + v.sum() * 0
        return x, [(x, x)]


def probe_own_buffer():
    past = initialize_past_key_values(2, 16)
    past[0][0].cat(torch.ones(1, 1, 3, 8))  # clean: own_buffer_index
    past[0][0].crop(2)  # clean: own_buffer_crop
    past[0][0].copy(torch.tensor([0, 1]), 1)
    assert int(past[0][0].current_length) == 3


def probe_region():
    r = Region((0, 0, 10, 10)).crop((1, 1, 4, 4))  # clean: own_region_crop
    assert r.box == (1, 1, 4, 4)


def probe_tuples():
    pairs = [(torch.zeros(2), torch.ones(2)) for _ in range(3)]
    for k, v in pairs:  # clean: own_tuple_iter
        assert k.shape == v.shape
    k0, v0 = pairs[0]  # clean: own_tuple_index
    assert float(v0.sum()) == 2.0


def probe_toy_module():
    net = TinyDecoder()
    y, past = net(torch.ones(2))
    y, past = net(y, past_key_values=past)
    assert len(past) == 1


def probe_model_states():
    out = model(torch.tensor([[1, 2, 3]]), output_hidden_states=True)
    states = out.hidden_states
    assert states[0].shape[1] == 3 and len(states) == 3  # clean: own_hidden_states_index
