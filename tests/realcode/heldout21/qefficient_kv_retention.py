"""QEfficient (quic/efficient-transformers): Qualcomm's library that rewrites HF causal LMs so they export to ONNX and
compile for the Cloud AI 100 with a fixed-size, retained KV cache. `QEffDynamicCache(DynamicCache)` overrides `update`
to scatter the new keys and values at `cache_kwargs["position_ids"]` into each layer's `self.key_cache[layer_idx]`
(appending on a layer's first write) and gather them back masked past the newest position; the transformed attention
sizes its rotary table with `past_key_value.get_usable_length(kv_seq_len, self.layer_idx)`; the transformed model's
forward turns a legacy tuple into the cache class with `QEffDynamicCache.from_legacy_cache(past_key_values)` when it
is not a `Cache`, and hands back `past_key_values.to_legacy_cache()` in that case. The reference runs compare the
exported model with the original HF model: greedy decoding without a cache (the whole sequence re-run each step),
and a KV run whose next inputs detach every `(key, value)` pair of the output's `past_key_values`.

Provenance (mechanisms read; this code is written here, not copied):
- quic/efficient-transformers @d7a2772e46330633402aab4f83a023b12ca14672 (April 2025, "Upgrading transformers version
  to latest 4.50")
  QEfficient/transformers/cache_utils.py (`class QEffDynamicCache(DynamicCache)`, `update(self, key_states,
  value_states, layer_idx, cache_kwargs=None)`: `if len(self.key_cache) <= layer_idx: self.key_cache.append(...)`,
  else `position_ids = cache_kwargs.get("position_ids")`, `self.key_cache[layer_idx] = CtxScatterFunc.apply(...)`,
  gather with `ctx_indices > gather_limit` masked); QEfficient/transformers/models/llama/modeling_llama.py
  (`kv_seq_len = past_key_value.get_usable_length(kv_seq_len, self.layer_idx)`, `cache_kwargs = {"sin": sin, "cos":
  cos, "batch_index": batch_index, "position_ids": position_ids}`, QEffLlamaModel.forward: `if use_cache and not
  isinstance(past_key_values, Cache): return_legacy_cache = True; past_key_values =
  QEffDynamicCache.from_legacy_cache(past_key_values)`, `if return_legacy_cache: past_key_values =
  past_key_values.to_legacy_cache()`); QEfficient/utils/run_utils.py (`run_hf_model_on_pytorch`:
  `outputs = model_hf(input_ids)` per step, `torch.cat` of the argmax) and QEfficient/utils/generate_inputs.py
  (`update_pytorch_inputs`: `tuple([(key.detach(), value.detach()) for key, value in pt_outputs["past_key_values"]])`).
Reduced: the ONNX custom ops CtxScatterFunc / CtxGatherFunc become `Tensor.scatter` / `torch.gather`, no batch_index
(continuous batching) branch, no rotary table (the usable length is only computed), the model's conversions are the
helpers that turn the legacy input into the cache and the cache back into the legacy output, the KV reference run
is one prefill step and its input update.
"""

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer
from transformers.cache_utils import Cache, DynamicCache


def ctx_scatter(data, position_ids, updates):
    index = position_ids[:, None, :, None].expand(-1, data.shape[1], -1, data.shape[3])
    return data.scatter(2, index, updates)


def ctx_gather(data, ctx_indices):
    index = ctx_indices[..., None].expand(data.shape[0], data.shape[1], -1, data.shape[3])
    return torch.gather(data, 2, index)


class QEffDynamicCache(DynamicCache):
    def update(self, key_states, value_states, layer_idx, cache_kwargs=None):
        if len(self.key_cache) <= layer_idx:  # site: qe_key_cache_len
            self.key_cache.append(key_states)
            self.value_cache.append(value_states)
            return key_states, value_states
        position_ids = cache_kwargs.get("position_ids")
        self.key_cache[layer_idx] = ctx_scatter(self.key_cache[layer_idx], position_ids, key_states)
        self.value_cache[layer_idx] = ctx_scatter(self.value_cache[layer_idx], position_ids, value_states)
        k_out, v_out = self.key_cache[layer_idx], self.value_cache[layer_idx]
        ctx_indices = torch.arange(k_out.shape[2])[None, None, ...]
        invalid_mask = ctx_indices > position_ids.max(1, keepdim=True).values.unsqueeze(1)
        ctx_indices = torch.where(invalid_mask, 0, ctx_indices)[0]
        k_out, v_out = ctx_gather(k_out, ctx_indices), ctx_gather(v_out, ctx_indices)
        v_out = torch.where(invalid_mask.unsqueeze(-1), torch.tensor(0.0), v_out)
        return k_out, v_out


