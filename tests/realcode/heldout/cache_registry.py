"""An eval harness that picks a cache class by name from a registry, guards optional imports, and builds a
static cache for compiled decoding.

Provenance (mechanisms read; this code is written here, not copied):
- huggingface/huggingface-llama-recipes llama_memory_optimized_quantized_cache.py @cfb1f3d66adea7d856a0525cc5be25cd4a23eee0
  (optional cache classes imported by name next to generate's cache options)
- huggingface/huggingface-llama-recipes torch_compile.py @b2b4fb688f4f535fb1cc334caef8aa2793d09237
  (a static cache for compiled decoding, sized up front by the maximum length)
"""

import torch
from transformers import AutoModelForCausalLM, DynamicCache, StaticCache

try:
    from transformers import OffloadedStaticCache  # clean: reg_guarded_import
except ImportError:
    OffloadedStaticCache = None

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B-Instruct")
ids = torch.tensor([[1, 3, 3, 7]])

REGISTRY = {"dynamic": DynamicCache, "static": StaticCache}


def make_static_old(length):
    return StaticCache(config=model.config, max_batch_size=1, max_cache_len=length)  # clean: reg_static_batch_kw


def make_static(length):
    return StaticCache(config=model.config, max_cache_len=length)  # clean: reg_static_new


def sliding_class():
    from transformers import SlidingWindowCache  # site: reg_sliding_import
    return SlidingWindowCache


def run(cache):
    return model.generate(ids, past_key_values=cache, max_new_tokens=2, do_sample=False)  # clean: reg_generate


def probe_guarded():
    assert OffloadedStaticCache is None or callable(OffloadedStaticCache)
    assert REGISTRY["dynamic"]() is not None


def probe_static_old():
    model.generation_config.min_new_tokens = 2  # fixed length: the random tiny model's EOS must not end generate early (the labelled line stays as written)
    assert run(make_static_old(16)).shape[1] <= 6


def probe_static_new():
    model.generation_config.min_new_tokens = 2
    assert run(make_static(16)).shape[1] <= 6


def probe_sliding():
    assert sliding_class() is not None
