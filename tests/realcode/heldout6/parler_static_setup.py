"""A text-to-speech model's own generation code (Parler-TTS, a MusicGen-style decoder conditioned on a text
encoder). Its `generate` keeps a static cache on the model between calls (`self._cache`), built from a class table
keyed by `cache_implementation`, reused when its batch size and length still fit (else rebuilt, else reset),
wrapped in an `EncoderDecoderCache` when cross-attention needs one; a user's legacy tuple is turned into a cache
object before the loop, and the decoder hands back legacy tuples when asked. The decoder's forward accepts
whatever cache the caller passes and normalises it (a decoder-only `Cache` is wrapped in an `EncoderDecoderCache`
with a fresh cross-attention cache, a legacy tuple goes through `EncoderDecoderCache.from_legacy_cache`), hands
back the same shape it was given (the self-attention cache, or legacy tuples), and `prepare_inputs_for_generation`
reads the past length from the cache object or from the first key of a tuple; `generate` starts from
`EncoderDecoderCache(DynamicCache(), DynamicCache())`.

Provenance (mechanisms read; this code is written here, not copied):
- huggingface/parler-tts @d108732cd57788ec86bc857d99a6cabd66663d68 parler_tts/modeling_parler_tts.py
  (`NEED_SETUP_CACHE_CLASSES_MAPPING = {"static": StaticCache, "sliding_window": SlidingWindowCache}` imported from
  transformers.cache_utils; `ParlerTTSForConditionalGeneration._get_cache(cache_implementation, max_batch_size,
  max_cache_len, model_kwargs)`: `need_new_cache = not hasattr(self, "_cache") or not isinstance(cache_to_check,
  cache_cls) or cache_to_check.max_batch_size != max_batch_size or cache_to_check.max_cache_len < max_cache_len`,
  then `cache_cls(config=..., max_batch_size=..., max_cache_len=..., device=..., dtype=...)` and
  `EncoderDecoderCache(self._cache, cache_cls(**encoder_kwargs))`, else `self._cache.reset()`; in `generate`,
  `DynamicCache.from_legacy_cache(past)` for a user tuple and `EncoderDecoderCache(DynamicCache(), DynamicCache())`
  when none was passed; `ParlerTTSDecoder.forward`: `if isinstance(past_key_values, Cache) and not
  isinstance(past_key_values, EncoderDecoderCache): ... EncoderDecoderCache(past_key_values, DynamicCache())`,
  `elif not isinstance(past_key_values, EncoderDecoderCache): ... EncoderDecoderCache.from_legacy_cache(
  past_key_values)`, then `next_cache = past_key_values.self_attention_cache` or `past_key_values.to_legacy_cache()`
  (the same for a decoder-only cache's output); `prepare_inputs_for_generation`: `past_key_values.get_seq_length()`
  for an EncoderDecoderCache, else `past_key_values[0][0].shape[2]`)
Reduced: the audio codec, the delay pattern, the prompt embeddings and the codebooks are left out; the cache set-up
is a mixin over a causal LM, and a T5 decoder stands in for the audio decoder around which the normalisation runs;
the reuse test is split into two small checks (batch, then length) so each is reached on its own.
"""

import torch
from transformers import AutoModelForCausalLM, AutoModelForSeq2SeqLM, DynamicCache, EncoderDecoderCache, StaticCache
from transformers.cache_utils import Cache, SlidingWindowCache  # clean: pt_import_sliding

NEED_SETUP_CACHE_CLASSES_MAPPING = {"static": StaticCache, "sliding_window": SlidingWindowCache}


class CacheSetupMixin:
    def _batch_matches(self, cache_to_check, max_batch_size):
        return cache_to_check.max_batch_size == max_batch_size  # site: pt_max_batch_size

    def _length_fits(self, cache_to_check, max_cache_len):
        return cache_to_check.max_cache_len >= max_cache_len  # site: pt_max_cache_len

    def _get_cache(self, cache_implementation, max_batch_size, max_cache_len, encoder_len=None):
        cache_cls = NEED_SETUP_CACHE_CLASSES_MAPPING[cache_implementation]
        requires_cross_attention_cache = encoder_len is not None
        if hasattr(self, "_cache"):
            cache_to_check = self._cache.self_attention_cache if requires_cross_attention_cache else self._cache
        need_new_cache = (
            not hasattr(self, "_cache")
            or not isinstance(cache_to_check, cache_cls)
            or not self._batch_matches(cache_to_check, max_batch_size)
            or not self._length_fits(cache_to_check, max_cache_len)
        )
        if need_new_cache:
            cache_kwargs = {
                "config": self.model.config,
                "max_batch_size": max_batch_size,
                "max_cache_len": max_cache_len,
                "device": self.model.device,
                "dtype": self.model.dtype,
            }
            self._cache = cache_cls(**cache_kwargs)  # clean: pt_new_static
            if requires_cross_attention_cache:
                encoder_kwargs = dict(cache_kwargs, max_cache_len=encoder_len)
                self._cache = EncoderDecoderCache(self._cache, cache_cls(**encoder_kwargs))  # clean: pt_cross_cache
        else:
            self._cache.reset()
        return self._cache


