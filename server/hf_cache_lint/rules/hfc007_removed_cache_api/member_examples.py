"""HFC007 examples of cache members reached where the code says the receiver is a transformers cache, and of a
cache's maximum asked across releases; each runs unchanged under the oracle against real transformers."""

from __future__ import annotations

from hf_cache_lint.engine.base.findings import Severity
from hf_cache_lint.rules.base import Invalid, Valid, invalid
from hf_cache_lint.rules.snippets import LLAMA, custom_generate_loop, patched_generate_loop, prelude

_LOAD = prelude()
_FORWARD = "cache = model(**inputs, use_cache=True).past_key_values\n"
# A method the project patches onto DynamicCache (Consistency LLM's `delete_false_key_value`): its `self` is the
# cache it is called on, handed to a helper that reads the 4.4x per-layer lists.
_PATCHED = ("\n\ndef _drop_last_keys(cache, n):\n    keys = cache.key_cache\n    for i in range(len(keys)):\n"
            "        keys[i] = keys[i][..., :-n, :]\n\n\n"
            "def drop_last(self, n):\n    _drop_last_keys(self, n)\n\n\n"
            "DynamicCache.drop_last = drop_last\n" + _FORWARD + "cache.drop_last(1)\n")
# A function patched onto the model class: the cache it was given when `isinstance` says so, else one it builds.
_GUARD_OR_BUILT = ("\n\ndef past_length(self, past, new_tokens):\n    if not isinstance(past, Cache):\n"
                   "        past = DynamicCache()\n    return past.get_usable_length(new_tokens)\n\n\n"
                   "LlamaForCausalLM.past_length = past_length\nlength = model.past_length(None, 4)\n")
# A cache the code builds, handed to a helper that tests it with `isinstance` first (GOT-OCR's `_cached_lengths`).
_TESTED = ("\n\ndef seen(past):\n    if isinstance(past, Cache):\n        return past.seen_tokens\n"
           "    return past[0][0].shape[2]\n\n\n"
           "cache = DynamicCache()\nmodel(**inputs, past_key_values=cache, use_cache=True)\nn = seen(cache)\n")
# A cache subclass that counts tokens on top of the counter its 4.4x base set in `__init__` (KVzip's EvictCache: only
# its `slice` sets it, after a forward has already updated the cache).
_COUNTING = ("\n\nclass CountingCache(DynamicCache):\n    def __init__(self):\n        super().__init__()\n"
             "        self.window = 4\n\n"
             "    def update(self, key_states, value_states, layer_idx, *args, **kwargs):\n"
             "        if layer_idx == 0:\n            self._seen_tokens += key_states.shape[-2]\n"
             "        return super().update(key_states, value_states, layer_idx, *args, **kwargs)\n\n"
             "    def rewind(self, n):\n        self._seen_tokens = n\n\n\n"
             "cache = CountingCache()\nmodel(**inputs, past_key_values=cache, use_cache=True)\ncache.rewind(2)\n")
# A mixin that keeps its static cache on `self` between calls and reuses it while the batch size fits (Parler-TTS's
# `_get_cache`): the cache it reads back is the one an earlier call stored.
_KEPT = ("\n\nclass CacheSetup:\n    def _batch_matches(self, cache, batch_size):\n"
         "        return cache.max_batch_size == batch_size\n\n"
         "    def get_cache(self, batch_size, max_cache_len):\n        if hasattr(self, \"_cache\"):\n"
         "            cached = self._cache\n"
         "        if not hasattr(self, \"_cache\") or not isinstance(cached, StaticCache) \\\n"
         "                or not self._batch_matches(cached, batch_size):\n"
         "            self._cache = StaticCache(config=model.config, max_cache_len=max_cache_len)\n"
         "        return self._cache\n\n\n"
         "setup = CacheSetup()\nfirst = setup.get_cache(1, 32)\nsecond = setup.get_cache(1, 32)\n")
# A helper whose one statement reads a removed member stops its caller at the call (DeepSeek-VL2's
# `prepare_inputs_for_generation`: `_seen_length(past)` before the maximum's None test): the lines after it never run.
_HELPER_FIRST = ("\n\ndef seen(past):\n    return past.seen_tokens\n\n\n"
                 "def keep(past, mask):\n    n = seen(past)\n    limit = past.get_max_length()\n"
                 "    if limit is not None:\n        mask = mask[:, -limit:]\n    return mask, n\n\n\n"
                 + _FORWARD + 'mask, n = keep(cache, inputs["attention_mask"])\n')
# One static cache per length bucket, built by a comprehension (Higgs Audio's serving engine), a bucket's keys read
# in a helper.
_BUCKETS = ("\n\ndef filled_keys(cache):\n    return cache.key_cache[0]\n\n\n"
            "buckets = {n: StaticCache(config=model.config, max_cache_len=n) for n in (16, 32)}\n"
            "keys = filled_keys(buckets[16])\n")
