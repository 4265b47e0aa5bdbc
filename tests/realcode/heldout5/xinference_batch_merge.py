"""Continuous batching in a model server: new requests are prefilled together (`use_cache=True`), their cache is
merged with the running requests' cache (both turned into `DynamicCache`s from the legacy format, the shorter
one left-padded along the sequence axis through its `key_cache`/`value_cache` lists, then the two concatenated
along the batch axis into a fresh `DynamicCache`), and every decode round reads the batch size and the sequence
length from the first layer's key tensor (`kv[0][0].shape`).

Provenance (mechanisms read; this code is written here, not copied):
- xorbitsai/inference @3c43cffcdfadc0a44113981643417adfe62e9784 xinference/model/llm/transformers/utils.py
  (`_merge_kv_cache`: `past_cache = DynamicCache.from_legacy_cache(past_kv)`, `new_cache = DynamicCache.
  from_legacy_cache(new_kv)`, seq lens from `past_kv[0][0].shape[seq_len_idx]`, padding loop `k =
  padding_target.key_cache[idx]` ... `padding_target.key_cache[idx] = _k`, then `k1, k2 = new_cache.key_cache[idx],
  past_cache.key_cache[idx]` and `ret_kv.update(torch.cat((k1, k2), 0), torch.cat((v1, v2), 0), idx)`;
  `get_batch_size_and_seq_len_from_kv_cache`: `return kv[0][0].shape[bs_idx], kv[0][0].shape[seq_len_idx] + 1`;
  `_batch_inference_one_step_internal`: prefill `out = model(**prefill_kws, use_cache=True)`, decode rounds)
- xorbitsai/inference @0a5ea22c8deea9f5e4142843e71041a5cb8eac9a xinference/model/llm/transformers/utils.py
  (`convert_to_cache_cls`: `if isinstance(cache, tuple): return DynamicCache.from_legacy_cache(cache)`)
Reduced: requests, sampling and streaming are left out; the merge's steps (conversion, padding, batch
concatenation) are small functions reading each cache's lists once, and the merge reads the sequence lengths
through the same helper as the decode rounds; the merged cache is returned as a `DynamicCache`.
"""

import torch
from torch.nn.functional import pad
from transformers import AutoModelForCausalLM
from transformers.cache_utils import DynamicCache


class PytorchModel:
    def __init__(self, model_path):
        self.model = AutoModelForCausalLM.from_pretrained(model_path)

    @staticmethod
    def get_batch_size_and_seq_len_indexes_from_kv():
        return 0, 2


def _get_pad_param(seq_len_idx, pad_len):
    dimensions = [0] * 8
    dimensions[-2 * (seq_len_idx + 1)] = pad_len
    return tuple(dimensions)


def get_batch_size_and_seq_len_from_kv_cache(kv, xinf_model_obj):
    bs_idx, seq_len_idx = xinf_model_obj.get_batch_size_and_seq_len_indexes_from_kv()
    return kv[0][0].shape[bs_idx], kv[0][0].shape[seq_len_idx] + 1  # site: xi_kv_index


def convert_to_cache_cls(cache):
    if isinstance(cache, tuple):
        return DynamicCache.from_legacy_cache(cache)  # clean: xi_convert_guarded
    return cache


def _as_dynamic_caches(past_kv, new_kv):
    return DynamicCache.from_legacy_cache(past_kv), DynamicCache.from_legacy_cache(new_kv)  # site: xi_from_legacy


def _pad_cache(padding_target, padding_len, seq_len_idx):
    keys, values = padding_target.key_cache, padding_target.value_cache  # site: xi_pad_lists
    pad_param = _get_pad_param(seq_len_idx, padding_len)
    for idx in range(len(keys)):
        keys[idx] = pad(keys[idx], pad_param)
        values[idx] = pad(values[idx], pad_param)


def _concat_batches(new_cache, past_cache):
    new_keys, new_values, past_keys, past_values = new_cache.key_cache, new_cache.value_cache, past_cache.key_cache, past_cache.value_cache  # site: xi_concat_lists
    ret_kv = DynamicCache()
    for idx in range(len(past_keys)):
        ret_kv.update(torch.cat((new_keys[idx], past_keys[idx]), 0), torch.cat((new_values[idx], past_values[idx]), 0), idx)
    return ret_kv


def _merge_kv_cache(xinf_model_obj, past_kv, new_kv):
    _, seq_len_idx = xinf_model_obj.get_batch_size_and_seq_len_indexes_from_kv()
    past_seq_len = get_batch_size_and_seq_len_from_kv_cache(past_kv, xinf_model_obj)[1] - 1
    new_seq_len = get_batch_size_and_seq_len_from_kv_cache(new_kv, xinf_model_obj)[1] - 1
    past_cache, new_cache = _as_dynamic_caches(past_kv, new_kv)
    if past_seq_len != new_seq_len:
        padding_target = new_cache if past_seq_len > new_seq_len else past_cache
        _pad_cache(padding_target, abs(past_seq_len - new_seq_len), seq_len_idx)
    return _concat_batches(new_cache, past_cache)


def prefill(xinf_model_obj, prompt_ids):
    out = xinf_model_obj.model(input_ids=prompt_ids, use_cache=True)  # clean: xi_prefill
    return out.logits, convert_to_cache_cls(out.past_key_values)


running_ids = torch.tensor([[1, 11, 12, 13, 14, 15]])
new_ids = torch.tensor([[1, 16, 17, 18]])
MODEL = "Qwen/Qwen2.5-0.5B-Instruct"


def probe_prefill():
    obj = PytorchModel(MODEL)
    logits, kv = prefill(obj, running_ids)
    assert logits.shape == (1, 6, 320) and kv.get_seq_length() == 6


def probe_decode_lengths():
    obj = PytorchModel(MODEL)
    _, kv = prefill(obj, running_ids)
    batch_size, seq_len = get_batch_size_and_seq_len_from_kv_cache(kv, obj)
    assert (batch_size, seq_len) == (1, 7)


def probe_convert():
    obj = PytorchModel(MODEL)
    _, running = prefill(obj, running_ids)
    _, joining = prefill(obj, new_ids)
    past_cache, new_cache = _as_dynamic_caches(running, joining)
    assert past_cache.get_seq_length() == 6 and new_cache.get_seq_length() == 4


def probe_pad():
    obj = PytorchModel(MODEL)
    _, joining = prefill(obj, new_ids)
    _pad_cache(joining, 2, 2)
    assert joining.get_seq_length() == 6


def probe_concat():
    obj = PytorchModel(MODEL)
    _, first = prefill(obj, running_ids)
    _, second = prefill(obj, running_ids)
    merged = _concat_batches(second, first)
    assert merged.get_seq_length() == 6
