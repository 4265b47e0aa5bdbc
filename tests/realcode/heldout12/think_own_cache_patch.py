"""ThinK (SalesforceAIResearch/ThinK, query-driven key-channel pruning on top of SnapKV/H2O): `src/cache_utils.py`
carries its OWN `Cache` (a plain `@dataclass` with `update`, `get_seq_length`, `get_max_length`,
`get_usable_length` and a `seen_tokens` property) and its own `DynamicCache(Cache)` keeping `key_cache_pruned`,
`key_cache`, `value_cache`, `mask` and `_seen_tokens`, with `update_think`, `to_legacy_cache` and
`from_legacy_cache`; `src/llama_model.py`'s `prepare_inputs_for_generation_llama` tests
`isinstance(past_key_values, Cache)` against that class and reads `get_seq_length()`, `seen_tokens`,
`get_max_length()`; `src/monkeypatch.py`'s `replace_llama(method)` warns off non-4.40 releases, then sets
`LlamaModel.forward`, `LlamaFlashAttention2.forward` (for "h2o" / "snapkv") and
`LlamaForCausalLM.prepare_inputs_for_generation` on `transformers.models.llama.modeling_llama`.

Provenance (mechanisms read; this code is written here, not copied):
- SalesforceAIResearch/ThinK @e3654136f64864686e551285983f43356bd8dbf9
  ThinK_eager/src/cache_utils.py (Cache, DynamicCache: update, update_think, get_seq_length, get_max_length,
  to_legacy_cache, from_legacy_cache), ThinK_flash/src/llama_model.py (prepare_inputs_for_generation_llama).
- SalesforceAIResearch/ThinK @3cc1007066de9d7c10a6a0fcd261106d1fff820f
  ThinK_flash/src/monkeypatch.py (check_version, replace_llama).
Reduced: the pruning itself (channel masks, `recover_cache`) is a plain key split; the replacement model and
attention forwards are stand-ins (never run); `prepare_inputs_for_generation_llama` is reached by its probes
directly, with ThinK's own cache.
"""

import warnings
from dataclasses import dataclass
from importlib.metadata import version

import torch
import transformers
from transformers import LlamaForCausalLM


@dataclass
class Cache:
    def get_seq_length(self, layer_idx=0):
        raise NotImplementedError("Make sure to implement `get_seq_length` in a subclass.")

    def get_max_length(self):
        raise NotImplementedError("Make sure to implement `get_max_length` in a subclass.")

    @property
    def seen_tokens(self):
        if hasattr(self, "_seen_tokens"):
            return self._seen_tokens
        return None


class DynamicCache(Cache):
    def __init__(self) -> None:
        self.key_cache_pruned = []
        self.key_cache = []
        self.value_cache = []
        self._seen_tokens = 0
        self.mask = []

    def __len__(self):
        return len(self.key_cache)

    def update_think(self, key_states_pruned, key_states, mask, value_states, layer_idx, cache_kwargs=None):
        if layer_idx == 0:
            self._seen_tokens += key_states.shape[-2]
        if len(self.key_cache) <= layer_idx:
            self.key_cache_pruned.append(key_states_pruned)
            self.mask.append(mask)
            self.key_cache.append(key_states)  # clean: th_own_key_cache
            self.value_cache.append(value_states)

    def get_seq_length(self, layer_idx=0):
        if len(self.key_cache) <= layer_idx:
            return 0
        return self.key_cache[layer_idx].shape[-2] + self.key_cache_pruned[layer_idx].shape[-2]

    def get_max_length(self):
        return None

    def to_legacy_cache(self):
        legacy_cache = ()
        for layer_idx in range(len(self)):
            legacy_cache += ((self.key_cache_pruned[layer_idx], self.key_cache[layer_idx], self.mask[layer_idx],
                              self.value_cache[layer_idx]),)
        return legacy_cache

    @classmethod
    def from_legacy_cache(cls, past_key_values=None):
        cache = cls()
        if past_key_values is not None:
            for layer_idx in range(len(past_key_values)):
                key_states_pruned, key_states, mask, value_states = past_key_values[layer_idx]  # clean: th_own_legacy_unpack
                cache.update_think(key_states_pruned, key_states, mask, value_states, layer_idx)
        return cache