# A generation mixin of the project mixed into a transformers model class before it (Petals'
# `DistributedLlamaForCausalLM(RemoteGenerationMixin, LlamaForCausalLM)`): its `generate` runs on the model and reads
# the model's 4.4x cache flag.
_MIXIN = ("\n\nclass RemoteGenerationMixin:\n    def generate(self, *args, **kwargs):\n"
          "        if self._supports_cache_class and \"past_key_values\" not in kwargs:\n"
          "            kwargs[\"past_key_values\"] = DynamicCache()\n"
          "        return super().generate(*args, **kwargs)\n\n\n"
          "class DistributedLlama(RemoteGenerationMixin, LlamaForCausalLM):\n    pass\n\n\n"
          f"remote = DistributedLlama.from_pretrained(\"{LLAMA}\")\n"
          "out = remote.generate(**inputs, max_new_tokens=2, min_new_tokens=2)\n")
# Code written across releases asks for the maximum one way and falls back to the other (ChatTTS).
_PAIR = ("try:\n    limit = cache.get_max_cache_shape()\nexcept AttributeError:  # transformers 5.20+\n"
         "    limit = cache.get_max_length()\n")
_NONE_MEANS_NO_MAXIMUM = "if limit is None:  # no maximum\n    limit = 1 << 30\n"
_CHECKED = "assert limit > cache.get_seq_length(), limit\n"

# A `prepare_inputs_for_generation` override the code calls itself with a forward's cache (DeepSeek-VL2's): from 5.24
# generate passes the hook `cache=` instead, but this call still passes `past_key_values=`.
_DIRECT_HOOK = ("from transformers import AutoTokenizer, Cache, LlamaForCausalLM\n\n"
                f'tokenizer = AutoTokenizer.from_pretrained("{LLAMA}")\n'
                'inputs = tokenizer("The capital of France is", return_tensors="pt")\n\n\n'
                "def _seen(past_key_values):\n    return past_key_values.seen_tokens\n\n\n"
                "class LM(LlamaForCausalLM):\n"
                "    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, **kwargs):\n"
                "        if isinstance(past_key_values, Cache):\n"
                "            n = _seen(past_key_values)\n            input_ids = input_ids[:, n:]\n"
                '        return {"input_ids": input_ids, "past_key_values": past_key_values, **kwargs}\n\n\n'
                f'model = LM.from_pretrained("{LLAMA}")\n'
                "past = model(**inputs, use_cache=True).past_key_values\n"
                'step = model.prepare_inputs_for_generation(inputs["input_ids"], past_key_values=past)\n')
# The project's own `Cache` subclass sets the member a helper reads under `isinstance(past_key_values, Cache)`
# (MagicPiG's `MagicCache` and its `seen_tokens`): the test holds for it, and nothing says a transformers cache
# reaches the helper.
_OWN_COUNTER = ("from transformers import Cache\n\n\n"
                "class CountingCache(Cache):\n    def __init__(self):\n        self.seen_tokens = 0\n\n\n"
                "def past_length(past_key_values):\n    if isinstance(past_key_values, Cache):\n"
                "        return past_key_values.seen_tokens\n    return past_key_values[0][0].shape[2]\n\n\n"
                "def restored(n):\n    cache = CountingCache()\n    cache.seen_tokens = n\n    return cache\n")

# A plain class's method inherited from the project's own mixin (Parler-TTS's `CacheSetupMixin`).
_MIXIN_METHOD = ("from transformers import AutoModelForCausalLM, StaticCache\n\n\n"
                 "class CacheSetupMixin:\n    def _length_fits(self, cache, n):\n"
                 "        return cache.max_cache_len >= n\n\n\n"
                 "class Generator(CacheSetupMixin):\n    def __init__(self, name):\n"
                 "        self.model = AutoModelForCausalLM.from_pretrained(name)\n\n\n"
                 f'gen = Generator("{LLAMA}")\n'
                 "cache = StaticCache(config=gen.model.config, max_cache_len=32)\nfits = gen._length_fits(cache, 16)\n")

# A cache class looked up in a table by a name the caller passes (Parler-TTS's NEED_SETUP_CACHE_CLASSES_MAPPING).
_CLASS_TABLE = (prelude("StaticCache") + 'CACHE_CLASSES = {"static": StaticCache}\n\n\n'
                "def build(kind):\n    cls = CACHE_CLASSES[kind]\n"
                "    return cls(config=model.config, max_cache_len=32)\n\n\n"
                'cache = build("static")\nlimit = cache.max_cache_len\n')

# Code that runs generate's steps itself with its private helpers (InternLM's streaming chat, Chinese-LLaMA's
# speculative sampling, RL4LMs' rollouts), without the preparation generate does first.
_STOPPING = ("config = GenerationConfig(max_new_tokens=4, eos_token_id=2)\n"
             "criteria = model._get_stopping_criteria(generation_config=config, "
             "stopping_criteria=StoppingCriteriaList())\n")
