"""Query-agnostic KV eviction: a wrapper prefills a context into an eviction cache (or a plain DynamicCache for the
baseline), runs forwards that do not keep the query's KV (it remembers the cache's seen-token count and slices
back to it), and answers a query with `generate` on the full prompt plus the cache, with generation keywords
chosen per model class.

Provenance (mechanisms read; this code is written here, not copied):
- snu-mllab/KVzip @04d315b9b2f104557fc433074f13cf1de0e3b5e0 model/wrapper.py (ModelKVzip: `self.gen_kwargs` dict
  built in `__init__` with `cache_implementation = None` and `use_model_defaults = False` for Qwen3/Gemma3;
  `__call__`: `seen_token_prev = kv._seen_tokens`, `self.model.model(input_ids, past_key_values=kv)` or
  `self.model(input_ids, past_key_values=kv)` for logits, then `kv.slice(seen_token_prev)`; `_init_kv`:
  `kv = DynamicCache(); kv.pruned, kv.get_score = False, False` for "original"; `generate`: `input_ids =
  torch.cat([kv.prefill_ids, input_ids], dim=1)`, `self.model.generate(input_ids, past_key_values=kv,
  **self.gen_kwargs)`)
- snu-mllab/KVzip @1cf32369c8428c1b5e377ab933fd86c156266d6d attention/kvcache.py (EvictCache(DynamicCache):
  `DynamicCache.__init__(self)`, `update` adds to `self._seen_tokens` and appends to / concatenates
  `self.key_cache`/`self.value_cache`; `slice`; `get_seq_length`)
Reduced: the cache class sits in this file and reads its key/value lists once per method; scoring, pruning and the flattened FlashAttention layout are left out;
the loader picks the model class. Probes that pass the seen-token read set the counter older releases kept.
"""

import torch
from transformers import DynamicCache, Qwen3ForCausalLM

system_ids = torch.tensor([[1, 5, 9]])
context_ids = torch.tensor([[11, 13, 17, 19, 23]])
query_ids = torch.tensor([[29, 31]])


class EvictCache(DynamicCache):
    def __init__(self, model, evict_range):
        DynamicCache.__init__(self)
        self.n_layers = model.config.num_hidden_layers
        self.start_idx, self.end_idx = evict_range
        self.prefill_ids = None
        self.pruned = False
        self.get_score = False

    def update(self, key_states, value_states, layer_idx, cache_kwargs=dict()):  # site: kz_update
        if layer_idx == 0:
            self._seen_tokens += cache_kwargs.get("seen_token", key_states.size(-2))  # site: kz_update_counter
        keys, values = self.key_cache, self.value_cache  # observe: kz_update
        if len(keys) <= layer_idx:
            keys.append(key_states)
            values.append(value_states)
        else:
            keys[layer_idx] = torch.cat([keys[layer_idx], key_states], dim=-2)
            values[layer_idx] = torch.cat([values[layer_idx], value_states], dim=-2)
        return keys[layer_idx], values[layer_idx]

    def slice(self, seen_token_prev):
        keys, values = self.key_cache, self.value_cache  # site: kz_slice_lists
        for layer_idx in range(self.n_layers):
            keys[layer_idx] = keys[layer_idx][:, :, :seen_token_prev]
            values[layer_idx] = values[layer_idx][:, :, :seen_token_prev]
        self._seen_tokens = seen_token_prev


def load_model(model_name):
    return Qwen3ForCausalLM.from_pretrained(model_name)


class ModelKVzip:
    def __init__(self, model_name, kv_type="evict"):
        self.model = load_model(model_name)
        self.kv_type = kv_type
        self.gen_kwargs = {"do_sample": False, "max_new_tokens": 4, "min_new_tokens": 4}
        if isinstance(self.model, Qwen3ForCausalLM):
            self.gen_kwargs["cache_implementation"] = None
            self.gen_kwargs["use_model_defaults"] = False
            self.gen_kwargs["eos_token_id"] = 2

    def __call__(self, input_ids, kv, update_cache=False, return_logits=False):
        seen_token_prev = kv._seen_tokens  # site: kz_seen_tokens
        if return_logits:
            outputs = self.model(input_ids, past_key_values=kv)  # clean: kz_logits_forward
        else:
            _ = self.model.model(input_ids, past_key_values=kv)  # observe: kz_update
            outputs = None
        if not update_cache:
            kv.slice(seen_token_prev)
        return outputs

    def _init_kv(self, kv=None, evict_range=(0, 0)):
        if kv is None:
            if self.kv_type == "evict":
                kv = EvictCache(self.model, evict_range)
            elif self.kv_type == "original":
                kv = DynamicCache()  # clean: kz_plain_cache
                kv.pruned, kv.get_score = False, False  # clean: kz_flags
            else:
                raise NotImplementedError(self.kv_type)
        return kv

    def prefill(self, ctx_ids):
        prefill_ids = torch.cat([system_ids, ctx_ids], dim=1)
        kv = self._init_kv(evict_range=(system_ids.shape[1], prefill_ids.shape[1]))
        kv.prefill_ids = prefill_ids
        self.__call__(prefill_ids, kv, update_cache=True)
        return kv

    def generate(self, query, kv):
        input_ids = torch.cat([kv.prefill_ids, query], dim=1)
        output = self.model.generate(input_ids, past_key_values=kv, **self.gen_kwargs)  # site: kz_generate_kwargs
        return output[:, input_ids.shape[1]:]


def probe_seen_tokens():
    wrapper = ModelKVzip("Qwen/Qwen3-8B", kv_type="original")
    wrapper.prefill(context_ids)


def probe_evict_prefill():
    wrapper = ModelKVzip("Qwen/Qwen3-8B", kv_type="evict")
    kv = wrapper._init_kv(evict_range=(3, 8))
    kv._seen_tokens = 0
    wrapper(torch.cat([system_ids, context_ids], dim=1), kv, update_cache=True)


def probe_plain_forward():
    wrapper = ModelKVzip("Qwen/Qwen3-8B", kv_type="original")
    kv = wrapper._init_kv()
    kv._seen_tokens = 0
    outputs = wrapper(torch.cat([system_ids, context_ids], dim=1), kv, update_cache=True, return_logits=True)
    assert kv.pruned is False and kv.get_seq_length() == 8 and outputs.logits.shape[1] == 8


def probe_answer():
    wrapper = ModelKVzip("Qwen/Qwen3-8B", kv_type="original")
    kv = wrapper._init_kv()
    kv.prefill_ids = torch.cat([system_ids, context_ids], dim=1)
    wrapper.model(kv.prefill_ids, past_key_values=kv)
    answer = wrapper.generate(query_ids, kv)
    assert answer.shape[1] == 4


def probe_update_direct():
    wrapper = ModelKVzip("Qwen/Qwen3-8B", kv_type="evict")
    kv = wrapper._init_kv(evict_range=(3, 8))
    kv.update(torch.ones(1, 1, 4, 8), torch.ones(1, 1, 4, 8), 0)


def probe_slice():
    wrapper = ModelKVzip("Qwen/Qwen3-8B", kv_type="evict")
    kv = wrapper._init_kv(evict_range=(3, 8))
    kv.slice(3)
