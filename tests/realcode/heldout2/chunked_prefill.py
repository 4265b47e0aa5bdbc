"""Long-context chunked prefill (feed a long document in fixed-size chunks so the attention buffer stays small),
then decode; the runner sizes its cache up front and keeps the 4.4x constructor keywords it was written with.

Provenance (mechanisms read; this code is written here, not copied):
- NVIDIA/kvpress kvpress/presses/chunk_press.py and kvpress/pipeline.py @02e13c867ea27f4f76b9b93e17faea78217909a5
  (context processed in chunks into one cache with explicit positions)
- microsoft/MInference minference/patch.py (`config.num_layers = self.config.num_hidden_layers` before building
  its cache object; search excerpt)
"""

import torch
from transformers import AutoModelForCausalLM, DynamicCache, StaticCache

model = AutoModelForCausalLM.from_pretrained("gradientai/Llama-3-8B-Instruct-Gradient-1048k")
document = torch.arange(1, 25).unsqueeze(0)


def prefill_chunks(cache, chunk):
    for start in range(0, document.shape[1], chunk):
        piece = document[:, start:start + chunk]
        model(piece, past_key_values=cache, use_cache=True)  # clean: cp_chunk_forward
    return cache.get_seq_length()  # clean: cp_chunk_length


def sized_dynamic():
    return DynamicCache(num_hidden_layers=model.config.num_hidden_layers)  # site: cp_dynamic_layers_kw


def sized_static():
    return StaticCache(config=model.config, max_batch_size=1, max_cache_len=64)  # clean: cp_static_batch_kw


def sized_static_new():
    return StaticCache(config=model.config, max_cache_len=64)  # clean: cp_static_new


def probe_chunks():
    assert prefill_chunks(DynamicCache(), 8) == 24


def probe_dynamic_kw():
    assert prefill_chunks(sized_dynamic(), 8) == 24


def probe_static_kw():
    cache = sized_static()
    model(document[:, :8], past_key_values=cache, use_cache=True)
    assert cache.get_seq_length() == 8


def probe_static_new():
    cache = sized_static_new()
    model(document[:, :8], past_key_values=cache, use_cache=True)
    assert cache.get_seq_length() == 8
