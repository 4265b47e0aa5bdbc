"""optimum-habana's Gaudi generation mixin (the generation loop Optimum Habana runs instead of transformers' own on
HPU): a `_temporary_reorder_cache` helper for beam search (legacy tuples through the model's `_reorder_cache`,
GPTBigCode through `_reorder_cache` then `DynamicCache.from_legacy_cache`, everything else through
`Cache.reorder_cache`), a user-supplied tuple cache converted with `DynamicCache.from_legacy_cache`, the bucketed
decode dropping the last cached token with `crop(-1)`, assisted decoding discarding rejected candidates with
`outputs.past_key_values.crop(new_cur_len - 1)`, and a final `to_legacy_cache()` when
`generation_config.return_legacy_cache is True`.

Provenance (mechanisms read; this code is written here, not copied):
- huggingface/optimum-habana @1d8504c6c7666a19d71968dba50976dceaf7c6b6
  optimum/habana/transformers/generation/utils.py (`_temporary_reorder_cache(self, past_key_values, beam_idx)`:
  `if isinstance(past_key_values, (tuple, list)): past_key_values = self._reorder_cache(past_key_values,
  beam_idx)`, the "gptbigcode" branch, `else: past_key_values.reorder_cache(beam_idx)`; `_prepare_cache_for_
  generation`: `if isinstance(user_defined_cache, tuple) ...: model_kwargs[cache_name] =
  DynamicCache.from_legacy_cache(user_defined_cache)`; the bucketed `_sample` step:
  `model_kwargs["past_key_values"].crop(-1)`; `_assisted_decoding`: `outputs.past_key_values.crop(new_cur_len -
  1)`; `generate`: `if generation_config.return_legacy_cache is True and hasattr(result, "past_key_values") and
  getattr(result.past_key_values, "to_legacy_cache") is not None: result.past_key_values =
  result.past_key_values.to_legacy_cache()`).
Reduced: the mixin's methods as functions taking the model, no HPU graphs, buckets or static shapes, the assisted
step's candidate check replaced by a fixed number of accepted tokens.
"""

import torch
from transformers import AutoModelForCausalLM, DynamicCache, EncoderDecoderCache


def _temporary_reorder_cache(self, past_key_values, beam_idx):
    model_class = self.__class__.__name__.lower()
    if isinstance(past_key_values, (tuple, list)):
        past_key_values = self._reorder_cache(past_key_values, beam_idx)  # site: hb_reorder_tuple
    elif "gptbigcode" in model_class:
        if not isinstance(past_key_values, (DynamicCache, EncoderDecoderCache)):
            raise ValueError(f"Using an unsupported cache format with {model_class}.")
        past_key_values = self._reorder_cache(past_key_values, beam_idx)  # site: hb_reorder_bigcode
        past_key_values = DynamicCache.from_legacy_cache(past_key_values)
    else:
        past_key_values.reorder_cache(beam_idx)  # clean: hb_reorder_cache
    return past_key_values


def _prepare_cache_for_generation(self, generation_config, model_kwargs):
    user_defined_cache = model_kwargs.get("past_key_values")
    if user_defined_cache is not None:
        if generation_config.cache_implementation is not None:
            raise ValueError("Passing both `cache_implementation` and `past_key_values` is unsupported.")
        if isinstance(user_defined_cache, tuple):
            model_kwargs["past_key_values"] = DynamicCache.from_legacy_cache(user_defined_cache)  # site: hb_from_legacy
    return model_kwargs


@torch.no_grad()
def bucketed_step(self, input_ids, model_kwargs):
    outputs = self(input_ids, past_key_values=model_kwargs["past_key_values"], return_dict=True)  # clean: hb_step
    model_kwargs["past_key_values"] = outputs.past_key_values
    model_kwargs["past_key_values"].crop(-1)  # clean: hb_drop_last
    return outputs


@torch.no_grad()
def assisted_step(self, input_ids, candidate_ids, n_matches, past_key_values):
    outputs = self(candidate_ids, past_key_values=past_key_values, return_dict=True)
    valid_tokens = candidate_ids[:, : n_matches + 1]
    input_ids = torch.cat((input_ids, valid_tokens), dim=-1)
    new_cur_len = input_ids.shape[1]
    outputs.past_key_values.crop(new_cur_len - 1)  # site: hb_assisted_crop
    return input_ids, outputs.past_key_values


def finish_generate(generation_config, result):
    if (
        generation_config.return_legacy_cache is True  # site: hb_return_legacy
        and hasattr(result, "past_key_values")
        and getattr(result.past_key_values, "to_legacy_cache") is not None
    ):
        result.past_key_values = result.past_key_values.to_legacy_cache()
    return result


model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf")
prompt = torch.tensor([[1, 3, 5, 7], [1, 2, 4, 6]])


def as_legacy(cache):
    return tuple((layer.keys, layer.values) for layer in cache.layers)  # clean: hb_as_legacy


def _prefill():
    with torch.no_grad():
        return model(prompt, return_dict=True)


def probe_beam_tuple():
    legacy = as_legacy(_prefill().past_key_values)
    _temporary_reorder_cache(model, legacy, torch.tensor([1, 0]))


def probe_beam_cache():
    cache = _prefill().past_key_values
    first = cache.layers[0].keys[0].clone()
    cache = _temporary_reorder_cache(model, cache, torch.tensor([1, 1]))
    assert torch.equal(cache.layers[0].keys[0], cache.layers[0].keys[1]) and not torch.equal(first, cache.layers[0].keys[0])


def probe_user_tuple():
    legacy = as_legacy(_prefill().past_key_values)
    kwargs = _prepare_cache_for_generation(model, model.generation_config, {"past_key_values": legacy})
    assert kwargs["past_key_values"].get_seq_length() == 4


def probe_as_legacy():
    legacy = as_legacy(_prefill().past_key_values)
    assert len(legacy) == model.config.num_hidden_layers and legacy[0][0].shape[2] == 4


def probe_bucketed():
    kwargs = {"past_key_values": _prefill().past_key_values}
    bucketed_step(model, torch.tensor([[9], [9]]), kwargs)
    assert kwargs["past_key_values"].get_seq_length() == 4


def probe_assisted():
    cache = _prefill().past_key_values
    ids, cache = assisted_step(model, prompt, torch.tensor([[8, 9, 10], [8, 9, 10]]), 1, cache)
    assert ids.shape[1] == 6 and cache.get_seq_length() == 5


def probe_finish():
    result = model.generate(prompt, max_new_tokens=2, min_new_tokens=2, return_dict_in_generate=True)
    result = finish_generate(model.generation_config, result)
    assert result.sequences.shape == (2, 6)


def probe_beam_bigcode():
    from transformers import GPTBigCodeConfig, GPTBigCodeForCausalLM

    bigcode = GPTBigCodeForCausalLM(GPTBigCodeConfig(n_layer=2, n_embd=16, n_head=2, vocab_size=100, n_positions=64))
    with torch.no_grad():
        cache = bigcode(prompt, return_dict=True).past_key_values
    _temporary_reorder_cache(bigcode, cache, torch.tensor([1, 0]))
