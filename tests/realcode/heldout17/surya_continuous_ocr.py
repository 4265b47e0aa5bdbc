"""Surya (OCR: a recognition model decoding text lines with continuous batching): the predictor prefills each new
batch of line images into its own `ContinuousBatchingCache()` (a `DynamicCache` subclass with a mixin), runs the
model with `past_key_values=prefill_cache, use_cache=True`, and merges it into the running cache of the decode slots
(`self.kv_cache.merge(prefill_cache, idxs_to_merge, device)`), or parks it there when none runs yet (`if
self.kv_cache:`). The mixin aligns the two caches' lengths through `_seen_tokens`, left-pads and writes rows through
`get_full_cache` / `set_full_cache` (`self.key_cache[layer_idx]`, `self.value_cache[layer_idx]`), and `trim_left`
drops left padding (`self._seen_tokens -= trim_length`, then slices `key_cache` / `value_cache`). With the quantize
setting the prefill cache is a `ContinuousBatchingQuantizedCache(QuantizedCacheConfig("HQQ", 8, 1, 1, ...))` built on
`HQQQuantizedCache`. Each decode step runs the model with `past_key_values=self.kv_cache`.

Provenance (mechanisms read; this code is written here, not copied):
- VikParuchuri/surya @80e9a7e986ae5a2bab1d9837ef5e728a921c8558
  surya/recognition/cache.py (`from transformers import DynamicCache, HQQQuantizedCache`; ContinuousBatchingMixin:
  `trim_left`: `self._seen_tokens -= trim_length`, `for layer_idx in range(len(self)): self.key_cache[layer_idx] =
  self.key_cache[layer_idx][:, :, trim_length:, :]`; `get_full_cache`: `return self.key_cache[layer_idx],
  self.value_cache[layer_idx]`; `set_full_cache`; `merge`: `current_seq_length = self.get_seq_length()`, `offset =
  current_seq_length - new_cache_seq_length`, `if offset > 0: new_cache._seen_tokens += offset elif offset < 0:
  self._seen_tokens += abs(offset)`, pad_left and `index_put_` per layer; `class ContinuousBatchingCache(
  ContinuousBatchingMixin, DynamicCache)`, `class ContinuousBatchingQuantizedCache(ContinuousBatchingMixin,
  HQQQuantizedCache)`) and surya/recognition/__init__.py (`from transformers import QuantizedCacheConfig`;
  `prefill`: `cache_config = QuantizedCacheConfig("HQQ", 8, 1, 1, device=..., compute_dtype=...)`, `prefill_cache =
  ContinuousBatchingCache() if not settings.RECOGNITION_MODEL_QUANTIZE else
  ContinuousBatchingQuantizedCache(cache_config)`, `outputs = self.model(input_ids=..., past_key_values=prefill_cache,
  use_cache=True, logits_to_keep=1, ...)`, `if self.kv_cache: offset = self.kv_cache.merge(prefill_cache,
  idxs_to_merge, self.model.device) else: self.kv_cache = prefill_cache`; `decode`: `past_key_values=self.kv_cache`;
  `maybe_trim_cache_padding`: `if self.kv_cache: self.kv_cache.trim_left(trim_start)`).
Reduced: the recognition model (its own Qwen2-like decoder over image tiles) is a Llama fed token ids, no processor,
detection, image tiles or attention-mask bookkeeping; one line per prefill, two decode slots; the
`QuantizedCacheConfig` import and construction moved under the quantize setting (at module level it stops the whole
module from importing on 4.57); the quantized class's own overrides left out.
"""

from typing import List, Tuple

import torch
import torch.nn.functional as F
from transformers import AutoModelForCausalLM, DynamicCache

RECOGNITION_MODEL_QUANTIZE = False


class ContinuousBatchingMixin:
    def pad_left(self, key_states: torch.Tensor, value_states: torch.Tensor, padding_size: int) -> Tuple[torch.Tensor, torch.Tensor]:
        return (F.pad(key_states, pad=(0, 0, padding_size, 0), mode="constant", value=0),
                F.pad(value_states, pad=(0, 0, padding_size, 0), mode="constant", value=0))

    def trim_left(self, trim_length: int):
        self._seen_tokens -= trim_length  # site: sy_trim_seen
        for layer_idx in range(len(self)):
            self.key_cache[layer_idx] = self.key_cache[layer_idx][:, :, trim_length:, :]
            self.value_cache[layer_idx] = self.value_cache[layer_idx][:, :, trim_length:, :]

    def get_full_cache(self, layer_idx: int):
        return self.key_cache[layer_idx], self.value_cache[layer_idx]  # site: sy_full_cache

    def set_full_cache(self, layer_idx: int, key_cache: torch.Tensor, value_cache: torch.Tensor):
        self.key_cache[layer_idx] = key_cache
        self.value_cache[layer_idx] = value_cache

    def merge(self, new_cache: "ContinuousBatchingCache", merge_idxs: List[int], device: torch.device):
        assert len(new_cache) == len(self), "The two caches should have the same number of layers"
        current_seq_length = self.get_seq_length()
        new_cache_seq_length = new_cache.get_seq_length()
        offset = current_seq_length - new_cache_seq_length
        if offset > 0:
            new_cache._seen_tokens += offset  # site: sy_seen_offset
        elif offset < 0:
            self._seen_tokens += abs(offset)  # site: sy_seen_grow
        merge_idxs = torch.tensor(merge_idxs, dtype=torch.long, device=device)
        with torch.inference_mode():
            for layer_idx in range(len(self)):
                new_k, new_v = new_cache.get_full_cache(layer_idx)
                if offset > 0:
                    new_k, new_v = self.pad_left(new_k, new_v, offset)
                old_k, old_v = self.get_full_cache(layer_idx)
                if offset < 0:
                    old_k, old_v = self.pad_left(old_k, old_v, abs(offset))
                old_k.index_put_((merge_idxs,), new_k)
                old_v.index_put_((merge_idxs,), new_v)
                self.set_full_cache(layer_idx, old_k, old_v)
        return offset


