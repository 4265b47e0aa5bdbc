"""Continuous batching for Gemma 3 in a model server: every prefill gets its own `HybridCache` sized for the batch
(`max_batch_size`, `max_cache_len`, dtype, device), and merging the new requests into the running batch builds a
`HybridCache` for the summed batch size, concatenates the two caches' `key_cache`/`value_cache` lists along the
batch axis, clears the new cache's lists and extends them with the merged tensors (the class's `update` is not
used for merging).

Provenance (mechanisms read; this code is written here, not copied):
- xorbitsai/inference @151a353969c5fe13077b05549d978060ce83d7e8 xinference/model/llm/transformers/gemma3.py
  (`build_prefill_kwargs`: `from transformers import HybridCache`, `kv = HybridCache(self._model.config,
  max_batch_size=batch_size, max_cache_len=max_cache_len, dtype=self._model.dtype, device=self._device)`,
  `{**inputs, "past_key_values": kv}`; `merge_kv_cache(past_cache, new_cache)`: `max_cache_len =
  new_cache.max_cache_len`, `batch_size = past_cache.max_batch_size + new_cache.max_batch_size`, a new
  `HybridCache(...)`, `new_ks = [torch.cat([nk, pk], dim=0).contiguous() for nk, pk in zip(new_cache.key_cache,
  past_cache.key_cache)]` and the same for values, `kv_batch.key_cache.clear()`, `kv_batch.value_cache.clear()`,
  `kv_batch.key_cache.extend(new_ks)`, `kv_batch.value_cache.extend(new_vs)`)
Reduced: the class is read from the package where the cache is built (one line per construction); the merge's
steps (batch dimensions, merged lists, filling the new cache's lists, read once) are small helpers; requests,
chat templates and `build_reduced_kv_cache` are left out. The probes that merge use `StaticCache`s filled by a
forward (what a hybrid cache is built on), so the merge is reached where `HybridCache` no longer exists.
"""

import torch
import transformers
from transformers import AutoModelForCausalLM, StaticCache


class Gemma3TextChatModel:
    def __init__(self, model_path, context_len=32):
        self._model = AutoModelForCausalLM.from_pretrained(model_path, torch_dtype=torch.float32)
        self._device = self._model.device
        self.context_len = context_len

    def new_hybrid_cache(self, batch_size, max_cache_len):
        return transformers.HybridCache(self._model.config, max_batch_size=batch_size, max_cache_len=max_cache_len,  # site: xg_hybrid_ctor
                                        dtype=self._model.dtype, device=self._device)

    def build_prefill_kwargs(self, input_ids):
        kv = self.new_hybrid_cache(input_ids.shape[0], self.context_len)
        return {"input_ids": input_ids, "past_key_values": kv}

    def merge_kv_cache(self, past_cache, new_cache):
        max_cache_len, batch_size = self._batch_dims(past_cache, new_cache)
        new_ks, new_vs = self._merged_lists(past_cache, new_cache)
        kv_batch = self.new_hybrid_cache(batch_size, max_cache_len)
        self._fill(kv_batch, new_ks, new_vs)
        return kv_batch

    @staticmethod
    def _batch_dims(past_cache, new_cache):
        return new_cache.max_cache_len, past_cache.max_batch_size + new_cache.max_batch_size  # site: xg_cache_dims

    @staticmethod
    def _merged_lists(past_cache, new_cache):
        return ([torch.cat([nk, pk], dim=0).contiguous() for nk, pk in zip(new_cache.key_cache, past_cache.key_cache)], [torch.cat([nv, pv], dim=0).contiguous() for nv, pv in zip(new_cache.value_cache, past_cache.value_cache)])  # site: xg_merge_lists

    @staticmethod
    def _fill(kv_batch, new_ks, new_vs):
        keys, values = kv_batch.key_cache, kv_batch.value_cache  # site: xg_fill_lists
        keys.clear()
        values.clear()
        keys.extend(new_ks)
        values.extend(new_vs)


MODEL = "google/gemma-3-1b-it"
prompt = torch.tensor([[2, 120, 121, 122, 123]])


def filled_static(chat):
    cache = StaticCache(config=chat._model.config, max_cache_len=chat.context_len)
    with torch.no_grad():
        chat._model(prompt, past_key_values=cache, use_cache=True)
    return cache


def probe_prefill():
    chat = Gemma3TextChatModel(MODEL)
    kwargs = chat.build_prefill_kwargs(prompt)
    with torch.no_grad():
        out = chat._model(**kwargs, use_cache=True)
    assert out.logits.shape == (1, 5, 320)


def probe_dims():
    chat = Gemma3TextChatModel(MODEL)
    max_cache_len, batch_size = Gemma3TextChatModel._batch_dims(filled_static(chat), filled_static(chat))
    assert (max_cache_len, batch_size) == (32, 2)


def probe_merge_lists():
    chat = Gemma3TextChatModel(MODEL)
    new_ks, new_vs = Gemma3TextChatModel._merged_lists(filled_static(chat), filled_static(chat))
    assert len(new_ks) == 2 and new_ks[0].shape[0] == 2


def probe_fill():
    chat = Gemma3TextChatModel(MODEL)
    cache = filled_static(chat)
    Gemma3TextChatModel._fill(cache, [torch.zeros(1, 1, 32, 64)] * 2, [torch.zeros(1, 1, 32, 64)] * 2)