class SpeechDecoderGenerator(CacheSetupMixin):
    def __init__(self, name):
        self.model = AutoModelForCausalLM.from_pretrained(name)

    def generate(self, input_ids, past_key_values=None, cache_implementation=None, max_new_tokens=6):
        if cache_implementation is not None:
            past_key_values = self._get_cache(cache_implementation, input_ids.shape[0],
                                              input_ids.shape[1] + max_new_tokens)
        elif isinstance(past_key_values, tuple):
            past_key_values = DynamicCache.from_legacy_cache(past_key_values)  # site: pt_from_legacy
        return self.model.generate(input_ids, past_key_values=past_key_values, max_new_tokens=max_new_tokens,  # clean: pt_generate_cache
                                   min_new_tokens=max_new_tokens, do_sample=False)

    def decode_step(self, input_ids, past_key_values=None, return_legacy_cache=False):
        outputs = self.model(input_ids, past_key_values=past_key_values, use_cache=True)
        next_cache = outputs.past_key_values
        if return_legacy_cache:
            next_cache = next_cache.to_legacy_cache()  # site: pt_to_legacy
        return outputs.logits, next_cache


prompt = torch.tensor([[1, 5, 9, 13, 17]])
speech_decoder = AutoModelForSeq2SeqLM.from_pretrained("google/flan-t5-small")
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
    outputs = speech_decoder(input_ids=encoder_ids, decoder_input_ids=ids, past_key_values=past_key_values, use_cache=True)  # clean: pd_t5_forward
    return outputs.logits, output_cache(outputs.past_key_values, legacy, self_only)


def past_length_of(past_key_values):
    if isinstance(past_key_values, EncoderDecoderCache):
        return past_key_values.get_seq_length()  # clean: pd_ed_seq_length
    return past_key_values[0][0].shape[2]  # clean: pd_legacy_length


def default_generation_cache():
    return EncoderDecoderCache(DynamicCache(), DynamicCache())  # clean: pd_default_cache


def probe_static_generate():
    gen = SpeechDecoderGenerator("parler-tts/parler-tts-mini-v1")
    out = gen.generate(prompt, cache_implementation="static")
    assert out.shape[1] == prompt.shape[1] + 6


def probe_second_generate():
    gen = SpeechDecoderGenerator("parler-tts/parler-tts-mini-v1")
    gen.generate(prompt, cache_implementation="static")
    out = gen.generate(prompt, cache_implementation="static")
    assert out.shape[1] == prompt.shape[1] + 6


def probe_length_check():
    gen = SpeechDecoderGenerator("parler-tts/parler-tts-mini-v1")
    cache = StaticCache(config=gen.model.config, max_batch_size=1, max_cache_len=32)
    assert gen._length_fits(cache, 16)


def probe_cross_cache():
    gen = SpeechDecoderGenerator("parler-tts/parler-tts-mini-v1")
    cache = gen._get_cache("static", 1, 32, encoder_len=8)
    assert isinstance(cache, EncoderDecoderCache)


def probe_legacy_input():
    gen = SpeechDecoderGenerator("parler-tts/parler-tts-mini-v1")
    _, legacy = gen.decode_step(prompt, past_key_values=DynamicCache(), return_legacy_cache=True)
    assert len(legacy) == 2


def probe_user_tuple():
    gen = SpeechDecoderGenerator("parler-tts/parler-tts-mini-v1")
    kv = torch.zeros(1, 1, 5, 64)
    out = gen.generate(torch.cat([prompt, prompt[:, -1:]], dim=1), past_key_values=((kv, kv), (kv, kv)))
    assert out.shape[1] == 12


def probe_self_attention_cache():
    _, next_cache = decoder_step(DynamicCache())
    assert isinstance(next_cache, DynamicCache) and next_cache.get_seq_length() == 3


def probe_default_cache():
    cache = default_generation_cache()
    _, next_cache = decoder_step(cache)
    assert past_length_of(next_cache) == 3


def probe_legacy_out():
    past, _, _ = normalise_cache(DynamicCache())
    outputs = speech_decoder(input_ids=encoder_ids, decoder_input_ids=decoder_ids, past_key_values=past, use_cache=True)
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
