"""RL rollouts sharing one prompt prefix (GRPO-style: several completions per prompt): the prompt is prefilled
once, the cache copied for every completion, and the group generated from the copies.

Provenance (mechanisms read; this code is written here, not copied):
- huggingface/trl trl/trainer/rloo_trainer.py (GenerationConfig built once in __init__ and reused for every
  rollout; search excerpt)
- a prefix-cache wrapper (search excerpt "HFModelWrapper ... CacheMode EXACT / TRIE": exact-prefix KV reuse with
  copy.deepcopy of the cached prefix)
"""

import copy

import torch
from transformers import AutoModelForCausalLM, DynamicCache, GenerationConfig

model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B-Instruct")
prompt = torch.tensor([[1, 21, 22, 23]])


class Roller:
    def __init__(self):
        self.config = GenerationConfig(max_new_tokens=3, do_sample=False)  # clean: ro_config
        self.prefix = DynamicCache()
        with torch.no_grad():
            model(prompt[:, :-1], past_key_values=self.prefix, use_cache=True)

    def one(self):
        cache = copy.deepcopy(self.prefix)  # clean: ro_deepcopy
        return model.generate(prompt, past_key_values=cache, generation_config=self.config)  # clean: ro_generate

    def one_legacy(self):
        pairs = self.prefix.to_legacy_cache()  # site: ro_to_legacy
        return len(pairs)

    def one_from_pairs(self, pairs):
        cache = DynamicCache.from_legacy_cache(pairs)  # site: ro_from_legacy
        return model.generate(prompt, past_key_values=cache, generation_config=self.config)

    def prefix_len(self):
        return self.prefix.seen_tokens  # site: ro_seen_tokens


def probe_group():
    r = Roller()
    r.config.min_new_tokens = 3  # fixed length: the random tiny model's EOS must not end generate early (the labelled line stays as written)
    outs = [r.one() for _ in range(2)]
    assert all(o.shape[1] <= 7 for o in outs)


def probe_legacy():
    r = Roller()
    assert r.one_legacy() == 2


def probe_from_pairs():
    r = Roller()
    r.config.min_new_tokens = 3
    pairs = tuple((torch.zeros(1, 1, 3, 64), torch.zeros(1, 1, 3, 64)) for _ in range(2))
    assert r.one_from_pairs(pairs).shape[1] <= 7


def probe_seen():
    r = Roller()
    assert r.prefix_len() == 3