def rotary_length(past_key_value, key_states, layer_idx):
    kv_seq_len = key_states.shape[-2]
    kv_seq_len = past_key_value.get_usable_length(kv_seq_len, layer_idx)  # site: qe_usable_length
    return kv_seq_len


def to_qeff_cache(past_key_values, use_cache=True):
    return_legacy_cache = False
    if use_cache and not isinstance(past_key_values, Cache):  # clean: qe_not_a_cache
        return_legacy_cache = True
        past_key_values = QEffDynamicCache.from_legacy_cache(past_key_values)  # site: qe_from_legacy
    return past_key_values, return_legacy_cache


def from_qeff_cache(past_key_values, return_legacy_cache):
    if return_legacy_cache:
        past_key_values = past_key_values.to_legacy_cache()  # site: qe_to_legacy
    return past_key_values


tokenizer = AutoTokenizer.from_pretrained("meta-llama/Llama-3.2-1B")
model_hf = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B", use_cache=True)
model_hf.eval()


def run_hf_model_on_pytorch(prompt, gen_len=3):
    input_ids = tokenizer.encode(prompt, return_tensors="pt")
    input_ids_len = len(input_ids[0])
    for _ in range(gen_len):
        outputs = model_hf(input_ids)  # clean: qe_no_cache_step
        logits = outputs.logits[:, -1, :]
        predicted_token_id = torch.argmax(logits, dim=-1)
        input_ids = torch.cat([input_ids, predicted_token_id.unsqueeze(1)], dim=-1)
    return input_ids[0][input_ids_len:]


def update_pytorch_inputs(inputs, pt_outputs):
    updated_inputs = {}
    updated_inputs["input_ids"] = pt_outputs["logits"].argmax(-1).reshape(-1, 1)
    updated_inputs["position_ids"] = inputs["position_ids"].max(1, keepdim=True).values + 1
    updated_inputs["past_key_values"] = tuple(
        [(key.detach(), value.detach()) for key, value in pt_outputs["past_key_values"]]  # site: qe_detach_pairs
    )
    return updated_inputs


def probe_reference_no_cache():
    generated = run_hf_model_on_pytorch("my name is")
    assert generated.shape[0] == 3


def probe_scatter_update():
    cache = QEffDynamicCache()
    keys = torch.zeros(1, 1, 4, 64)
    cache.update(keys, keys, 0, {"position_ids": torch.arange(4)[None]})
    k_out, _ = cache.update(torch.ones(1, 1, 1, 64), torch.ones(1, 1, 1, 64), 0, {"position_ids": torch.tensor([[2]])})
    assert k_out[0, 0, 2].sum() == 64


def probe_rotary_length():
    out = model_hf(torch.tensor([[1, 5, 9]]), past_key_values=DynamicCache(), use_cache=True)
    assert rotary_length(out.past_key_values, torch.zeros(1, 1, 1, 64), 0) == 4


def probe_cache_passes_through():
    cache, return_legacy = to_qeff_cache(DynamicCache())
    assert not return_legacy and isinstance(cache, DynamicCache)


def probe_legacy_output():
    out = model_hf(torch.tensor([[1, 5, 9]]), use_cache=True)
    legacy = from_qeff_cache(out.past_key_values, True)
    assert isinstance(legacy, tuple) and legacy[0][0].shape[2] == 3


def probe_first_turn_conversion():
    cache, return_legacy = to_qeff_cache(None)
    assert return_legacy and cache.get_seq_length() == 0


def kv_prefill(input_ids):
    inputs = {"input_ids": input_ids, "position_ids": torch.arange(input_ids.shape[1])[None]}
    pt_outputs = model_hf(**inputs, use_cache=True)  # clean: qe_kv_prefill
    return inputs, pt_outputs


def probe_kv_prefill():
    _, pt_outputs = kv_prefill(torch.tensor([[1, 5, 9, 13]]))
    assert pt_outputs["logits"].shape[1] == 4


def probe_kv_reference_step():
    inputs, pt_outputs = kv_prefill(torch.tensor([[1, 5, 9, 13]]))
    updated = update_pytorch_inputs(inputs, pt_outputs)
    assert len(updated["past_key_values"]) == 2 and updated["past_key_values"][0][0].shape[2] == 4
