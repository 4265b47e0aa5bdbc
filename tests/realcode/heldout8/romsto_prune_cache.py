"""Speculative decoding with a drafter and a target model (romsto's Speculative-Decoding): both models are run with
`past_key_values=` their previous output's cache, the target checks gamma drafted tokens at once, and the rejected
drafts are pruned from the caches with a `prune_cache` helper that slices legacy tuples, or, for a DynamicCache,
trims every layer of `cache.key_cache` / `cache.value_cache` in place and rewinds `cache._seen_tokens`.

Provenance (mechanisms read; this code is written here, not copied):
- romsto/Speculative-Decoding @db7db67604359d0380c330c240c276ec1f85ba65
  utils/caching.py (`prune_cache` dispatching on `isinstance(cache, tuple)` / `isinstance(cache, DynamicCache)`;
  `prune_tuple_cache` slicing `tensor[:, :, :-num_tokens_to_discard, :]` per layer; `prune_dynamic_cache`:
  `for layer in range(len(cache))`, `cache.key_cache[layer] = cache.key_cache[layer][:, :, :-n, :]`, the same for
  `value_cache`, then `cache._seen_tokens -= num_tokens_to_discard`) and sampling/speculative_decoding.py
  (`Mp = target(input_ids=..., past_key_values=target_cache, use_cache=use_cache)`, `target_cache =
  Mp.past_key_values`, the drafter loop feeding `drafter_cache` the same way, and with `use_cache=True`
  `drafter_cache = prune_cache(drafter_cache, corrected_gamma - n)` / `target_cache = prune_cache(target_cache,
  corrected_gamma - n + 1)` after the rejection step).
Reduced: one drafting round of greedy drafts, the acceptance test replaced by a fixed number of rejected tokens,
the key and value trims and the token-count rewind split into three helpers (each reached by its own probe),
models fed only their new tokens (the original passes the whole prefix each call).
"""

from typing import Tuple, Union

import torch
from torch import Tensor
from transformers import AutoModelForCausalLM
from transformers.cache_utils import DynamicCache

target = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf")
drafter = AutoModelForCausalLM.from_pretrained("TinyLlama/TinyLlama-1.1B-Chat-v1.0")


def prune_tuple_cache(cache: Tuple[Tuple[Tensor, Tensor]], num_tokens_to_discard: int):
    new_cache = []
    for layer_cache in cache:
        layer = []
        for i in range(len(layer_cache)):
            layer.append(layer_cache[i][:, :, :-num_tokens_to_discard, :])  # clean: rs_slice_tuple
        new_cache.append(tuple(layer))
    return tuple(new_cache)


def _trim_keys(cache, n):
    for layer in range(len(cache)):
        cache.key_cache[layer] = cache.key_cache[layer][:, :, :-n, :]  # site: rs_trim_keys


def _trim_values(cache, n):
    for layer in range(len(cache)):
        cache.value_cache[layer] = cache.value_cache[layer][:, :, :-n, :]  # site: rs_trim_values


def _rewind_seen(cache, n):
    cache._seen_tokens -= n  # site: rs_rewind_seen


def prune_dynamic_cache(cache: DynamicCache, num_tokens_to_discard: int):
    _trim_keys(cache, num_tokens_to_discard)
    _trim_values(cache, num_tokens_to_discard)
    _rewind_seen(cache, num_tokens_to_discard)
    return cache


def prune_cache(cache: Union[Tuple[Tuple[Tensor, Tensor]], DynamicCache], num_tokens_to_discard: int):
    if cache is None:
        return None
    if isinstance(cache, tuple):
        return prune_tuple_cache(cache, num_tokens_to_discard)
    elif isinstance(cache, DynamicCache):
        return prune_dynamic_cache(cache, num_tokens_to_discard)
    raise ValueError("Unsupported cache type.")


@torch.no_grad()
def draft_round(prompt, gamma=3):
    Mp = target(input_ids=prompt, past_key_values=None, use_cache=True)  # clean: rs_target_prefill
    target_cache = Mp.past_key_values  # clean: rs_keep_target
    drafter_cache = None
    tokens = [Mp.logits[:, -1].argmax(-1, keepdim=True)]
    Mq = drafter(input_ids=prompt, past_key_values=drafter_cache, use_cache=True)
    drafter_cache = Mq.past_key_values
    for _ in range(gamma):
        tokens.append(Mq.logits[:, -1].argmax(-1, keepdim=True))
        Mq = drafter(input_ids=tokens[-1], past_key_values=drafter_cache, use_cache=True)  # clean: rs_draft_step
        drafter_cache = Mq.past_key_values
    drafts = torch.cat(tokens, dim=-1)
    Mp = target(input_ids=drafts, past_key_values=target_cache, use_cache=True)  # clean: rs_target_verify
    return Mp.past_key_values, drafter_cache


prompt = torch.tensor([[1, 15, 27, 39, 51, 63]])


def probe_verify():
    target_cache, drafter_cache = draft_round(prompt)
    assert target_cache.get_seq_length() == 10 and drafter_cache.get_seq_length() == 9


def probe_prune_tuple():
    legacy = tuple((torch.zeros(1, 1, 6, 64), torch.zeros(1, 1, 6, 64)) for _ in range(2))
    pruned = prune_cache(legacy, 2)
    assert pruned[0][0].shape[2] == 4


def probe_prune_keys():
    target_cache, _ = draft_round(prompt)
    prune_cache(target_cache, 2)


def probe_prune_values():
    target_cache, _ = draft_round(prompt)
    _trim_values(target_cache, 2)


def probe_rewind():
    _, drafter_cache = draft_round(prompt)
    _rewind_seen(drafter_cache, 2)
