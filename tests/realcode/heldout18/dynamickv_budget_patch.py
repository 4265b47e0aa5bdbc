"""DynamicKV's task-aware KV compression for Llama (a monkey patch of transformers' Llama written against 4.4x):
`replace_llama` swaps `LlamaFlashAttention2.forward` for its own attention, which counts the cached length with
`past_key_value.get_usable_length(kv_seq_len, self.layer_idx)` (or its own `kv_seq_len` counter), and at the prefill
gathers every layer's budgeted keys/values and writes them back layer by layer with `past_key_value.update(k, v, t,
cache_kwargs)`; it also swaps `LlamaForCausalLM.prepare_inputs_for_generation` for a copy of the 4.38 hook that reads
`get_seq_length()`, `seen_tokens` and `get_max_length()` of the cache to drop the tokens already cached.

Provenance (mechanisms read; this code is written here, not copied):
- DreamMr/DynamicKV @8ab3c08d4f0a93ef3322e267e1faa03c4e12fd24
  kv_compression/token_drop/monkeypatch.py (`replace_llama`: `transformers.models.llama.modeling_llama.
  LlamaFlashAttention2.forward = llama_forward_function_map[method]`, `...LlamaForCausalLM.
  prepare_inputs_for_generation = prepare_inputs_for_generation_llama`),
  kv_compression/token_drop/llama_model_impl/utils.py (`prepare_inputs_for_generation_llama`: `cache_length =
  past_key_values.get_seq_length()`, `past_length = past_key_values.seen_tokens`, `max_cache_length =
  past_key_values.get_max_length()`, resetting every layer's `self_attn.kv_seq_len = 0` when the cache is None),
  kv_compression/token_drop/llama_model_impl/dynamickv_v11.py (`kv_seq_len += past_key_value.get_usable_length(
  kv_seq_len, self.layer_idx)`; at the last layer `for t in range(num_hidden_layers): past_key_value.update(
  budget_k_cache[t], budget_v_cache[t], t, cache_kwargs)`; decoding steps `past_key_value.update(key_states,
  value_states, self.layer_idx, cache_kwargs)`).
Reduced: the budget allocation (attention-score top-k per layer, re-normalised every four layers) replaced by keeping
the first token and a recent window; the attention forward reduced to its cache bookkeeping, reached from helpers;
the compressed prefill done outside the model (prefill, compress into a fresh cache, decode on it); the patch
installers split so each is reached by its own probe.
"""

import torch
import transformers
from transformers import AutoModelForCausalLM
from transformers.cache_utils import Cache, DynamicCache

model = AutoModelForCausalLM.from_pretrained("meta-llama/Meta-Llama-3-8B-Instruct")
prompt = torch.tensor([[1, 11, 22, 33, 44, 55, 66, 77, 88, 99]])


class DynamicKVCluster:
    def __init__(self, window_size=4):
        self.window_size = window_size

    def budget_compute_per_layer(self, key_states, value_states):
        keep = torch.cat([torch.arange(1), torch.arange(key_states.shape[-2] - self.window_size,
                                                        key_states.shape[-2])])
        return key_states[:, :, keep, :], value_states[:, :, keep, :]


def usable_length(past_key_value, kv_seq_len, layer_idx):
    return kv_seq_len + past_key_value.get_usable_length(kv_seq_len, layer_idx)  # site: dk_usable_length


def write_budgets(past_key_value, budget_k_cache, budget_v_cache, cache_kwargs):
    for t in range(len(budget_k_cache)):
        past_key_value.update(budget_k_cache[t], budget_v_cache[t], t, cache_kwargs)  # clean: dk_write_budget
    return past_key_value


def cached_length(past_key_values):
    return past_key_values.get_seq_length()  # clean: dk_cache_length


def prepare_inputs_for_generation_llama(self, input_ids, past_key_values=None, attention_mask=None,
                                        inputs_embeds=None, **kwargs):
    if past_key_values is None:
        for layer in self.model.layers:
            layer.self_attn.kv_seq_len = 0
    if past_key_values is not None:
        if isinstance(past_key_values, Cache):
            cache_length = cached_length(past_key_values)
            past_length = past_key_values.seen_tokens  # site: dk_seen_tokens
            max_cache_length = past_key_values.get_max_length()
        else:
            cache_length = past_length = self.model.layers[0].self_attn.kv_seq_len
            max_cache_length = None
        if attention_mask is not None and attention_mask.shape[1] > input_ids.shape[1]:
            input_ids = input_ids[:, -(attention_mask.shape[1] - past_length):]
        elif past_length < input_ids.shape[1]:
            input_ids = input_ids[:, past_length:]
        if (max_cache_length is not None and attention_mask is not None
                and cache_length + input_ids.shape[1] > max_cache_length):
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


def dynamickv_forward(self, hidden_states, *args, **kwargs):
    raise NotImplementedError("reduced: only the cache bookkeeping above is kept")


def replace_llama_attention():
    transformers.models.llama.modeling_llama.LlamaFlashAttention2.forward = dynamickv_forward  # site: dk_flash_class


def replace_llama_prepare():
    transformers.models.llama.modeling_llama.LlamaForCausalLM.prepare_inputs_for_generation = (
        prepare_inputs_for_generation_llama)


@torch.no_grad()
def compressed_prefill(cluster):
    cache = DynamicCache()
    out = model(prompt, past_key_values=cache, use_cache=True)  # clean: dk_prefill
    kept_k, kept_v = [], []
    for layer in out.past_key_values.layers:  # clean: dk_layers
        k, v = cluster.budget_compute_per_layer(layer.keys, layer.values)
        kept_k.append(k)
        kept_v.append(v)
    compressed = write_budgets(DynamicCache(), kept_k, kept_v, {"cache_position": None})
    nxt = out.logits[:, -1:].argmax(-1)
    step = model(nxt, past_key_values=compressed, use_cache=True,  # clean: dk_decode
                 position_ids=torch.tensor([[prompt.shape[1]]]))
    return step.past_key_values


def probe_compressed_decode():
    cache = compressed_prefill(DynamicKVCluster())
    assert cached_length(cache) == 6


def probe_usable_length():
    with torch.no_grad():
        cache = model(prompt, use_cache=True).past_key_values
    usable_length(cache, 1, 0)


def probe_install_attention():
    replace_llama_attention()


def probe_generate_patched():
    replace_llama_prepare()
    model.generate(prompt, attention_mask=torch.ones_like(prompt), max_new_tokens=3, min_new_tokens=3,
                   do_sample=False)
