"""Attention patches in the style of attention_sinks / StreamingLLM ports: written against 4.55's attention
signature (`past_key_value`), bound per layer with types.MethodType, or installed as a subclass of the attention
class; and a project's own drafter and ring buffer whose methods share transformers' hook names."""

import types

import torch
from transformers import AutoModelForCausalLM
from transformers.models.llama.modeling_llama import LlamaAttention

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")
prompt = torch.tensor([[1, 5, 9, 14, 20]])
SEEN = []


def sink_forward(self, hidden_states, position_embeddings, attention_mask, past_key_value=None, **kwargs):  # site: sinks_patch_singular
    SEEN.append(past_key_value is not None)
    return LlamaAttention.forward(self, hidden_states, position_embeddings, attention_mask, **kwargs)


class RecordingAttention(LlamaAttention):
    def forward(self, hidden_states, position_embeddings=None, attention_mask=None, past_key_values=None, **kwargs):  # site: sinks_subclass_forward
        SEEN.append(past_key_values is not None)
        return super().forward(hidden_states, position_embeddings, attention_mask, past_key_values, **kwargs)  # observe: sinks_subclass_forward


class Drafter:
    """The project's own draft model wrapper: its hook-named methods are called by its own code only."""

    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, **kwargs):  # clean: sinks_own_prepare
        return {"input_ids": input_ids if past_key_values is None else input_ids[:, -1:]}


class RingBuffer:
    def __init__(self):
        self.slots = {}

    def update(self, keys, values, layer_idx, cache_kwargs=None):
        self.slots[int(cache_kwargs["cache_position"])] = (keys, values)  # clean: sinks_own_update
        return keys, values


def probe_singular():
    SEEN.clear()
    originals = [layer.self_attn.forward for layer in model.model.layers]
    for layer in model.model.layers:
        layer.self_attn.forward = types.MethodType(sink_forward, layer.self_attn)
    try:
        model.generate(prompt, max_new_tokens=2, min_new_tokens=2, do_sample=False)
    finally:
        for layer, original in zip(model.model.layers, originals):
            layer.self_attn.forward = original
    assert any(SEEN), f"sinks_patch_singular: the patch saw no cache {SEEN}"  # observe: sinks_patch_singular


def probe_subclass():
    SEEN.clear()
    for layer in model.model.layers:
        layer.self_attn.__class__ = RecordingAttention
    try:
        model.generate(prompt, max_new_tokens=2, min_new_tokens=2, do_sample=False)
    finally:
        for layer in model.model.layers:
            layer.self_attn.__class__ = LlamaAttention
    assert all(SEEN), f"sinks_subclass_forward: the subclass saw no cache {SEEN}"  # observe: sinks_subclass_forward


def probe_own():
    drafter, ring = Drafter(), RingBuffer()
    assert drafter.prepare_inputs_for_generation(prompt, past_key_values=object())["input_ids"].shape[-1] == 1
    ring.update(torch.zeros(1), torch.zeros(1), 0, {"cache_position": torch.tensor(3)})
    assert 3 in ring.slots