_ROLLOUT = ("\n\ndef step(lm, state):\n    out = lm(**inputs, use_cache=True)\n"
            "    return lm._update_model_kwargs_for_generation(out, state, is_encoder_decoder=False)\n\n\n"
            'state = step(model, {"attention_mask": inputs["attention_mask"]})\n')

# A decoding loop patched onto GenerationMixin under 4.3x's name (VCD's `GenerationMixin.sample = sample`).
_OLD_LOOP = ("CALLS = []\n\n\n"
             "def sample(self, input_ids, **model_kwargs):\n    CALLS.append(1)\n    return input_ids\n\n\n"
             "transformers.generation.utils.GenerationMixin.sample = sample\n"
             "model.generate(**inputs, max_new_tokens=2, min_new_tokens=2, do_sample=True)\n"
             'assert CALLS, "the patched sampling loop never ran"\n')

# A 4.4x prepare hook set on the model class (AdaKV's `LlamaForCausalLM.prepare_inputs_for_generation = ...`), called
# by the module itself with a forward's cache: the call runs the function with that cache, whatever generate passes.
_PATCHED_HOOK = ("\n\ndef prepare(self, input_ids, past_key_values=None, **kwargs):\n"
                 "    if past_key_values is not None:\n        if isinstance(past_key_values, Cache):\n"
                 "            past_length = past_key_values.seen_tokens\n"
                 "            input_ids = input_ids[:, past_length:]\n"
                 '    return {"input_ids": input_ids, "past_key_values": past_key_values}\n\n\n'
                 "LlamaForCausalLM.prepare_inputs_for_generation = prepare\n"
                 "past = model(**inputs, use_cache=True).past_key_values\n"
                 "step = model.prepare_inputs_for_generation(inputs.input_ids, past_key_values=past)\n")
# The same 4.4x hook set on the model class with its value in parentheses (DynamicKV's long patch line) and left to
# generate: 4.57.6 and 5.23.0 pass it the cache as `past_key_values`, 5.24.0 as `cache=`, so there the parameter is
# None and the guarded read never runs (the parentheses only wrap the line: the hook is `prepare` as without them).
_GENERATE_HOOK = ("\n\ndef prepare(self, input_ids, past_key_values=None, attention_mask=None, **kwargs):\n"
                  "    if past_key_values is not None:\n        if isinstance(past_key_values, Cache):\n"
                  "            past_length = past_key_values.seen_tokens\n"
                  "            input_ids = input_ids[:, past_length:]\n"
                  '    return {"input_ids": input_ids, "past_key_values": past_key_values, '
                  '"attention_mask": attention_mask}\n\n\n'
                  "LlamaForCausalLM.prepare_inputs_for_generation = (\n    prepare)\n"
                  "model.generate(**inputs, max_new_tokens=2, min_new_tokens=2, do_sample=False)\n")
# A write to a cache's `max_cache_len` (HeadInfer resets it on its own DynamicCache subclass): a property without a
# setter on 4.54.0-5.19.0 (the release table), a plain attribute before and after.
_RESET = "from transformers import DynamicCache\n\ncache = DynamicCache()\ncache.max_cache_len = 0\n"
# A model subclass that keeps its decoding loop under 4.3x's name (representation-engineering's contrast-vector Llama:
# `self.greedy_search = partial(contrast_greedy_search, self)` in `__init__`).
_CONTRAST_LOOP = ("from functools import partial\n\n"
                  "from transformers import AutoConfig, LlamaForCausalLM\n\n"
                  "CALLS = []\n\n\n"
                  "def contrast_greedy_search(self, input_ids, logits_processor=None, stopping_criteria=None, "
                  "**model_kwargs):\n"
                  "    CALLS.append(1)\n    return input_ids\n\n\n"
                  "class ContrastLM(LlamaForCausalLM):\n"
                  "    def __init__(self, config):\n"
                  "        super().__init__(config)\n"
                  "        self.greedy_search = partial(contrast_greedy_search, self)\n\n\n"
                  f'model = ContrastLM(AutoConfig.from_pretrained("{LLAMA}")).eval()\n'
                  "ids = torch.tensor([[1, 14, 15, 16]])\n"
                  "model.generate(ids, max_new_tokens=2, min_new_tokens=2, do_sample=False)\n"
                  'assert CALLS, "generate decoded without the contrast search"\n')
_CONTRAST_DEF = _CONTRAST_LOOP.replace(
    "    def __init__(self, config):\n        super().__init__(config)\n"
    "        self.greedy_search = partial(contrast_greedy_search, self)\n",
    "    def greedy_search(self, input_ids, logits_processor=None, stopping_criteria=None, **model_kwargs):\n"
    "        return contrast_greedy_search(self, input_ids, logits_processor, stopping_criteria, **model_kwargs)\n")

