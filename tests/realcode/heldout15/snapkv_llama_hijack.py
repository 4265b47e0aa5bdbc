"""SnapKV (FasterDecoding): compresses the prompt's KV cache per head before decoding, installed by monkeypatching
transformers 4.37's Llama. `replace_llama()` assigns its own `prepare_inputs_for_generation` to `LlamaForCausalLM`
and its own forward to `LlamaFlashAttention2`; the hook resets each attention's `kv_seq_len` when generation starts
and, for a Cache, reads `get_seq_length()`, `seen_tokens` and `get_max_length()` to trim the input ids and the mask.

Provenance (mechanisms read; this code is written here, not copied):
- FasterDecoding/SnapKV @e216ddc84c5bd210378cbdbbba12ba02102aa640
  snapkv/monkeypatch/monkeypatch.py (`replace_llama`: `transformers.models.llama.modeling_llama.LlamaForCausalLM.
  prepare_inputs_for_generation = prepare_inputs_for_generation_llama_4_37`, `transformers.models.llama.
  modeling_llama.LlamaFlashAttention2.forward = llama_flash_attn2_forward_4_37`) and
  snapkv/monkeypatch/llama_hijack_4_37.py (`prepare_inputs_for_generation_llama`: `if past_key_values is None:` every
  `layer.self_attn.kv_seq_len = 0`; `if isinstance(past_key_values, Cache): cache_length =
  past_key_values.get_seq_length(); past_length = past_key_values.seen_tokens; max_cache_length =
  past_key_values.get_max_length()`, the input-id and attention-mask trimming, `model_inputs.update(...)`;
  `llama_flash_attn2_forward`: on the prompt, `key_states_compress, value_states_compress =
  self.kv_cluster.update_kv(...)`, `past_key_value.update(key_states_compress, value_states_compress, self.layer_idx,
  cache_kwargs)` with `cache_kwargs = {"sin": sin, "cos": cos}`).
Reduced: the flash-attention forward is a stub (no compression kernel; its store of the compressed prompt is a
helper keeping the last positions), the hook's three cache reads are split into
helpers (each reached by its own probe), the version check and warning dropped.
"""

from typing import Optional

import torch
import transformers
from transformers import AutoModelForCausalLM
from transformers.cache_utils import Cache, DynamicCache


def llama_flash_attn2_forward(self, hidden_states, attention_mask=None, position_ids=None,
                              past_key_value: Optional[Cache] = None, output_attentions=False, use_cache=False,
                              **kwargs):
    raise NotImplementedError("SnapKV kernel")


def _store_compressed(past_key_value, key_states, value_states, layer_idx, window, sin, cos):
    key_states_compress, value_states_compress = key_states[:, :, -window:], value_states[:, :, -window:]
    cache_kwargs = {"sin": sin, "cos": cos}
    past_key_value.update(key_states_compress, value_states_compress, layer_idx, cache_kwargs)  # clean: sk_store_compressed
    return past_key_value


def _cache_length(past_key_values):
    return past_key_values.get_seq_length()  # clean: sk_cache_length


def _past_length(past_key_values):
    return past_key_values.seen_tokens  # site: sk_seen_tokens


def _max_cache_length(past_key_values):
    return past_key_values.get_max_length()  # site: sk_max_length


def prepare_inputs_for_generation_llama(self, input_ids, past_key_values=None, attention_mask=None,
                                       inputs_embeds=None, **kwargs):
    if past_key_values is None:
        for layer in self.model.layers:
            layer.self_attn.kv_seq_len = 0
    if past_key_values is not None:
        if isinstance(past_key_values, Cache):
            cache_length = _cache_length(past_key_values)
            past_length = _past_length(past_key_values)
            max_cache_length = _max_cache_length(past_key_values)
        else:
            cache_length = past_length = self.model.layers[0].self_attn.kv_seq_len
            max_cache_length = None
        if attention_mask is not None and attention_mask.shape[1] > input_ids.shape[1]:
            input_ids = input_ids[:, -(attention_mask.shape[1] - past_length):]
        elif past_length < input_ids.shape[1]:
            input_ids = input_ids[:, past_length:]
        if max_cache_length is not None and attention_mask is not None and \
                cache_length + input_ids.shape[1] > max_cache_length:
            attention_mask = attention_mask[:, -max_cache_length:]
    model_inputs = {"input_ids": input_ids}
    model_inputs.update({"past_key_values": past_key_values, "use_cache": kwargs.get("use_cache"),
                         "attention_mask": attention_mask})
    return model_inputs


def replace_llama():
    transformers.models.llama.modeling_llama.LlamaForCausalLM.prepare_inputs_for_generation = \
        prepare_inputs_for_generation_llama
    transformers.models.llama.modeling_llama.LlamaFlashAttention2.forward = llama_flash_attn2_forward  # site: sk_flash_class


model = AutoModelForCausalLM.from_pretrained("lmsys/longchat-7b-v1.5-32k").eval()
prompt = torch.tensor([[1, 70, 71, 72, 73]])


def _filled_cache():
    with torch.no_grad():
        return model(prompt, past_key_values=DynamicCache(), use_cache=True).past_key_values  # clean: sk_prefill


def probe_install():
    replace_llama()


def probe_cache_length():
    assert _cache_length(_filled_cache()) == 5


def probe_past_length():
    assert _past_length(_filled_cache()) == 5


def probe_max_length():
    _max_cache_length(_filled_cache())


def probe_first_step():
    out = prepare_inputs_for_generation_llama(model, prompt, attention_mask=torch.ones_like(prompt), use_cache=True)
    assert out["input_ids"].shape[1] == 5 and model.model.layers[0].self_attn.kv_seq_len == 0


def probe_store_compressed():
    cache = DynamicCache()
    keys = torch.zeros(1, 2, 6, 16)
    _store_compressed(cache, keys, keys, 0, 4, torch.zeros(1, 6, 16), torch.ones(1, 6, 16))
    assert cache.get_seq_length(0) == 4