def llama_model_forward(self, *args, **kwargs):
    raise NotImplementedError("ThinK's LlamaModel.forward (not reduced here)")


def llama_flash_attn2_forward_SnapKV(self, *args, **kwargs):
    raise NotImplementedError("ThinK's SnapKV attention (not reduced here)")


def prepare_inputs_for_generation_llama(self, input_ids, past_key_values=None, attention_mask=None,
                                        inputs_embeds=None, **kwargs):
    if past_key_values is None:
        for layer in self.model.layers:
            layer.self_attn.kv_seq_len = 0
    if past_key_values is not None:
        if isinstance(past_key_values, Cache):
            cache_length = past_key_values.get_seq_length()  # clean: th_own_seq_length
            past_length = past_key_values.seen_tokens  # clean: th_own_seen_tokens
            max_cache_length = past_key_values.get_max_length()  # clean: th_own_max_length
        else:
            cache_length = past_length = self.model.layers[0].self_attn.kv_seq_len
            max_cache_length = None
        if attention_mask is not None and attention_mask.shape[1] > input_ids.shape[1]:
            input_ids = input_ids[:, -(attention_mask.shape[1] - past_length):]
        elif past_length < input_ids.shape[1]:
            input_ids = input_ids[:, past_length:]
        if max_cache_length is not None and attention_mask is not None \
                and cache_length + input_ids.shape[1] > max_cache_length:
            attention_mask = attention_mask[:, -max_cache_length:]
    position_ids = kwargs.get("position_ids", None)
    if attention_mask is not None and position_ids is None:
        position_ids = attention_mask.long().cumsum(-1) - 1
        position_ids.masked_fill_(attention_mask == 0, 1)
        if past_key_values:
            position_ids = position_ids[:, -input_ids.shape[1]:]
    if inputs_embeds is not None and past_key_values is None:
        model_inputs = {"inputs_embeds": inputs_embeds}
    else:
        model_inputs = {"input_ids": input_ids}
    model_inputs.update({"position_ids": position_ids, "past_key_values": past_key_values,
                         "use_cache": kwargs.get("use_cache"), "attention_mask": attention_mask})
    return model_inputs


def replace_llama(method):
    transformers_version = version("transformers")
    if "4.40" not in transformers_version:
        warnings.warn(f"Transformers version {transformers_version} might not be compatible.")
    transformers.models.llama.modeling_llama.LlamaModel.forward = llama_model_forward
    if method == "snapkv":
        transformers.models.llama.modeling_llama.LlamaFlashAttention2.forward = llama_flash_attn2_forward_SnapKV  # site: th_flash_attention_patch
    if method not in ["fullkv"]:
        transformers.models.llama.modeling_llama.LlamaForCausalLM.prepare_inputs_for_generation = prepare_inputs_for_generation_llama


model = LlamaForCausalLM.from_pretrained("meta-llama/Meta-Llama-3-8B-Instruct")
ids = torch.tensor([[1, 20, 30, 40, 50, 60]])


def think_cache(n):
    cache = DynamicCache()
    for layer_idx in range(model.config.num_hidden_layers):
        k = torch.zeros(1, 1, n, 64)
        cache.update_think(k[:, :, :0], k, None, k.clone(), layer_idx)
    return cache


def probe_snapkv_patch():
    replace_llama("snapkv")


def probe_own_cache_step():
    cache = think_cache(5)
    inputs = prepare_inputs_for_generation_llama(model, ids, past_key_values=cache,
                                                 attention_mask=torch.ones_like(ids), use_cache=True)
    assert inputs["input_ids"].shape[1] == 1 and inputs["position_ids"].tolist() == [[5]]


def probe_legacy_roundtrip():
    cache = think_cache(3)
    again = DynamicCache.from_legacy_cache(cache.to_legacy_cache())
    assert again.get_seq_length() == 3 and again.seen_tokens == 3
