"""MiniCPM-o 4.5's full-duplex streaming (OpenBMB's PyTorch demo of the omni model): the model keeps the LLM's cache
on itself (`self.llm_past_key_values`), rebuilds it from the chunk history with one forward when it must, and
before each streaming generate takes a speculative snapshot: the cache length (`get_kv_cache_length`, which reads
`cache.key_cache[0].shape[-2]` of a DynamicCache or `cache[0][0].shape[2]` of a legacy tuple) and a checksum of the
first layer's keys when the cache still has `key_cache`. If the user barges in, the snapshot is restored by
truncating the cache back to that length (`_truncate_llm_cache`: every layer of `key_cache` / `value_cache` sliced to
the target, then `cache.crop(target_length)` and `cache._seen_tokens = target_length`). `as_dynamic_cache` turns a
legacy tuple into a DynamicCache (`DynamicCache.from_legacy_cache`) and hands a DynamicCache back as it is.

Provenance (mechanisms read; this code is written here, not copied):
- OpenBMB/minicpm-o-4_5-pytorch-simple-demo @c7e16605c3ae9623a0caee5845bd0183b1d6d5b3
  MiniCPMO45/modeling_minicpmo.py (`self.llm_past_key_values = None`; _ensure_dynamic_cache: `cache =
  as_dynamic_cache(cache)`, `if isinstance(cache, DynamicCache): self.llm_past_key_values = cache`;
  _rebuild_cache_from_history: `outputs = self.llm(input_ids=concat_ids, attention_mask=attention_mask,
  use_cache=True, return_dict=True)`, `self.llm_past_key_values = outputs.past_key_values`; the snapshot:
  `llm_cache_length = self._get_kv_cache_length()`, `if self.llm_past_key_values is not None and
  hasattr(self.llm_past_key_values, "key_cache"): ... key_cache[0].sum().item()`; restore: `if current_cache_length >
  snapshot.llm_cache_length: self._truncate_llm_cache(snapshot.llm_cache_length)`; _truncate_llm_cache: `for
  layer_idx in range(len(cache.key_cache))`, `cache.key_cache[layer_idx] = cache.key_cache[layer_idx][:, :,
  :target_length, :].contiguous()`, the same for value_cache, `cache.crop(target_length)`, `cache._seen_tokens =
  target_length`) and MiniCPMO45/utils.py (as_dynamic_cache; get_kv_cache_length: `if isinstance(cache,
  DynamicCache): if not cache.key_cache or not cache.key_cache[0].numel(): return 0; return
  cache.key_cache[0].shape[-2]`, `if isinstance(cache, tuple): return cache[0][0].shape[2]`).
Reduced: no vision, audio or TTS towers; the chunk history is a list of token-id tensors; the cache grows by plain
forwards of new chunks; the layer truncation and the crop are split into two helpers, each reached by its own probe
(in the original the first stops the run before the second).
"""

import torch
from transformers import AutoModelForCausalLM
from transformers.cache_utils import DynamicCache


def as_dynamic_cache(past_key_values):
    if isinstance(past_key_values, DynamicCache):
        return past_key_values
    if isinstance(past_key_values, tuple):
        return DynamicCache.from_legacy_cache(past_key_values)  # clean: mc_legacy_branch
    return past_key_values


def get_kv_cache_length(cache):
    if cache is None:
        return 0
    if isinstance(cache, DynamicCache):
        if not cache.key_cache or not cache.key_cache[0].numel():  # site: mc_length_key_cache
            return 0
        return cache.key_cache[0].shape[-2]
    if isinstance(cache, tuple):
        return cache[0][0].shape[2]
    return 0


def _truncate_layers(cache, target_length):
    for layer_idx in range(len(cache.key_cache)):  # site: mc_truncate_layers
        if cache.key_cache[layer_idx].numel() > 0:
            cache.key_cache[layer_idx] = cache.key_cache[layer_idx][:, :, :target_length, :].contiguous()
            cache.value_cache[layer_idx] = cache.value_cache[layer_idx][:, :, :target_length, :].contiguous()


def _crop_metadata(cache, target_length):
    cache.crop(target_length)  # site: mc_crop_target
    cache._seen_tokens = target_length


class MiniCPMODuplex(torch.nn.Module):
    def __init__(self, path):
        super().__init__()
        self.llm = AutoModelForCausalLM.from_pretrained(path, trust_remote_code=True).eval()
        self.llm_past_key_values = None
        self._omni_chunk_history = []
        self._speculative_snapshot = None

    def _ensure_dynamic_cache(self):
        cache = self.llm_past_key_values
        if cache is None:
            return None
        cache = as_dynamic_cache(cache)
        if isinstance(cache, DynamicCache):
            self.llm_past_key_values = cache  # clean: mc_keep_dynamic
            return cache
        return None

    @torch.inference_mode()
    def _rebuild_cache_from_history(self):
        concat_ids = torch.cat(self._omni_chunk_history, dim=1)
        attention_mask = torch.ones((1, concat_ids.shape[1]), dtype=torch.bool)
        outputs = self.llm(input_ids=concat_ids, attention_mask=attention_mask, use_cache=True, return_dict=True)  # clean: mc_rebuild_forward
        self.llm_past_key_values = outputs.past_key_values  # clean: mc_park_cache

    @torch.inference_mode()
    def prefill_chunk(self, ids):
        self._omni_chunk_history.append(ids)
        outputs = self.llm(input_ids=ids, past_key_values=self.llm_past_key_values, use_cache=True)  # clean: mc_chunk_forward
        self.llm_past_key_values = outputs.past_key_values

    def save_speculative_snapshot(self):
        llm_cache_checksum = None
        if self.llm_past_key_values is not None and hasattr(self.llm_past_key_values, "key_cache"):  # clean: mc_checksum_guard
            if len(self.llm_past_key_values.key_cache) > 0:
                llm_cache_checksum = self.llm_past_key_values.key_cache[0].sum().item()
        self._speculative_snapshot = {"checksum": llm_cache_checksum,
                                      "history": len(self._omni_chunk_history)}
        return self._speculative_snapshot

    def _truncate_llm_cache(self, target_length):
        cache = self._ensure_dynamic_cache()
        if cache is None:
            return
        _truncate_layers(cache, target_length)
        _crop_metadata(cache, target_length)


model = MiniCPMODuplex("openbmb/MiniCPM-o-4_5")


def probe_rebuild_and_snapshot():
    model._omni_chunk_history = [torch.tensor([[1, 5, 6, 7]]), torch.tensor([[8, 9]])]
    model._rebuild_cache_from_history()
    model.prefill_chunk(torch.tensor([[10, 11, 12]]))
    assert model._ensure_dynamic_cache().get_seq_length() == 9
    snapshot = model.save_speculative_snapshot()
    assert snapshot["history"] == 3


def probe_snapshot_length():
    model.prefill_chunk(torch.tensor([[1, 5, 6, 7]]))
    assert get_kv_cache_length(model.llm_past_key_values) == 4


def probe_truncate_layers():
    model.prefill_chunk(torch.tensor([[1, 5, 6, 7, 8, 9]]))
    model._truncate_llm_cache(4)


def probe_crop():
    model.prefill_chunk(torch.tensor([[1, 5, 6, 7, 8, 9]]))
    _crop_metadata(model._ensure_dynamic_cache(), 4)
    assert model.llm_past_key_values.get_seq_length() == 4
