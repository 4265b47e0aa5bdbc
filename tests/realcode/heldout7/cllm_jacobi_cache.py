"""Consistency LLM (CLLM) Jacobi decoding: the project patches a `delete_false_key_value(num_of_false_tokens)` method
onto transformers' DynamicCache (it trims the last tokens off every layer's `key_cache` and `value_cache` lists),
adds a `jacobi_forward` to LlamaForCausalLM whose prefill turns a legacy (or missing) cache into a DynamicCache with
`DynamicCache.from_legacy_cache` and reads `get_usable_length(seq_length)` for the positions, then runs Jacobi
iterations over an n-gram, feeding the cache back and dropping the tokens that did not converge.

Provenance (mechanisms read; this code is written here, not copied):
- hao-ai-lab/Consistency_LLM @22775363f8563c63620e71f7a204e90a51d6a379
  cllm/cllm_llama_modeling.py (`delete_false_key_value`: `for layer_idx in range(len(self.key_cache))`, then
  `self.key_cache[layer_idx] = self.key_cache[layer_idx][..., :-num_of_false_tokens, :]` and the same for
  `value_cache`; `jacobi_forward`'s prefill: `use_legacy_cache = not isinstance(past_key_values, Cache)`,
  `DynamicCache.from_legacy_cache(past_key_values)`, `past_key_values.get_usable_length(seq_length)`, positions
  from that length) and applications/chat_cli_cllm.py (`DynamicCache.delete_false_key_value =
  delete_false_key_value`, `LlamaForCausalLM.jacobi_forward = jacobi_forward`, the prefill/generation loop).
Reduced: the decoder layers are run through the model's own forward (the original calls them one by one), one
Jacobi iteration per probe (the original trims the unconverged tokens with delete_false_key_value), the key and
value trims are split into two helpers (each list read once) so every step is reached, greedy only.
"""

import torch
from transformers import AutoModelForCausalLM, LlamaForCausalLM
from transformers.cache_utils import Cache, DynamicCache


def _drop_false_keys(cache, num_of_false_tokens):
    keys = cache.key_cache  # site: cl_key_lists
    for layer_idx in range(len(keys)):
        keys[layer_idx] = keys[layer_idx][..., :-num_of_false_tokens, :]


def _drop_false_values(cache, num_of_false_tokens):
    values = cache.value_cache  # site: cl_value_lists
    for layer_idx in range(len(values)):
        values[layer_idx] = values[layer_idx][..., :-num_of_false_tokens, :]


def delete_false_key_value(self, num_of_false_tokens):
    _drop_false_keys(self, num_of_false_tokens)
    _drop_false_values(self, num_of_false_tokens)


DynamicCache.delete_false_key_value = delete_false_key_value  # clean: cl_patch_cache_class


def _as_cache(past_key_values):
    if not isinstance(past_key_values, Cache):
        past_key_values = DynamicCache.from_legacy_cache(past_key_values)  # site: cl_from_legacy
    return past_key_values


def _past_length(past_key_values, seq_length):
    return past_key_values.get_usable_length(seq_length)  # site: cl_usable_length


@torch.inference_mode()
def jacobi_prefill(self, input_ids, past_key_values=None):
    past_key_values = _as_cache(past_key_values)
    start = _past_length(past_key_values, input_ids.shape[1])
    position_ids = torch.arange(start, start + input_ids.shape[1]).unsqueeze(0)
    out = self(input_ids=input_ids, position_ids=position_ids, past_key_values=past_key_values, use_cache=True)
    return out.past_key_values, out.logits[:, -1].argmax(-1)


@torch.inference_mode()
def jacobi_iterate(self, first_token, past_key_values, n_gram=4):
    guess = torch.cat([first_token.view(1, 1), torch.randint(3, 300, (1, n_gram - 1))], dim=-1)
    start = past_key_values.get_seq_length()  # clean: cl_seq_length
    position_ids = torch.arange(start, start + n_gram).unsqueeze(0)
    out = self(input_ids=guess, position_ids=position_ids, past_key_values=past_key_values, use_cache=True)  # clean: cl_iterate_forward
    return torch.cat([first_token.view(1, 1), out.logits[:, :-1].argmax(-1)], dim=-1)


LlamaForCausalLM.jacobi_prefill = jacobi_prefill
LlamaForCausalLM.jacobi_iterate = jacobi_iterate

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-chat-hf")
prompt = torch.tensor([[1, 5, 9, 13, 17, 21, 25]])


def plain_prefill(input_ids):
    with torch.no_grad():
        out = model(input_ids=input_ids, use_cache=True)  # clean: cl_plain_prefill
    return out.past_key_values, out.logits[:, -1].argmax(-1)


def probe_prefill():
    model.jacobi_prefill(prompt, past_key_values=DynamicCache())


def probe_from_legacy():
    cache = _as_cache(None)
    assert cache.get_seq_length() == 0


def probe_delete_false_keys():
    cache, _ = plain_prefill(prompt)
    cache.delete_false_key_value(2)
    assert cache.get_seq_length() == 5


def probe_delete_false_values():
    cache, _ = plain_prefill(prompt)
    _drop_false_values(cache, 2)


def probe_iterate():
    cache, first = plain_prefill(prompt)
    guess = model.jacobi_iterate(first, cache)
    assert guess.shape == (1, 4) and cache.get_seq_length() == 11