# The release table's members of `GenerationConfig` (every attribute a method sets on `self`): `return_legacy_cache`
# is one on 4.42-4.57.6, none from 5.0.0 (Optimum Habana's generate reads it off the model's config).
_CONFIG_FIELD = prelude() + "legacy = model.generation_config.return_legacy_cache\n"
# A project `Cache` subclass whose `__init__` stores what 5.13's `Cache` made a read-only property (QuaRot's paged
# cache: its own `__init__`, no base `__init__` call).
_PAGED = ("from transformers import Cache\n\n\n"
          "class PagedCache(Cache):\n"
          "    def __init__(self, batch_size):\n"
          "        self.batch_size = batch_size\n"
          "        self.pages = []\n\n\n"
          "cache = PagedCache(2)\n")
# A project `DynamicCache` subclass that sets `key_cache` only in a later method (llm-compressor's calibration cache,
# `reset_states`): until that runs, `self.key_cache` is the base's, which 4.56.0 removed.
_LATE_LISTS = ("from transformers import DynamicCache\n\n\n"
               "class CalibrationCache(DynamicCache):\n"
               "    def get_seq_length(self, layer_idx=0):\n"
               "        if len(self.key_cache) <= layer_idx:\n"
               "            return 0\n"
               "        return 1\n\n"
               "    def reset_states(self):\n"
               "        self.key_cache = []\n"
               "        self.value_cache = []\n\n\n"
               "cache = CalibrationCache()\n"
               "cache.get_seq_length()\n")

# The layers of a `StaticCache` the code built are `StaticLayer`s (4.54.0 on): `max_batch_size` is what
# `lazy_initialization` sets on 4.56.0-5.12.1 (the release table), `batch_size` from 5.13.0; `head_dim` (to 4.57.6) is
# read in the same call's next argument, which the first one's raise never reaches (optimum-executorch's
# `CustomKVCache(max_batch_size=layer.max_batch_size, ..., head_dim=layer.head_dim)`).
_LAYER_FIELDS = (prelude("StaticCache") +
                 "cache = StaticCache(config=model.config, max_cache_len=16)\n"
                 "model(**inputs, past_key_values=cache)\n"
                 "for layer in cache.layers:\n"
                 "    shape = dict(batch=layer.max_batch_size, heads=layer.num_heads, head_dim=layer.head_dim)\n")

# A layer's method called with the keyword an earlier release named (`DynamicLayer.crop(self, max_length)` to
# 5.14.1, renamed `tokens_to_remove` with a deprecation shim on 5.15.0-5.18.0, without from 5.19.0).
_LAYER_CROP = (prelude("DynamicCache") +
               "cache = DynamicCache()\n"
               "model(**inputs, past_key_values=cache)\n"
               "for layer in cache.layers:\n"
               "    layer.crop(max_length=3)\n")
# The project's `StaticCache` subclass reading its layers' members (optimum-executorch's `for layer in self.layers`).
_OWN_LAYERS = ("from transformers import AutoConfig, StaticCache\n\n\n"
               "class ExportCache(StaticCache):\n"
               "    def sizes(self):\n"
               "        return [layer.max_cache_len for layer in self.layers]\n\n\n"
               f'cache = ExportCache(config=AutoConfig.from_pretrained("{LLAMA}"), max_cache_len=16)\n'
               "sizes = cache.sizes()\n")

