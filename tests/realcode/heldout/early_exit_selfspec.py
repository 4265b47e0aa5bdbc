"""Self-speculative decoding with an early-exit draft (layer skip): the draft proposes tokens, the full model
verifies them, and the cache is cut back to the accepted prefix before the next round.

Provenance (mechanisms read; this code is written here, not copied):
- facebookresearch/LayerSkip self_speculation/llama_model_utils.py @0a80c3511507c39c6bbc4a5f75f10a3b32dfa4b5
  (the cached length read as `past_key_values[0][0].shape[2]`; a crop that slices every layer's (k, v) pair)
- facebookresearch/LayerSkip self_speculation/self_speculation_generator.py @0a80c3511507c39c6bbc4a5f75f10a3b32dfa4b5
  (after verification the cache is cut to prompt + accepted - 1 tokens; the verify pass gets the cropped
  tuple of (k, v) pairs as its past)
"""

import torch
from transformers import AutoModelForCausalLM, DynamicCache

model = AutoModelForCausalLM.from_pretrained("facebook/layerskip-llama3.2-1B")
prompt = torch.tensor([[1, 7, 11, 19, 23, 29]])


def cached_length(past):
    return past[0][0].shape[2]  # site: ee_len_index


def draft_round(cache, last, k):
    step = last
    for _ in range(k):
        out = model(step, past_key_values=cache, use_cache=True)
        step = out.logits[:, -1:].argmax(-1)
    return step


def keep_accepted(cache, prompt_len, accepted):
    cache.crop(prompt_len + accepted - 1)  # site: ee_crop_accepted


def keep_accepted_safe(cache, prompt_len, accepted):
    surplus = cache.get_seq_length() - (prompt_len + accepted - 1)  # clean: ee_seq_length
    if surplus > 0:
        cache.crop(-surplus)  # clean: ee_crop_negative


def as_pairs(cache):
    return cache.to_legacy_cache()  # site: ee_to_legacy


def from_pairs(pairs, keep):
    return DynamicCache.from_legacy_cache(tuple((k[:, :, :keep], v[:, :, :keep]) for k, v in pairs))  # site: ee_from_legacy


def verify_with_pairs(pairs, step):
    return model(step, past_key_values=pairs, use_cache=True)  # site: ee_pairs_forward


def probe_len_index():
    out = model(prompt, use_cache=True)
    assert cached_length(out.past_key_values) == 6


def probe_crop_accepted():
    cache = DynamicCache()
    model(prompt, past_key_values=cache, use_cache=True)
    draft_round(cache, prompt[:, -1:], 3)
    keep_accepted(cache, 6, 2)
    assert cache.get_seq_length() == 7


def probe_crop_safe():
    cache = DynamicCache()
    model(prompt, past_key_values=cache, use_cache=True)
    draft_round(cache, prompt[:, -1:], 3)
    keep_accepted_safe(cache, 6, 2)
    assert cache.get_seq_length() == 7


def probe_to_legacy():
    cache = DynamicCache()
    model(prompt, past_key_values=cache, use_cache=True)
    pairs = as_pairs(cache)
    assert len(pairs) == 2


def probe_from_legacy():
    pairs = tuple((torch.zeros(1, 1, 6, 64), torch.zeros(1, 1, 6, 64)) for _ in range(2))
    cache = from_pairs(pairs, 4)
    assert cache.get_seq_length() == 4


def probe_pairs_forward():
    pairs = tuple((torch.zeros(1, 1, 6, 64), torch.zeros(1, 1, 6, 64)) for _ in range(2))
    out = verify_with_pairs(pairs, prompt[:, -1:])
    assert out.logits.shape[1] == 1
