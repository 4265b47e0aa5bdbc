"""A profiling patch on the decoder layers that records how much cache each layer sees."""

import torch
from transformers import AutoModelForCausalLM
from transformers.models.llama.modeling_llama import LlamaDecoderLayer

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")
prompt = torch.tensor([[1, 5, 9, 14, 20]])
ORIGINAL = LlamaDecoderLayer.forward
SEEN = []


def recording_forward(self, hidden_states, *args, past_key_values=None, **kwargs):  # site: layer_patch_reads_pkv
    SEEN.append(past_key_values.get_seq_length() if past_key_values is not None else -1)
    return ORIGINAL(self, hidden_states, *args, past_key_values=past_key_values, **kwargs)


def passthrough_forward(self, *args, **kwargs):  # clean: layer_patch_passthrough
    SEEN.append(0)
    return ORIGINAL(self, *args, **kwargs)


def probe_recording():
    SEEN.clear()
    LlamaDecoderLayer.forward = recording_forward
    try:
        model.generate(prompt, max_new_tokens=2, min_new_tokens=2, do_sample=False)
    finally:
        LlamaDecoderLayer.forward = ORIGINAL
    assert max(SEEN) >= 5, f"layer_patch_reads_pkv: the layer saw {SEEN}"  # observe: layer_patch_reads_pkv


def probe_passthrough():
    SEEN.clear()
    reference = model.generate(prompt, max_new_tokens=2, min_new_tokens=2, do_sample=False)
    LlamaDecoderLayer.forward = passthrough_forward
    try:
        patched = model.generate(prompt, max_new_tokens=2, min_new_tokens=2, do_sample=False)
    finally:
        LlamaDecoderLayer.forward = ORIGINAL
    assert torch.equal(patched, reference)