INVALID: tuple[Invalid, ...] = (
    Invalid(
        _LAYER_CROP,
        flagged="crop",
        versions=("5.23.0", "5.24.0", "5.25.0"),
        runtime={"4.57.6": "OK"},
        message_contains="TypeError: DynamicLayer.crop() got an unexpected keyword argument 'max_length'",
        note="a method of the cache's layers called with a keyword its signature no longer takes (the release "
             "table's `DynamicLayer.crop`: `max_length` to 5.14.1, a renaming shim to 5.18.0)",
    ),
    Invalid(
        _LAYER_FIELDS,
        flagged="max_batch_size",
        versions=("5.23.0", "5.24.0", "5.25.0"),
        runtime={"4.57.6": "OK"},
        message_contains="AttributeError: 'StaticLayer' object has no attribute 'max_batch_size'",
        note="a member of the cache's layers (the release table's `StaticLayer`: what its methods set on `self`) "
             "that 5.13.0 removed; the later argument's `head_dim` (gone from 5.0.0) is never read there",
    ),
    Invalid(
        _CONFIG_FIELD,
        flagged="return_legacy_cache",
        versions=("5.23.0", "5.24.0", "5.25.0"),
        runtime={"4.57.6": "OK"},
        message_contains="AttributeError: 'GenerationConfig' object has no attribute 'return_legacy_cache'",
        note="a field of the model's generation config that 5.0.0 removed (the release table's `GenerationConfig` "
             "members: what its `__init__` sets on `self`)",
    ),
    Invalid(
        _PAGED,
        flagged="batch_size",
        versions=("5.23.0", "5.24.0", "5.25.0"),
        # the oracle's run: OK on 4.57.6, `AttributeError: property 'batch_size' of 'PagedCache' object has no
        # setter` on 5.23.0-5.25.0 (the classifier has no class for a property write: OTHER, as `_RESET`'s)
        runtime={"4.57.6": "OK", "5.23.0": "OTHER", "5.24.0": "OTHER", "5.25.0": "OTHER"},
        message_contains="AttributeError: property 'batch_size' of 'PagedCache' object has no setter",
        note="the project's subclass stores on `self` what the base made a read-only property (`Cache.batch_size`, "
             "5.13.0 on): the store goes through the base's property",
    ),
    Invalid(
        _LATE_LISTS,
        flagged="key_cache",
        message_contains="AttributeError: 'CalibrationCache' object has no attribute 'key_cache'",
        note="the project's subclass reads `key_cache` before the only method that sets it ran: the base's, gone "
             "from 4.56.0",
    ),
    Invalid(
        prelude("Cache", model="LlamaForCausalLM") + _PATCHED_HOOK,
        flagged="seen_tokens",
        severity=Severity.WARNING,  # under the hook's `if past_key_values is not None:`
        message_contains="AttributeError: 'DynamicCache' object has no attribute 'seen_tokens'",
        note="a function set on the model class and called on the model with a forward's cache: it runs with that "
             "cache on every release (5.24's generate passes its own as `cache=`, this call does not)",
    ),
    Invalid(
        prelude("Cache", model="LlamaForCausalLM") + _GENERATE_HOOK,
        flagged="seen_tokens",
        versions=("4.57.6", "5.23.0"),
        severity=Severity.WARNING,  # under the hook's `if past_key_values is not None:`
        runtime={"4.57.6": "HFC007", "5.23.0": "HFC007", "5.24.0": "OK", "5.25.0": "OK"},
        message_contains="AttributeError: 'DynamicCache' object has no attribute 'seen_tokens'",
        note="a function set on the model class (its value in parentheses) and left to generate, which passes it "
             "the cache as `past_key_values` up to 5.23.0: `seen_tokens` is gone from 4.54",
    ),
    invalid(
        _RESET,
        flagged="max_cache_len",
        fixes={},
        versions=("4.57.6",),
        runtime={"4.57.6": "OTHER", "5.23.0": "OK", "5.24.0": "OK", "5.25.0": "OK"},
        message_contains="AttributeError: property 'max_cache_len' of 'DynamicCache' object has no setter",
        note="a write to a read-only property of the cache (4.54.0-5.19.0); 5.20.0 dropped the property",
    ),
    Invalid(
        "import transformers\n" + prelude() + _OLD_LOOP,
        flagged="transformers.generation.utils.GenerationMixin.sample",
        severity=Severity.WARNING,
        runtime="OTHER",  # the assertion: generate never calls it
        message_contains="`GenerationMixin` has no `sample`",
        note="a sampling loop patched in under the 4.3x name (VCD): generate samples in `_sample` on every release "
             "the table reads, so the patch never runs",
    ),
    Invalid(
        "import torch\n" + _CONTRAST_LOOP,
        flagged="self.greedy_search",
        severity=Severity.WARNING,
        runtime="OTHER",  # the assertion: generate never calls it
        message_contains="`GenerationMixin` has no `greedy_search`",
        note="a model subclass binding its decoding loop to the instance under the 4.3x name (representation-"
             "engineering): generate decodes greedily in `_sample` from 4.43.0 (`_greedy_search` on 4.41-4.42), "
             "never through `self.greedy_search`",
    ),
    Invalid(
        "import torch\nfrom transformers import AutoModelForCausalLM\n\n"
        f'model = AutoModelForCausalLM.from_pretrained("{LLAMA}").eval()\nCALLS = []\n\n\n'
        "def shared_greedy_search(self, input_ids, logits_processor=None, stopping_criteria=None, **model_kwargs):\n"
        "    CALLS.append(1)\n    return input_ids\n\n\n"
        "def install():\n"
        "    bound = shared_greedy_search.__get__(model, model.__class__)\n"
        '    setattr(model, "greedy_search", bound)\n\n\n'
        "install()\n"
        "model.generate(torch.tensor([[1, 14, 15, 16]]), max_new_tokens=2, min_new_tokens=2, do_sample=False)\n"
        'assert CALLS, "generate decoded without the installed loop"\n',
        flagged='setattr(model, "greedy_search", bound)',
        severity=Severity.WARNING,
        runtime="OTHER",  # the assertion: generate never calls it
        message_contains="`GenerationMixin` has no `greedy_search`",
        note="a loop bound to a model the module loads and installed on that instance (ipex-llm's prompt-sharing "
             "hook: `setattr(model, \"greedy_search\", f.__get__(model, model.__class__))`): generate never calls it",
    ),
    Invalid(
        "import torch\n" + _CONTRAST_DEF,
        flagged="greedy_search",
        severity=Severity.WARNING,
        runtime="OTHER",
        message_contains="`def greedy_search` in `ContrastLM`",
        note="the same loop as a method of the subclass: nothing in generate calls it",
    ),
    Invalid(
        prelude("GenerationConfig", "StoppingCriteriaList") + _STOPPING,
        flagged="_get_stopping_criteria",
        runtime="OTHER",
        message_contains="AttributeError: 'GenerationConfig' object has no attribute '_eos_token_tensor'",
        note="generate's stopping criteria built from a config `_prepare_special_tokens` never saw (InternLM's "
             "streaming chat): from 4.43.0 the helper reads `generation_config._eos_token_tensor`",
    ),
    Invalid(
        prelude() + _ROLLOUT,
        flagged="_update_model_kwargs_for_generation",
        versions=("4.57.6",),
        runtime="HFC011",  # the oracle's classifier files `KeyError: 'cache_position'` under HFC011's kind
        message_contains="KeyError: 'cache_position'",
        note="a rollout that advances its own model kwargs with generate's helper (RL4LMs): 4.43.0-5.2.0 read "
             "`model_kwargs[\"cache_position\"]`, which the dict never got; 5.3.0 reads it only when present",
    ),
    Invalid(
        patched_generate_loop(),
        flagged="_update_model_kwargs_for_generation",
        versions=("4.57.6",),
        runtime="HFC011",  # the oracle's classifier files `KeyError: 'cache_position'` under HFC011's kind
        message_contains="KeyError: 'cache_position'",
        note="the same dict advanced by a loop set on `GenerationMixin` as `generate` (EasyEdit's DeCo): `self` is "
             "every model there, and the loop builds the dict itself",
    ),
    Invalid(
        custom_generate_loop("model_kwargs = self._get_initial_cache_position(input_ids.shape[1], input_ids.device, "
                             "model_kwargs)"),
        flagged="_get_initial_cache_position",
        versions=("5.23.0", "5.24.0", "5.25.0"),
        message_contains="AttributeError",
        note="a sampler handed to generate as `custom_generate=` (SoulX-Podcast's RAS): generate calls it with the "
             "model as `self`, whose `_get_initial_cache_position` 5.4.0 removed",
    ),
    Invalid(
        _LOAD + 'done = model._has_unfinished_sequences(False, False, device="cpu", cur_len=5, max_length=8)\n',
        flagged="_has_unfinished_sequences",
        message_contains="got an unexpected keyword argument",
        note="a copied loop's stop test as 4.44-4.49 took it (Baichuan-Audio's): `cur_len` and `max_length` are gone "
             "from 4.50.0",
    ),
    Invalid(
        _LOAD + "out = model(**inputs, use_cache=True)\n"
        "new_ids = inputs[\"input_ids\"][:, out.past_key_values.seen_tokens:]\n",
        flagged="seen_tokens",
        message_contains="AttributeError: 'DynamicCache' object has no attribute 'seen_tokens'",
        note="a removed member read in a slice's bound: the index runs before the subscript",
    ),
    invalid(
        _CLASS_TABLE,
        flagged="max_cache_len",
        fixes={"Use `get_max_length()`": ("limit = cache.max_cache_len", "limit = cache.get_max_length()")},
        versions=("5.23.0", "5.24.0", "5.25.0"),
        message_contains="AttributeError: 'StaticCache' object has no attribute 'max_cache_len'",
        note="the cache class read from a dict by a name holding the key the caller passed: a StaticCache, "
             "without `max_cache_len` from 5.20",
    ),
    invalid(
        _MIXIN_METHOD,
        flagged="max_cache_len",
        fixes={"Use `get_max_length()`": ("return cache.max_cache_len >= n", "return cache.get_max_length() >= n")},
        versions=("5.23.0", "5.24.0", "5.25.0"),
        message_contains="AttributeError: 'StaticCache' object has no attribute 'max_cache_len'",
        note="a method a plain class inherits from the project's own mixin runs on its instance: the StaticCache it "
             "is given has no `max_cache_len` from 5.20",
    ),
    Invalid(
        _DIRECT_HOOK,
        flagged="seen_tokens",
        message_contains="AttributeError: 'DynamicCache' object has no attribute 'seen_tokens'",
        note="a `prepare_inputs_for_generation` override called by the code itself with a forward's cache: on that "
             "call its `past_key_values` holds the cache on every release (5.24+ generate would pass `cache=`), and "
             "`seen_tokens` is gone from 4.54",
    ),
    Invalid(
        prelude("DynamicCache") + _PATCHED,
        flagged="key_cache",
        message_contains="AttributeError: 'DynamicCache' object has no attribute 'key_cache'",
        note="a function patched onto DynamicCache (`DynamicCache.drop_last = drop_last`) hands its `self` to a "
             "helper reading the per-layer lists: gone from 4.56",
    ),
    Invalid(
        prelude("Cache", "DynamicCache", model="LlamaForCausalLM") + _GUARD_OR_BUILT,
        flagged="get_usable_length",
        message_contains="AttributeError: 'DynamicCache' object has no attribute 'get_usable_length'",
        note="a cache on every path: the caller's where `isinstance(past, Cache)` holds, else one the code builds; "
             "`get_usable_length()` is gone from 4.54 on either",
    ),
    Invalid(
        prelude("Cache", "DynamicCache") + _TESTED,
        flagged="seen_tokens",
        severity=Severity.WARNING,  # the helper's branch: it holds for this cache, not for every caller's value
        message_contains="AttributeError: 'DynamicCache' object has no attribute 'seen_tokens'",
        note="a cache the code builds, read in a helper's `isinstance(past, Cache)` branch: the branch is the "
             "cache's own (not a compat probe), and `seen_tokens` is gone from 4.54",
    ),
    Invalid(
        prelude("DynamicCache") + _COUNTING,
        flagged="_seen_tokens",
        severity=Severity.WARNING,  # under `if layer_idx == 0:`
        message_contains="AttributeError: 'CountingCache' object has no attribute '_seen_tokens'",
        note="a counter the subclass's `__init__` never sets (its `rewind` does, after the forward): `+=` in "
             "`update` reads the base's first, which transformers set in `__init__` up to 4.53 only",
    ),
    Invalid(
        prelude("StaticCache") + _KEPT,
        flagged="max_batch_size",
        versions=("5.23.0", "5.24.0", "5.25.0"),
        message_contains="AttributeError: 'StaticCache' object has no attribute 'max_batch_size'",
        note="a static cache kept on `self` by an earlier call, read back under `isinstance(cached, StaticCache)` "
             "and handed to a helper: `max_batch_size` is gone from 5.20",
    ),
    Invalid(
        _LOAD + _HELPER_FIRST,
        flagged="seen_tokens",
        message_contains="AttributeError: 'DynamicCache' object has no attribute 'seen_tokens'",
        note="a helper reading `seen_tokens` (gone from 4.54) raises at its call, so the caller's next lines never "
             "run: not `get_max_length()` (gone 4.49-5.12), nor the None test of its answer (-1 from 5.13)",
    ),
    Invalid(
        prelude("StaticCache") + _BUCKETS,
        flagged="key_cache",
        message_contains="AttributeError: 'StaticCache' object has no attribute 'key_cache'",
        fixed={"Use `.layers[0].keys`": prelude("StaticCache") + _BUCKETS.replace("cache.key_cache[0]",
                                                                                   "cache.layers[0].keys")},
        note="one static cache per length, built by a dict comprehension: the cache at every key the code computes "
             "(`buckets[16]`); `key_cache` is gone from 4.56",
    ),
    Invalid(
        prelude("DynamicCache", model="LlamaForCausalLM") + _MIXIN,
        flagged="_supports_cache_class",
        message_contains="AttributeError: 'DistributedLlama' object has no attribute '_supports_cache_class'",
        fixed={'Use `getattr(..., True)`': prelude("DynamicCache", model="LlamaForCausalLM") + _MIXIN.replace(
            "self._supports_cache_class", 'getattr(self, "_supports_cache_class", True)')},
        note="a project mixin before the model class in the bases: its `generate` runs on the model, whose "
             "`_supports_cache_class` flag is gone from 4.54",
    ),
    Invalid(
        _LOAD + _FORWARD + _PAIR + _NONE_MEANS_NO_MAXIMUM + _CHECKED,
        flagged="get_max_cache_shape",
        severity=Severity.WARNING,
        runtime="OTHER",  # the assertion: the None branch is never taken
        message_contains="`cache.get_max_cache_shape()` is tested against None (`limit is None`)",
        note="`get_max_cache_shape()` (-1 for a DynamicCache from 4.54) or, where it is gone (5.20+), "
             "`get_max_length()` (-1 from 5.13): neither answers None, so the None branch is never taken",
    ),
)

