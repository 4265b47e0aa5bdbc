"""DeCoRe (decoding by contrasting retrieval heads, aryopg/DeCoRe) and its contrastive-decoding baseline: the prompt
minus its last token is prefilled through the expert and the amateur with `use_cache=True`, both caches are deep-
copied, and each step feeds the last token to both models with their own `past_key_values`, keeps each output's cache
and takes the argmax of `expert_logprobs - alpha * amateur_logprobs`. The masked ("amateur") model is the project's own
copy of a 4.36-era `modeling_llama`: its model forward turns a legacy tuple into a cache with
`DynamicCache.from_legacy_cache` and asks `past_key_values.get_usable_length(seq_length)` for the past length, and its
torch attention (which zeroes the heads in `block_list`) asks `get_usable_length(kv_seq_len, layer_idx)` and, without
`use_cache`, concatenates `past_key_value.key_cache[layer_idx]` with the new keys itself.

Provenance (mechanisms read; this code is written here, not copied):
- aryopg/DeCoRe @d1fa5a916a566025e9790214fb6cdcc545347f26
  src/models/contrastive_decoding.py (`ContrastiveDecoding.generate`: `self.model(input_ids=expert_tokenised_inputs[:,
  :-1], use_cache=True, return_dict=True)`, the same for `self.amateur_model`, `expert_past_kv =
  copy.deepcopy(expert_input_logits.past_key_values)`, the loop's `self.model(input_ids=last_input_token,
  past_key_values=expert_past_kv, use_cache=True, attn_mode=...)`, `expert_past_kv = expert_lm_output.past_key_values`,
  `next_token_logits = expert_logits - self.alpha * amateur_logits`) and src/utils/modelling_llama.py (`LlamaModel.
  forward`: `use_legacy_cache = not isinstance(past_key_values, Cache)`, `past_key_values =
  DynamicCache.from_legacy_cache(past_key_values)`, `past_key_values_length = past_key_values.get_usable_length(
  seq_length)`; `LlamaFlashAttention2.forward_torch`: `kv_seq_len += past_key_value.get_usable_length(kv_seq_len,
  self.layer_idx)`, `key_states = torch.cat([past_key_value.key_cache[self.layer_idx], key_states], dim=-2)` when
  not `use_cache`, the `block_list` head masking) and src/utils/modelling_mistral.py (the same copy for Mistral, whose
  model forward still hands a legacy caller its cache back: `next_cache = next_decoder_cache.to_legacy_cache() if
  use_legacy_cache else next_decoder_cache`) and src/models/dola.py (the DoLa baseline: `self.model.generate(
  tokenised_inputs, do_sample=False, max_new_tokens=self.max_new_tokens, output_logits=True, dola_layers=
  self.dola_layers, return_dict_in_generate=True)`, then `torch.stack(outputs.logits, dim=1)` for the entropies).
Reduced: the copied modeling file is reduced to its cache handling (three helpers, each reached by its own probe: the
legacy conversion and its way back, the past length, the concatenation of the cached keys), no attn_mode switch or flash kernels; the
expert and the amateur are plain causal LMs; greedy, a fixed number of steps, no EOS stop.
"""

import copy

import torch
from transformers import AutoModelForCausalLM
from transformers.cache_utils import Cache, DynamicCache

expert = AutoModelForCausalLM.from_pretrained("meta-llama/Meta-Llama-3-8B-Instruct").eval()
amateur = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B-Instruct").eval()


def as_cache(past_key_values):
    use_legacy_cache = not isinstance(past_key_values, Cache)
    if use_legacy_cache:
        past_key_values = DynamicCache.from_legacy_cache(past_key_values)  # site: dc_from_legacy
    return past_key_values, use_legacy_cache


def output_cache(next_decoder_cache, use_legacy_cache):
    return next_decoder_cache.to_legacy_cache() if use_legacy_cache else next_decoder_cache  # site: dc_to_legacy


def past_length(past_key_values, seq_length):
    return past_key_values.get_usable_length(seq_length)  # site: dc_usable_length


def concat_cached_keys(past_key_value, key_states, layer_idx):
    return torch.cat([past_key_value.key_cache[layer_idx], key_states], dim=-2)  # site: dc_concat_keys


@torch.no_grad()
def contrastive_generate(tokens, max_new_tokens=3, alpha=0.5):
    expert_input = expert(input_ids=tokens[:, :-1], use_cache=True, return_dict=True)  # clean: dc_expert_prefill
    amateur_input = amateur(input_ids=tokens[:, :-1], use_cache=True, return_dict=True)
    generated_ids = []
    last_input_token = tokens[:, -1]
    expert_past_kv = copy.deepcopy(expert_input.past_key_values)  # clean: dc_copy_expert
    amateur_past_kv = copy.deepcopy(amateur_input.past_key_values)
    for _ in range(max_new_tokens):
        last_input_token = last_input_token.view(1, 1)
        expert_lm_output = expert(input_ids=last_input_token, past_key_values=expert_past_kv, use_cache=True)  # clean: dc_expert_step
        amateur_lm_output = amateur(input_ids=last_input_token, past_key_values=amateur_past_kv, use_cache=True)  # clean: dc_amateur_step
        expert_past_kv = expert_lm_output.past_key_values  # clean: dc_keep_expert
        amateur_past_kv = amateur_lm_output.past_key_values
        expert_logits = expert_lm_output.logits[0, -1].log_softmax(dim=-1)
        amateur_logits = amateur_lm_output.logits[0, -1].log_softmax(dim=-1)
        next_token_logits = expert_logits - alpha * amateur_logits
        last_input_token = next_token_logits.argmax()
        generated_ids.append(last_input_token.item())
    return generated_ids, expert_past_kv


def dola_generate(tokenised_inputs, dola_layers="high", max_new_tokens=3):
    with torch.inference_mode():
        outputs = expert.generate(tokenised_inputs, do_sample=False, max_new_tokens=max_new_tokens, output_logits=True, dola_layers=dola_layers, return_dict_in_generate=True)  # site: dc_dola_layers
    logits = torch.stack(outputs.logits, dim=1)
    return outputs.sequences, logits


prompt = torch.tensor([[1, 70, 71, 72, 73, 74]])


def probe_contrast():
    ids, expert_past_kv = contrastive_generate(prompt)
    assert len(ids) == 3 and expert_past_kv.get_seq_length() == 8


def probe_from_legacy():
    legacy = tuple((torch.zeros(1, 2, 4, 8), torch.zeros(1, 2, 4, 8)) for _ in range(2))
    cache, was_legacy = as_cache(legacy)
    assert was_legacy and cache.get_seq_length() == 4


def probe_usable_length():
    out = expert(input_ids=prompt, use_cache=True)
    past_length(out.past_key_values, 1)


def probe_concat_keys():
    out = expert(input_ids=prompt, use_cache=True)
    keys = torch.zeros(1, expert.config.num_key_value_heads, 1, expert.config.hidden_size // expert.config.num_attention_heads)
    concat_cached_keys(out.past_key_values, keys, 0)


def probe_to_legacy():
    out = expert(input_ids=prompt, use_cache=True)
    legacy = output_cache(out.past_key_values, True)
    assert legacy[0][0].shape[2] == 6


def probe_dola():
    expert.generation_config.min_new_tokens = 3
    sequences, logits = dola_generate(prompt)
    assert sequences.shape == (1, 9) and logits.shape[1] == 3
