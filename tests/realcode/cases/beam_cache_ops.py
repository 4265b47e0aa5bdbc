"""Cache operations a beam/batch scheduler relies on, unchanged between releases (must stay silent)."""

import torch
from transformers import AutoModelForCausalLM, DynamicCache

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")
prompt = torch.tensor([[1, 5, 9, 14, 20]])


def probe_ops():
    cache = DynamicCache()
    model(prompt, past_key_values=cache, use_cache=True)
    cache.batch_repeat_interleave(2)  # clean: beam_repeat
    cache.reorder_cache(torch.tensor([1, 0]))  # clean: beam_reorder
    cache.batch_select_indices(torch.tensor([0]))  # clean: beam_select
    assert cache.layers[0].keys.shape[0] == 1  # clean: beam_layer_keys
    out = model(torch.tensor([[7]]), past_key_values=cache, use_cache=True)  # clean: beam_step
    assert out.past_key_values.get_seq_length() == 6  # clean: beam_out_len