VALID: tuple[Valid, ...] = (
    Valid(
        patched_generate_loop("input_ids[:, -1:] if step else input_ids", positions=True),
        note="the loop set on `GenerationMixin` starting its dict with the prompt's positions (and cutting its input "
             "once the cache holds the rest)",
    ),
    Valid(
        custom_generate_loop("assert self._has_unfinished_sequences(False, False, device=input_ids.device)"),
        note="the `custom_generate` sampler calling a helper every release has, as its signature says",
    ),
    Valid(
        prelude("Cache", model="LlamaForCausalLM") + _PATCHED_HOOK.replace("past_key_values.seen_tokens",
                                                                            "past_key_values.get_seq_length()"),
        note="the same hook set on the model class reading the length by `get_seq_length()` (4.57 and 5.x have it)",
    ),
    Valid(
        prelude("Cache", model="LlamaForCausalLM") + _GENERATE_HOOK,
        versions=("5.24.0", "5.25.0"),
        note="the same hook on 5.24+: generate passes the cache as `cache=`, `past_key_values` is None, the read "
             "under its `is not None` test never runs (HFC010 says what the hook loses)",
    ),
    Valid(
        _RESET.replace("cache.max_cache_len = 0\n", "try:\n    cache.max_cache_len = 0\nexcept AttributeError:  # "
                       "a read-only property on 4.54-5.19\n    pass\n"),
        note="the property write inside a `try` that handles the AttributeError",
    ),
    Valid("import torch\n" + _CONTRAST_DEF.replace(
        "    def greedy_search(self, input_ids, logits_processor=None, stopping_criteria=None, **model_kwargs):\n"
        "        return contrast_greedy_search(self, input_ids, logits_processor, stopping_criteria, **model_kwargs)\n",
        "    def _sample(self, input_ids, logits_processor=None, stopping_criteria=None, *args, **model_kwargs):\n"
        "        CALLS.append(1)\n"
        "        return super()._sample(input_ids, logits_processor, stopping_criteria, *args, **model_kwargs)\n"),
        note="the loop overridden under the name generate calls (`_sample`, 4.41.0 to 5.25.0): it runs"),
    Valid("import torch\n" + _CONTRAST_LOOP.replace(
        "model.generate(ids, max_new_tokens=2, min_new_tokens=2, do_sample=False)\n",
        "model.greedy_search(ids)\n"),
        note="the loop bound under the old name and called by the code itself: it runs"),
    Valid("import transformers\n" + prelude() + _OLD_LOOP.replace(
        "def sample(self, input_ids, **model_kwargs):\n    CALLS.append(1)\n    return input_ids\n",
        "original = transformers.generation.utils.GenerationMixin._sample\n\n\n"
        "def sample(self, *args, **kwargs):\n    CALLS.append(1)\n    return original(self, *args, **kwargs)\n")
        .replace("GenerationMixin.sample = sample", "GenerationMixin._sample = sample"),
        note="the same patch under the name generate calls (`_sample`, 4.41.0 to 5.25.0)"),
    Valid("import transformers\n" + prelude() + _OLD_LOOP.replace(
        "model.generate(**inputs, max_new_tokens=2, min_new_tokens=2, do_sample=True)\n",
        'model.sample(inputs["input_ids"])\n'),
        note="the same patch, called by the code itself: it runs"),
    Valid(prelude("GenerationConfig", "StoppingCriteriaList") + _STOPPING.replace(
        "criteria = ", "model._prepare_special_tokens(config)\ncriteria = "),
        note="the same config prepared as generate prepares it first: the helper finds its tensors"),
    Valid("import torch\n" + prelude() + _ROLLOUT.replace(
        '{"attention_mask": inputs["attention_mask"]}',
        '{"attention_mask": inputs["attention_mask"],\n              '
        '"cache_position": torch.arange(inputs["input_ids"].shape[1])}'),
        note="the rollout's state started with the prompt's positions, as generate starts it"),
    Valid(prelude("GenerationConfig") + "config = GenerationConfig(max_new_tokens=2, return_legacy_cache=True)\n"
          "legacy = config.return_legacy_cache\n",
          note="a config built with the field: its `__init__` sets every keyword it does not pop as an attribute "
               "(5.x), so the read runs on every release"),
    Valid(prelude() + 'legacy = getattr(model.generation_config, "return_legacy_cache", None)\n',
          note="the field read with a default: None where the release has no such field"),
    Valid(_PAGED.replace("class PagedCache(Cache):\n", "class PagedCache(Cache):\n    batch_size = None\n\n"),
          note="the subclass binds `batch_size` itself (a class attribute shadows the base's property): the store "
               "sets its own"),
    Valid(_LATE_LISTS.replace("cache.get_seq_length()\n", "cache.reset_states()\ncache.get_seq_length()\n"),
          note="the method that sets the lists runs first: the read is the subclass's own list"),
    Valid(_LAYER_FIELDS.replace("layer.max_batch_size", "layer.keys.shape[0]")
          .replace("layer.head_dim", "layer.keys.shape[-1]"),
          note="the same sizes read off the layer's tensors, which every release from 4.54.0 has"),
    Valid(_LAYER_CROP.replace("layer.crop(max_length=3)", "layer.get_seq_length()"),
          note="a layer method every release from 4.54.0 takes without arguments"),
    Valid(_OWN_LAYERS, note="the project's subclass reads a member its `StaticLayer`s have on every release from "
                            "4.54.0 (`max_cache_len`)"),
    Valid(_OWN_COUNTER, note="the project's own `Cache` subclass sets `seen_tokens`: an `isinstance(x, Cache)` test "
                             "holds for it, so the read under that test is not said to be a transformers cache's"),
    Valid(
        _LOAD + _FORWARD + _PAIR + "if limit is None or limit < 0:  # no maximum\n    limit = 1 << 30\n" + _CHECKED,
        note="the same pair, a negative answer read as no maximum: the handler's `get_max_length()` (gone 4.49-5.12) "
             "runs only where `get_max_cache_shape()` is gone (5.20+), and has it there",
    ),
)
