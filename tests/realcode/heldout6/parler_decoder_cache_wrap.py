"""The decoder side of a text-to-speech model with cross-attention to a text encoder (Parler-TTS): its forward
accepts whatever cache the caller passes and normalises it (a decoder-only `Cache` is wrapped in an
`EncoderDecoderCache` with a fresh cross-attention cache, a legacy tuple is converted with
`EncoderDecoderCache.from_legacy_cache`), hands back the same shape it was given (the self-attention cache, or
legacy tuples), and its `prepare_inputs_for_generation` reads the past length from the cache object or from the
first key of a tuple; `generate` starts from `EncoderDecoderCache(DynamicCache(), DynamicCache())`.

Provenance (mechanisms read; this code is written here, not copied):
- huggingface/parler-tts @d108732cd57788ec86bc857d99a6cabd66663d68 parler_tts/modeling_parler_tts.py
  (`ParlerTTSDecoder.forward`: `if isinstance(past_key_values, Cache) and not isinstance(past_key_values,
  EncoderDecoderCache): return_self_attention_cache = True; past_key_values = EncoderDecoderCache(past_key_values,
  DynamicCache())`, `elif not isinstance(past_key_values, EncoderDecoderCache): return_legacy_cache = True;
  past_key_values = EncoderDecoderCache.from_legacy_cache(past_key_values)`, then `next_cache =
  past_key_values.self_attention_cache` or `past_key_values.to_legacy_cache()`;
  `ParlerTTSForConditionalGeneration.prepare_inputs_for_generation`: `past_length = past_key_values.get_seq_length()`
  for an EncoderDecoderCache, else `past_key_values[0][0].shape[2]`; `generate`: `EncoderDecoderCache(DynamicCache(),
  DynamicCache())` when no cache was passed)
Reduced: a T5 decoder stands in for the audio decoder (the normalisation runs around its forward); the delay
pattern, the prompt embeddings and the codebooks are left out.
"""

import torch
from transformers import AutoModelForSeq2SeqLM, DynamicCache, EncoderDecoderCache
from transformers.cache_utils import Cache

model = AutoModelForSeq2SeqLM.from_pretrained("google/flan-t5-small")
encoder_ids = torch.tensor([[5, 6, 7, 8, 1]])
decoder_ids = torch.tensor([[0, 11, 12]])


def normalise_cache(past_key_values):
    return_legacy_cache = False
    return_self_attention_cache = False
    if isinstance(past_key_values, Cache) and not isinstance(past_key_values, EncoderDecoderCache):
        return_self_attention_cache = True
        past_key_values = EncoderDecoderCache(past_key_values, DynamicCache())  # clean: pd_wrap_self_cache
    elif not isinstance(past_key_values, EncoderDecoderCache):
        return_legacy_cache = True
        past_key_values = EncoderDecoderCache.from_legacy_cache(past_key_values)  # site: pd_ed_from_legacy
    return past_key_values, return_legacy_cache, return_self_attention_cache


def output_cache(past_key_values, return_legacy_cache, return_self_attention_cache):
    next_cache = past_key_values
    if return_self_attention_cache:
        next_cache = past_key_values.self_attention_cache  # clean: pd_self_cache_out
    if return_legacy_cache:
        next_cache = past_key_values.to_legacy_cache()  # site: pd_ed_to_legacy
    return next_cache


def decoder_step(past_key_values, ids=decoder_ids):
    past_key_values, legacy, self_only = normalise_cache(past_key_values)
    outputs = model(input_ids=encoder_ids, decoder_input_ids=ids, past_key_values=past_key_values, use_cache=True)  # clean: pd_t5_forward
    return outputs.logits, output_cache(outputs.past_key_values, legacy, self_only)


def past_length_of(past_key_values):
    if isinstance(past_key_values, EncoderDecoderCache):
        return past_key_values.get_seq_length()  # clean: pd_ed_seq_length
    return past_key_values[0][0].shape[2]  # clean: pd_legacy_length


def default_generation_cache():
    return EncoderDecoderCache(DynamicCache(), DynamicCache())  # clean: pd_default_cache


def probe_self_attention_cache():
    _, next_cache = decoder_step(DynamicCache())
    assert isinstance(next_cache, DynamicCache) and next_cache.get_seq_length() == 3


def probe_default_cache():
    cache = default_generation_cache()
    _, next_cache = decoder_step(cache)
    assert past_length_of(next_cache) == 3


def probe_legacy_out():
    past, _, _ = normalise_cache(DynamicCache())
    outputs = model(input_ids=encoder_ids, decoder_input_ids=decoder_ids, past_key_values=past, use_cache=True)
    legacy = output_cache(outputs.past_key_values, True, False)
    assert len(legacy) == 2


def probe_legacy_in():
    self_kv = torch.zeros(1, 4, 3, 8)
    cross_kv = torch.zeros(1, 4, 5, 8)
    legacy = ((self_kv, self_kv, cross_kv, cross_kv), (self_kv, self_kv, cross_kv, cross_kv))
    past, legacy_flag, _ = normalise_cache(legacy)
    assert legacy_flag and past.get_seq_length() == 3


def probe_legacy_length():
    kv = torch.zeros(1, 4, 3, 8)
    assert past_length_of(((kv, kv, kv, kv),)) == 3
