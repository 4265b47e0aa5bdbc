"""Multi-token prediction heads on a Gemma 3 text model: candidates are verified in one forward pass and the
cache is rolled back to the accepted prefix (Gemma 3 interleaves sliding-window and full attention layers).

Provenance (mechanisms read; this code is written here, not copied):
- cactus-compute/fmtp nanochat/gemma_medusa/model.py (a Hugging Face Gemma 3 wrapper with Medusa heads:
  tree verification, then the cache is cut back to the accepted length)
"""

import torch
from transformers import AutoModelForCausalLM, DynamicCache

model = AutoModelForCausalLM.from_pretrained("google/gemma-3-1b-it")
prompt = torch.tensor([[2, 15, 30, 45, 60, 75]])


def verify(cache, candidates):
    out = model(candidates, past_key_values=cache, use_cache=True)
    return out.logits.argmax(-1)


def rollback(cache, accepted_len):
    cache.crop(accepted_len)  # site: gm_crop_accepted


def cached(cache):
    return cache.get_seq_length()  # clean: gm_seq_length


def probe_rollback():
    cache = DynamicCache()
    model(prompt, past_key_values=cache, use_cache=True)
    verify(cache, torch.tensor([[90, 91, 92]]))
    rollback(cache, 7)
    assert cached(cache) == 7


def probe_verify_only():
    cache = DynamicCache()
    model(prompt, past_key_values=cache, use_cache=True)
    verify(cache, torch.tensor([[90, 91, 92]]))
    assert cached(cache) == 9
