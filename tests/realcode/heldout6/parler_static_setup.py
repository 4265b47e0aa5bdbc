"""A text-to-speech model's own `generate` (Parler-TTS, a MusicGen-style decoder conditioned on a text encoder):
the model keeps a static cache on itself between calls (`self._cache`), built from a class table keyed by
`cache_implementation`, reused when its batch size and length still fit (else rebuilt, else reset), wrapped in an
`EncoderDecoderCache` when cross-attention needs one; a user's legacy tuple is turned into a cache object before
the loop, and the decoder hands back legacy tuples when the caller asked for them.

Provenance (mechanisms read; this code is written here, not copied):
- huggingface/parler-tts @d108732cd57788ec86bc857d99a6cabd66663d68 parler_tts/modeling_parler_tts.py
  (`NEED_SETUP_CACHE_CLASSES_MAPPING = {"static": StaticCache, "sliding_window": SlidingWindowCache}` imported from
  transformers.cache_utils; `ParlerTTSForConditionalGeneration._get_cache(cache_implementation, max_batch_size,
  max_cache_len, model_kwargs)`: `need_new_cache = not hasattr(self, "_cache") or not isinstance(cache_to_check,
  cache_cls) or cache_to_check.max_batch_size != max_batch_size or cache_to_check.max_cache_len < max_cache_len`,
  then `cache_cls(config=..., max_batch_size=..., max_cache_len=..., device=..., dtype=...)` and
  `EncoderDecoderCache(self._cache, cache_cls(**encoder_kwargs))`, else `self._cache.reset()`; in `generate`,
  `DynamicCache.from_legacy_cache(past)` for a user tuple; in the decoder's forward, `next_cache =
  past_key_values.to_legacy_cache()` when legacy output was asked for)
Reduced: the audio codec, the delay pattern and the text encoder are left out; the cache set-up is a mixin over a
causal LM; the reuse test is split into two small checks (batch, then length) so each is reached on its own.
"""

import torch
from transformers import AutoModelForCausalLM, DynamicCache, EncoderDecoderCache, StaticCache
from transformers.cache_utils import SlidingWindowCache  # clean: pt_import_sliding

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