class ContinuousBatchingCache(ContinuousBatchingMixin, DynamicCache):
    pass


def quantized_prefill_cache(device, dtype):
    from transformers import HQQQuantizedCache, QuantizedCacheConfig  # site: sy_quantized_import

    class ContinuousBatchingQuantizedCache(ContinuousBatchingMixin, HQQQuantizedCache):
        pass

    return ContinuousBatchingQuantizedCache(QuantizedCacheConfig("HQQ", 8, 1, 1, device=device, compute_dtype=dtype))


class RecognitionPredictor:
    def __init__(self, model, batch_size=2):
        self.model = model.eval()
        self.kv_cache = None
        self.batch_size = batch_size
        self.batch_prompt_mapping = {i: None for i in range(batch_size)}

    def prefill(self, input_ids, prompt_id):
        prefill_cache = (
            ContinuousBatchingCache()
            if not RECOGNITION_MODEL_QUANTIZE
            else quantized_prefill_cache(self.model.device, self.model.dtype)
        )
        with torch.inference_mode():
            outputs = self.model(input_ids=input_ids, past_key_values=prefill_cache, use_cache=True, logits_to_keep=1)  # clean: sy_prefill
        idxs_to_merge = [k for k, v in self.batch_prompt_mapping.items() if v is None][:1]
        self.batch_prompt_mapping[idxs_to_merge[0]] = prompt_id
        if self.kv_cache:  # clean: sy_cache_truthy
            offset = self.kv_cache.merge(prefill_cache, idxs_to_merge, self.model.device)
        else:
            self.kv_cache = prefill_cache  # clean: sy_park_cache
            offset = 0
        return outputs.logits[:, -1].argmax(-1, keepdim=True), offset

    def decode(self, input_ids):
        with torch.inference_mode():
            outputs = self.model(input_ids=input_ids, past_key_values=self.kv_cache, use_cache=True)  # clean: sy_decode
        return outputs.logits[:, -1].argmax(-1, keepdim=True)

    def maybe_trim_cache_padding(self, trim_start):
        if self.kv_cache:
            self.kv_cache.trim_left(trim_start)


model = AutoModelForCausalLM.from_pretrained("datalab-to/text_recognition")


def batch_of_two(ids):
    return ids.repeat(2, 1)


def probe_first_line():
    predictor = RecognitionPredictor(model)
    token, offset = predictor.prefill(batch_of_two(torch.tensor([[1, 17, 18, 19]])), "line-0")
    token = predictor.decode(token)
    assert offset == 0 and predictor.kv_cache.get_seq_length() == 5


def probe_merge_same_length():
    predictor = RecognitionPredictor(model)
    predictor.prefill(batch_of_two(torch.tensor([[1, 17, 18, 19]])), "line-0")
    predictor.prefill(batch_of_two(torch.tensor([[1, 27, 28, 29]])), "line-1")


def probe_merge_shorter_line():
    predictor = RecognitionPredictor(model)
    predictor.prefill(batch_of_two(torch.tensor([[1, 17, 18, 19, 20]])), "line-0")
    predictor.prefill(batch_of_two(torch.tensor([[1, 27, 28]])), "line-1")



def probe_merge_longer_line():
    predictor = RecognitionPredictor(model)
    predictor.prefill(batch_of_two(torch.tensor([[1, 17, 18]])), "line-0")
    predictor.prefill(batch_of_two(torch.tensor([[1, 27, 28, 29, 30]])), "line-1")

def probe_trim():
    predictor = RecognitionPredictor(model)
    predictor.prefill(batch_of_two(torch.tensor([[1, 17, 18, 19]])), "line-0")
    predictor.maybe_trim_cache_padding(1)


def probe_quantized():
    quantized_prefill_cache(torch.device("cpu"), torch.float32)
