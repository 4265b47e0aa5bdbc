"""HFC007 examples that must be flagged; each runs unchanged under the oracle against real transformers."""

from __future__ import annotations

from hf_cache_lint.engine.base.findings import Severity
from hf_cache_lint.rules.base import Invalid, invalid
from hf_cache_lint.rules.snippets import MAMBA, prelude

_5X = ("5.23.0", "5.24.0", "5.25.0")
_LOAD = prelude()
_GEN = "out = model.generate(**inputs, max_new_tokens=5, return_dict_in_generate=True)\n"
_FROM_LEGACY = "cache = DynamicCache.from_legacy_cache(legacy)\n"
# The project's DynamicCache subclass converting its input with the classmethod it inherits (ipex-llm's
# `DynamicNormalCache.from_legacy_cache(past_key_values)` in its model forward's cache choice).
_OWN_CACHE = ("\n\nclass NormalCache(DynamicCache):\n    def __init__(self, num_hidden_layers=None):\n"
              "        super().__init__()\n")
_OWN_FROM_LEGACY = (_OWN_CACHE + "\n\ndef choose(past):\n    if not isinstance(past, NormalCache):\n"
                    "        past = NormalCache.from_legacy_cache(past)\n    return past\n\n\n"
                    "step = model(**inputs, past_key_values=choose(None), use_cache=True)\n")

# The project's head-wise cache defining its own `from_legacy_cache`, beside a patched forward that converts a legacy
# input with transformers' `DynamicCache.from_legacy_cache` (AdaKV's `DynamicCacheSplitHeadFlatten` and
# `adaptive_LlamaModel_forward`): the project's classmethod is not the one called.
_OWN_BESIDE = ("\n\nclass HeadCache(DynamicCache):\n    @classmethod\n    def from_legacy_cache(cls, past=None):\n"
               "        cache = cls()\n        for i, (k, v) in enumerate(past or ()):\n            cache.update(k, v, i)\n"
               "        return cache\n\n\ndef as_cache(past):\n    if not isinstance(past, DynamicCache):\n"
               "        past = DynamicCache.from_legacy_cache(past)\n    return past\n\n\n"
               "step = model(**inputs, past_key_values=as_cache(None), use_cache=True)\n")

_MAX_SHAPE = "limit = out.past_key_values.get_max_cache_shape()\n"
_STATIC = "cache = StaticCache(config=model.config, max_cache_len=32)\n"
_MAX_LEN = "limit = cache.max_cache_len\n"
_KEYS = "keys = out.past_key_values.key_cache[0]\n"
# The same read as an item of a list the code builds (DeCoRe's `torch.cat([past_key_value.key_cache[layer_idx],
# key_states], dim=-2)`): the item is read before the call runs.
_CAT_KEYS = "keys = torch.cat([out.past_key_values.key_cache[0]], dim=-2)\n"
# 4.4x code asking a generate output's cache for its maximum, with None meaning "no maximum": the assertion fails on
# 5.x, where the answer is -1 (the oracle's run shows the other branch taken).
_NO_MAXIMUM = ("limit = out.past_key_values.get_max_length()\n"
               "if limit is None:  # no maximum\n    limit = 1 << 30\n"
               "assert limit > out.past_key_values.get_seq_length(), limit\n")
# The same test of a cache narrowed to `Cache` (as Gemma-10M's prepare_inputs hook narrows the one generate gives it).
_GUARDED_MAXIMUM = ("cache = out.past_key_values\nif isinstance(cache, Cache):\n"
                    "    limit = cache.get_max_length()\n    if limit is None:  # no maximum\n        limit = 1 << 30\n"
                    "    assert limit > cache.get_seq_length(), limit\n")
_BUILT = prelude("DynamicCache") + "cache = DynamicCache()\n"
# Caches and models followed where the code takes them: a parameter a caller fills, an attribute, a forward output.
_FILLED = "cache = DynamicCache()\nmodel(**inputs, past_key_values=cache, use_cache=True)\n"
_HELD = ("class Press:\n    def __init__(self):\n        self.cache = DynamicCache()\n\n"
         "    def first_keys(self):\n        return self.cache.key_cache[0]\n\n\n"
         "press = Press()\nmodel(**inputs, past_key_values=press.cache, use_cache=True)\nprint(press.first_keys())\n")
_TREE = ("\n\nclass TreeCache(DynamicCache):\n"
         "    def __init__(self):\n        super().__init__()\n        self.accepted = 0\n\n"
         "    def first_keys(self):\n        return self.key_cache[0]\n\n\n"
         "cache = TreeCache()\nmodel(**inputs, past_key_values=cache, use_cache=True)\nkeys = cache.first_keys()\n")
_MAMBA_LOAD = prelude(model="MambaForCausalLM", checkpoint=MAMBA)
_BUDGET = ("\n\nclass Budget:\n    def __init__(self):\n        self.keys = []\n\n"
           "    @classmethod\n    def from_dynamic_cache(cls, cache):\n        budget = cls()\n"
           "        budget.keys = cache.key_cache\n        return budget\n\n\n"
           "cache = model(**inputs, use_cache=True).past_key_values\nbudget = Budget.from_dynamic_cache(cache)\n")
_USABLE = ("\n\ndef past_for(past):\n    if not isinstance(past, DynamicCache):\n        past = DynamicCache()\n"
           "    return past.get_usable_length(4)\n\n\nlength = past_for(None)\n")
# generate's per-step update replaced on the model by a 4.4x copy (attention_sinks): it runs as the model's method.
_KWARGS_UPDATE = ("\n\ndef _update_kwargs(self, outputs, model_kwargs, is_encoder_decoder=False, **kwargs):\n"
                  "    model_kwargs[\"past_key_values\"] = self._extract_past_from_model_output(outputs)\n"
                  "    return model_kwargs\n\n\n"
                  "def patch(model):\n"
                  "    model._update_model_kwargs_for_generation = types.MethodType(_update_kwargs, model)\n"
                  "    return model\n\n\n"
                  "patch(model).generate(**inputs, max_new_tokens=2, do_sample=False)\n")
_RETURNED = ("\n\ndef returned(cache, return_legacy):\n    if return_legacy:\n        return cache.to_legacy_cache()\n"
             "    return cache\n\n\ncache = DynamicCache()\nmodel(**inputs, past_key_values=cache, use_cache=True)\n"
             "legacy = returned(cache, True)\n")
_AS_CACHE = ("\n\ndef as_cache(past):\n    if not isinstance(past, EncoderDecoderCache):\n"
             "        past = EncoderDecoderCache.from_legacy_cache(past)\n    return past\n\n\ncache = as_cache(None)\n")
_SIZED = ("\n\nclass TreeCache(DynamicCache):\n    def __init__(self, num_hidden_layers=None):\n"
          "        super().__init__(num_hidden_layers)\n        self.accepted = 0\n\n\n"
          "cache = TreeCache(model.config.num_hidden_layers)\n")

# A model class built on a backbone (`GPT2PreTrainedModel`) with its own head and forward, generated from (XTTS's
# GPT2InferenceModel): from 4.52.1 `PreTrainedModel` no longer derives from `GenerationMixin` (the release table).
_SPEAKER = (
    "import torch\n"
    "from transformers import GPT2Config, GPT2Model, GPT2PreTrainedModel{mixin_import}\n"
    "from transformers.modeling_outputs import CausalLMOutputWithPast\n\n\n"
    "class Speaker(GPT2PreTrainedModel{mixin}):\n"
    "    def __init__(self, config):\n"
    "        super().__init__(config)\n"
    "        self.transformer = GPT2Model(config)\n"
    "        self.head = torch.nn.Linear(config.n_embd, config.vocab_size, bias=False)\n\n"
    "    def forward(self, input_ids=None, past_key_values=None, attention_mask=None, use_cache=None, **kwargs):\n"
    "        out = self.transformer(input_ids=input_ids, past_key_values=past_key_values,\n"
    "                               attention_mask=attention_mask, use_cache=use_cache)\n"
    "        return CausalLMOutputWithPast(logits=self.head(out[0]), past_key_values=out.past_key_values)\n\n\n"
    "speaker = Speaker(GPT2Config(vocab_size=64, n_positions=64, n_embd=32, n_layer=2, n_head=4)).eval()\n"
    "codes = speaker.generate(torch.tensor([[1, 2, 3]]), max_new_tokens=3, do_sample=False, pad_token_id=0)\n"
)
SPEAKER = _SPEAKER.format(mixin="", mixin_import="")
SPEAKER_MIXIN = _SPEAKER.format(mixin=", GenerationMixin", mixin_import=", GenerationMixin")
# The same class decoding by itself from generate's private helpers, as remote code's `stream_generate` does
# (ChatGLM's, vendored by Med-ChatGLM: `self._get_logits_processor(...)`): those are `GenerationMixin`'s too.
_STREAM = (
    "\n    def stream(self, ids, generation_config):\n"
    "        processors = self._get_logits_processor(\n"
    "            generation_config=generation_config, input_ids_seq_length=ids.shape[-1], encoder_input_ids=ids,\n"
    "            prefix_allowed_tokens_fn=None, logits_processor=LogitsProcessorList())\n"
    "        while ids.shape[-1] < generation_config.max_length:\n"
    "            logits = self(input_ids=ids).logits[:, -1, :]\n"
    "            ids = torch.cat([ids, processors(ids, logits).argmax(-1, keepdim=True)], dim=-1)\n"
    "        return ids\n"
)


def streaming(speaker: str) -> str:
    """`speaker` (SPEAKER or SPEAKER_MIXIN) with `_STREAM`'s method, streaming instead of calling generate."""
    return speaker.replace("import torch\n", "import torch\nfrom transformers import GenerationConfig, "
                           "LogitsProcessorList\n", 1).replace(
        "out.past_key_values)\n", "out.past_key_values)\n" + _STREAM.rstrip("\n") + "\n", 1).replace(
        "codes = speaker.generate(torch.tensor([[1, 2, 3]]), max_new_tokens=3, do_sample=False, pad_token_id=0)",
        "codes = speaker.stream(torch.tensor([[1, 2, 3]]), GenerationConfig(max_length=6))")


# The backbone-built class held by a module class and generated from by a chat helper that is handed the holder
# (OpenBioMed's `Conversation(model)` calling `self.model.llm.generate(...)`).
CHAT = SPEAKER.replace(
    "speaker = Speaker(GPT2Config(vocab_size=64, n_positions=64, n_embd=32, n_layer=2, n_head=4)).eval()\n"
    "codes = speaker.generate(torch.tensor([[1, 2, 3]]), max_new_tokens=3, do_sample=False, pad_token_id=0)\n",
    "class Voice(torch.nn.Module):\n"
    "    def __init__(self, config):\n"
    "        super().__init__()\n"
    "        self.speaker = Speaker(config)\n\n\n"
    "class Chat:\n"
    "    def __init__(self, voice, max_new_tokens=3):\n"
    "        self.voice = voice\n"
    "        self.max_new_tokens = max_new_tokens\n\n"
    "    def say(self, ids):\n"
    "        return self.voice.speaker.generate(ids, max_new_tokens=self.max_new_tokens, do_sample=False,\n"
    "                                           pad_token_id=0)\n\n\n"
    "voice = Voice(GPT2Config(vocab_size=64, n_positions=64, n_embd=32, n_layer=2, n_head=4)).eval()\n"
    "chat = Chat(voice)\n"
    "codes = chat.say(torch.tensor([[1, 2, 3]]))\n")
STREAMER = streaming(SPEAKER)
STREAMER_MIXIN = streaming(SPEAKER_MIXIN)
# A generation model's own streaming loop that copies the config it is given and asks generate's private helper for
# its stopping criteria (CodeGeeX2's ChatGLM2 `stream_generate`), without generate's `_prepare_special_tokens`.
STOPPING = streaming(SPEAKER_MIXIN).replace("import torch\n", "import copy\n\nimport torch\n", 1).replace(
    "LogitsProcessorList\n", "LogitsProcessorList, StoppingCriteriaList\n", 1).replace(
    "        processors = self._get_logits_processor(\n"
    "            generation_config=generation_config, input_ids_seq_length=ids.shape[-1], encoder_input_ids=ids,\n"
    "            prefix_allowed_tokens_fn=None, logits_processor=LogitsProcessorList())\n"
    "        while ids.shape[-1] < generation_config.max_length:\n"
    "            logits = self(input_ids=ids).logits[:, -1, :]\n"
    "            ids = torch.cat([ids, processors(ids, logits).argmax(-1, keepdim=True)], dim=-1)\n",
    "        generation_config = copy.deepcopy(generation_config)\n"
    "        criteria = self._get_stopping_criteria(generation_config=generation_config,\n"
    "                                               stopping_criteria=StoppingCriteriaList())\n"
    "        while not criteria(ids, None).all():\n"
    "            logits = self(input_ids=ids).logits[:, -1, :]\n"
    "            ids = torch.cat([ids, logits.argmax(-1, keepdim=True)], dim=-1)\n")


INVALID: tuple[Invalid, ...] = (
    Invalid(
        prelude("HybridCache") + "out = model.generate(**inputs, max_new_tokens=5)\n",
        flagged="HybridCache",
        versions=_5X,
        message_contains="ImportError: cannot import name 'HybridCache' from 'transformers'",
        note="a 4.x cache class imported from `transformers`",
    ),
    Invalid(
        "from transformers.models.mamba.modeling_mamba import MambaCache\n"
        + prelude(model="MambaForCausalLM", checkpoint=MAMBA) + "out = model.generate(**inputs, max_new_tokens=5)\n",
        flagged="MambaCache",
        versions=_5X,
        note="`MambaCache` from the Mamba modeling module",
    ),
    Invalid(
        "import transformers\n\n" + _LOAD + "cache_class = transformers.SinkCache\n",
        flagged="SinkCache",
        versions=_5X,
        message_contains="AttributeError: module transformers has no attribute SinkCache",
        note="a removed class read as an attribute of the module",
    ),
    Invalid(
        _LOAD + _GEN + "legacy = out.past_key_values.to_legacy_cache()\n",
        flagged="to_legacy_cache",
        versions=_5X,
        note="`to_legacy_cache()` on the cache generate returned",
    ),
    invalid(
        prelude("DynamicCache") + _GEN
        + "legacy = tuple((layer.keys, layer.values) for layer in out.past_key_values.layers)\n" + _FROM_LEGACY,
        flagged="from_legacy_cache",
        fixes={"Use `DynamicCache(...)`": (_FROM_LEGACY, "cache = DynamicCache(legacy)\n")},
        versions=_5X,
        note="`DynamicCache.from_legacy_cache(...)`: the constructor takes the tuple in 4.x and 5.x",
    ),
    Invalid(
        "import sys\n\n" + _LOAD + "if len(sys.argv) > 1:\n    from transformers import OffloadedStaticCache\n",
        flagged="OffloadedStaticCache",
        versions=_5X,
        severity=Severity.WARNING,
        runtime={"5.23.0": "OK", "5.24.0": "OK", "5.25.0": "OK"},
        message_contains="only if `len(sys.argv) > 1` holds",
        note="under a condition the linter cannot decide: a Warning (the oracle runs it without arguments)",
    ),
    # Reads of the cache generate returned (or one built here) through what 5.x removed (the legacy-tuple
    # reads `cache[i]` / `for k, v in cache` are HFC009's).
    invalid(
        _LOAD + _GEN + _MAX_SHAPE,
        flagged="get_max_cache_shape",
        fixes={"Use `get_max_length()`": (_MAX_SHAPE, "limit = out.past_key_values.get_max_length()\n")},
        versions=_5X,
        message_contains="AttributeError: 'DynamicCache' object has no attribute 'get_max_cache_shape'",
        note="`get_max_cache_shape()`: still in 5.0 (deprecated in 5.13), gone from 5.20",
    ),
    invalid(
        prelude("StaticCache") + _STATIC + _MAX_LEN,
        flagged="max_cache_len",
        fixes={"Use `get_max_length()`": (_MAX_LEN, "limit = cache.get_max_length()\n")},
        versions=_5X,
        message_contains="AttributeError: 'StaticCache' object has no attribute 'max_cache_len'",
        note="`StaticCache.max_cache_len`: still in 5.0 (deprecated in 5.13), gone from 5.20",
    ),
    Invalid(
        _LOAD + _GEN + _NO_MAXIMUM,
        flagged="get_max_length",
        severity={"4.57.6": Severity.ERROR, "5.23.0": Severity.WARNING, "5.24.0": Severity.WARNING,
                  "5.25.0": Severity.WARNING},
        runtime={"4.57.6": "HFC007", "5.23.0": "OTHER", "5.24.0": "OTHER", "5.25.0": "OTHER"},
        message_contains="`out.past_key_values.get_max_length()`",  # 4.57.6: missing; 5.x: tested against None
        note="`get_max_length()` tested against None (4.41-4.48's answer for a DynamicCache): missing on 4.57 "
             "(AttributeError), -1 from 5.13, so the None branch is never taken (the assertion after it fails)",
    ),
    Invalid(
        "from transformers.cache_utils import Cache\n" + _LOAD + _GEN + _GUARDED_MAXIMUM,
        flagged="get_max_length",
        severity={"4.57.6": Severity.WARNING, "5.23.0": Severity.WARNING, "5.24.0": Severity.WARNING,
                  "5.25.0": Severity.WARNING},
        runtime={"4.57.6": "HFC007", "5.23.0": "OTHER", "5.24.0": "OTHER", "5.25.0": "OTHER"},
        message_contains="`cache.get_max_length()`",  # 4.57.6: missing (under the isinstance test: a Warning)
        note="the same test on a cache narrowed to `Cache` (Gemma-10M's hook, `isinstance(past_key_values, Cache)`): "
             "generate's is a DynamicCache, -1 from 5.13",
    ),
    # Gone before 4.57 (code written for 4.4x breaks there; first release without each read from the wheels).
    invalid(
        _LOAD + _GEN + _KEYS,
        flagged="key_cache",
        fixes={"Use `.layers[0].keys`": (_KEYS, "keys = out.past_key_values.layers[0].keys\n")},
        message_contains="AttributeError: 'DynamicCache' object has no attribute 'key_cache'",
        note="`cache.key_cache[i]`: the per-layer lists are gone from 4.56 (the layers hold the tensors)",
    ),
    invalid(
        "import torch\n" + _LOAD + _GEN + _CAT_KEYS,
        flagged="key_cache",
        fixes={"Use `.layers[0].keys`": (_CAT_KEYS, "keys = torch.cat([out.past_key_values.layers[0].keys], dim=-2)\n")},
        message_contains="AttributeError: 'DynamicCache' object has no attribute 'key_cache'",
        note="`torch.cat([cache.key_cache[i], k])`: the read inside the list raises before the call runs",
    ),
    Invalid(
        _BUILT + "cache.value_cache[0] = None\n",
        flagged="value_cache",
        note="`cache.value_cache[i] = v` reads `value_cache` first, so the store raises too",
    ),
    Invalid(
        _BUILT + "cache.key_cache = [None]\nfirst = cache.key_cache[0]\n",
        flagged="key_cache",
        severity=Severity.WARNING,
        runtime="OK",
        message_contains="the assignment raises nothing",
        note="`cache.key_cache = [...]` binds a plain attribute the layers never read (silent; the read of that "
             "list after it raises nothing either, so it is not reported)",
    ),
    Invalid(
        _BUILT + "cache.key_cache = [None]\ncache.value_cache = [None]\nassert cache.get_seq_length() == 0\n",
        flagged="key_cache",
        severity=Severity.WARNING,
        runtime="OK",
        message_contains="(also `cache.value_cache = ...`, line",
        note="`cache.key_cache = [...]` then `cache.value_cache = [...]` (ModelOpt's tuple-to-cache conversion): one "
             "mechanism, the cache's tensors replaced by two plain attributes the layers never read, so one finding, "
             "at the first store, naming the second (the cache stays empty on every release)",
    ),
    Invalid(
        _BUILT + _FILLED.replace("cache = DynamicCache()\n", "")
        + 'fresh = len(getattr(cache, "key_cache", [])) == 0\n',
        flagged="\"key_cache\"",
        severity=Severity.WARNING,
        runtime="OK",
        message_contains="returns the default `[]` every time",
        note="`getattr(cache, \"key_cache\", [])` (KV-compression helpers asking whether a cache is empty): no error, "
             "the default every time, so a filled cache reads as empty (silent)",
    ),
    Invalid(
        _BUILT + "seen = cache.seen_tokens\n",
        flagged="seen_tokens",
        message_contains="AttributeError: 'DynamicCache' object has no attribute 'seen_tokens'",
        note="`seen_tokens`: gone from 4.54",
    ),
    Invalid(
        _BUILT + "usable = cache.get_usable_length(1)\n",
        flagged="get_usable_length",
        note="`get_usable_length()`: gone from 4.54",
    ),
    Invalid(
        "from transformers.cache_utils import QuantizedCacheConfig\n\n" + _LOAD,
        flagged="QuantizedCacheConfig",
        message_contains="ImportError: cannot import name 'QuantizedCacheConfig' from 'transformers.cache_utils'",
        note="`QuantizedCacheConfig`: gone from 4.56 (the settings are `QuantizedCache`'s keywords)",
    ),
    Invalid(
        "import torch\nfrom transformers import AutoModelForCausalLM, LlamaForCausalLM\n\n"
        'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")\n\n\n'
        "def prepare(self, input_ids, past_key_values=None, attention_mask=None, **kwargs):\n"
        "    if past_key_values is not None and not isinstance(past_key_values, tuple):\n"
        "        if len(past_key_values.key_cache) > 0:\n"
        "            input_ids = input_ids[:, -1:]\n"
        '    return {"input_ids": input_ids, "past_key_values": past_key_values, "attention_mask": attention_mask}\n'
        "\n\nLlamaForCausalLM.prepare_inputs_for_generation = prepare\n"
        "model.generate(torch.tensor([[1, 5, 9, 14]]), max_new_tokens=2, min_new_tokens=2, do_sample=False)\n",
        flagged="key_cache",
        versions=("4.57.6", "5.23.0"),
        severity=Severity.WARNING,  # under the `if`, which the linter leaves undecided
        message_contains="AttributeError: 'DynamicCache' object has no attribute 'key_cache'",
        note="a module function set on a transformers model class as its `prepare_inputs_for_generation` (MInference's "
             "hook through PyramidKV's `replace_llama`): generate hands it its cache as `past_key_values` up to 5.23, "
             "and the branch `not isinstance(past_key_values, tuple)` is the cache object's, so the removed "
             "`key_cache` read raises there (from 5.24 the cache comes as `cache=`: the hook gets None, HFC010's)",
    ),
    Invalid(
        _LOAD + "original_reorder = model._reorder_cache\n",
        flagged="_reorder_cache",
        message_contains="no longer has `_reorder_cache`",
        note="a reference to a removed model method, kept to be called later (Unlimiformer's hook injection: "
             "`self.original_reorder_cache_func = model._reorder_cache`): reading an attribute the class no longer "
             "has raises AttributeError at once, called or not",
    ),
    Invalid(
        "def config_base():\n    from transformers import CacheConfig\n    return CacheConfig\n\n\n"
        "class KVQConfig(config_base()):\n    pass\n",
        flagged="CacheConfig",
        message_contains="ImportError: cannot import name 'CacheConfig' from 'transformers'",
        note="`CacheConfig`, the base of 4.4x's cache configs, imported in a function (KVQ's mixed-precision "
             "config): gone from 4.56 with `QuantizedCacheConfig`",
    ),
    # Followed into parameters, attributes, helpers and forward outputs (the interpreter's cache_use facts).
    Invalid(
        prelude("DynamicCache") + "\n\ndef seen(past_key_values):\n    return past_key_values.seen_tokens\n\n\n"
        + _FILLED + "print(seen(cache))\n",
        flagged="seen_tokens",
        message_contains="AttributeError: 'DynamicCache' object has no attribute 'seen_tokens'",
        note="a parameter the module's own caller fills with a `DynamicCache` (remote-code attention written for "
             "4.4x): `seen_tokens` is gone from 4.54",
    ),
    Invalid(
        prelude() + "\n\ndef seen(past_key_values):\n    return past_key_values.seen_tokens\n\n\n"
        "def chunk_caches(chunks):\n    caches = []\n    for chunk in chunks:\n"
        "        caches.append(model(chunk, use_cache=True).past_key_values)\n    return caches\n\n\n"
        "print(seen(chunk_caches([inputs.input_ids])[0]))\n",
        flagged="seen_tokens",
        message_contains="AttributeError: 'DynamicCache' object has no attribute 'seen_tokens'",
        note="an item of a list of forward passes' caches (TurboRAG's chunk caches, appended in a loop) handed to "
             "a helper",
    ),
    invalid(
        prelude("DynamicCache") + _HELD,
        flagged="key_cache",
        fixes={"Use `.layers[0].keys`": ("self.cache.key_cache[0]", "self.cache.layers[0].keys")},
        message_contains="AttributeError: 'DynamicCache' object has no attribute 'key_cache'",
        note="a cache held in an attribute set in `__init__` and read in another method",
    ),
    invalid(
        "import torch\nimport transformers\n\n\n"
        "class SpeechLM(transformers.LlamaPreTrainedModel, transformers.GenerationMixin):\n"
        "    def __init__(self, config):\n"
        "        super().__init__(config)\n"
        "        self.language_model = transformers.AutoModelForCausalLM.from_config(config)\n"
        "        self.post_init()\n\n"
        "    def get_input_embeddings(self):\n"
        "        return self.language_model.get_input_embeddings()\n\n"
        "    def _reorder_cache(self, past_key_values, beam_idx):\n"
        "        return self.language_model._reorder_cache(past_key_values, beam_idx)\n\n"
        "    def forward(self, input_ids=None, attention_mask=None, past_key_values=None, **kwargs):\n"
        "        return self.language_model(input_ids=input_ids, attention_mask=attention_mask,\n"
        "                                   past_key_values=past_key_values, **kwargs)\n\n\n"
        'config = transformers.AutoConfig.from_pretrained("meta-llama/Llama-3.2-1B")\n'
        "model = SpeechLM(config).eval()\n"
        "prompt = torch.tensor([[1, 5, 9, 14, 20]])\n"
        "model.generate(prompt, attention_mask=torch.ones_like(prompt), max_new_tokens=2, min_new_tokens=2, "
        "num_beams=2,\n               do_sample=False)\n",
        flagged="_reorder_cache",
        occurrence=1,
        fixes={},
        message_contains="object has no attribute '_reorder_cache'",
        note="a wrapper model's `_reorder_cache` (Ultravox) that nothing in the module calls but beam search does, "
             "on the instance the module built: its language model lost `_reorder_cache` in 4.54 (4.53.0 runs)",
    ),
    Invalid(
        _LOAD + "import torch\n\n\n"
        "def reorder(self, past_key_values, beam_idx):\n"
        "    if isinstance(past_key_values, (tuple, list)):\n"
        "        return self._reorder_cache(past_key_values, beam_idx)\n"
        "    past_key_values.reorder_cache(beam_idx)\n"
        "    return past_key_values\n\n\n"
        "legacy = tuple((layer.keys, layer.values) for layer in model(**inputs).past_key_values.layers)\n"
        "reorder(model, legacy, torch.tensor([0]))\n",
        flagged="_reorder_cache",
        severity=Severity.WARNING,  # on the branch's condition
        message_contains="object has no attribute '_reorder_cache'",
        note="a model's `_reorder_cache` on a branch that tests the cache's format, not the model (Optimum Habana's "
             "`_temporary_reorder_cache`): the model lost it in 4.54 whichever cache the branch is for",
    ),
    invalid(
        _LOAD + "if model._supports_cache_class:\n    print('takes Cache classes')\n",
        flagged="_supports_cache_class",
        fixes={"Use `getattr(..., True)`": ("model._supports_cache_class", 'getattr(model, "_supports_cache_class", True)')},
        message_contains="object has no attribute '_supports_cache_class'",
        note="a model's class flag gone from 4.54 (every model takes the Cache classes since)",
    ),
    Invalid(
        _LOAD + "cache = model._get_cache('static', 1, 16, {})\n",
        flagged="_get_cache",
        versions=_5X,
        message_contains="object has no attribute '_get_cache'",
        note="generate's private helper `model._get_cache(...)`: in 4.57 and 5.0, gone from 5.1",
    ),
    Invalid(
        prelude("StaticCache") + "\n\ndef batch_of(cache):\n    return cache.max_batch_size\n\n\n" + _STATIC
        + "model(**inputs, past_key_values=cache, use_cache=True)\nprint(batch_of(cache))\n",
        flagged="max_batch_size",
        versions=_5X,
        message_contains="AttributeError: 'StaticCache' object has no attribute 'max_batch_size'",
        note="a helper given a `StaticCache`: `max_batch_size` is gone from 5.20",
    ),
    Invalid(
        _MAMBA_LOAD + "out = model(**inputs, use_cache=True)\nstates = out.cache_params.ssm_states\n",
        flagged="ssm_states",
        versions=_5X,
        message_contains="AttributeError: 'DynamicCache' object has no attribute 'ssm_states'",
        note="a Mamba forward output's state cache: a `MambaCache` up to 5.4, from 5.5 a `DynamicCache` without "
             "`ssm_states`",
    ),
    Invalid(
        "from transformers.models.jamba.modeling_jamba import HybridMambaAttentionDynamicCache\n\n" + _LOAD,
        flagged="HybridMambaAttentionDynamicCache",
        versions=_5X,
        note="Jamba's own cache class: in its modeling module up to 5.4, gone from 5.5",
    ),
    Invalid(
        prelude("QuantizedCache") + "import torch\n\n"
        'cache = QuantizedCache(backend="quanto", config=model.config, nbits=4, compute_dtype=torch.float16)\n',
        flagged="compute_dtype",
        runtime="OTHER",  # a plain TypeError
        message_contains="TypeError: QuantizedCache.__init__() got an unexpected keyword argument 'compute_dtype'",
        note="a constructor keyword the release's `__init__` does not take (`QuantizedCacheConfig`'s, before 4.56)",
    ),
    # The project's own subclass of a transformers cache: a member it does not define itself is transformers'.
    invalid(
        _BUILT.replace("cache = DynamicCache()\n", _TREE),
        flagged="key_cache",
        fixes={"Use `.layers[0].keys`": ("        return self.key_cache[0]\n", "        return self.layers[0].keys\n")},
        portable=True,
        message_contains="AttributeError: 'TreeCache' object has no attribute 'key_cache'",
        note="a `DynamicCache` subclass reading the per-layer lists it inherits (speculative decoding's tree cache): "
             "gone from 4.56",
    ),
    # Any name a generation module lost (the release table holds every name they bind, private ones too).
    Invalid(
        "from transformers.generation.candidate_generator import _crop_past_key_values\n\n" + _LOAD,
        flagged="_crop_past_key_values",
        message_contains="ImportError: cannot import name '_crop_past_key_values' from "
                         "'transformers.generation.candidate_generator'",
        note="a private helper of a generation module, gone from 4.54 (speculative-decoding code imports it)",
    ),
    Invalid(
        "from transformers.generation.utils import GreedySearchOutput\n\n" + _LOAD,
        flagged="GreedySearchOutput",
        versions=_5X,
        message_contains="ImportError: cannot import name 'GreedySearchOutput' from 'transformers.generation.utils'",
        note="a 4.x generate output type, gone from 5.0",
    ),
    Invalid(
        "from transformers.generation import GreedySearchDecoderOnlyOutput\n\n" + _LOAD,
        flagged="GreedySearchDecoderOnlyOutput",
        versions=_5X,
        message_contains="`from transformers.generation import GenerateDecoderOnlyOutput`",
        note="a name the `transformers.generation` package served, gone from 5.0: the message names what it aliased",
    ),
    # Any name a tabled model module lost (the release table holds every name their top level binds).
    Invalid(
        "from transformers.models.llama.modeling_llama import LlamaFlashAttention2\n\n" + _LOAD,
        flagged="LlamaFlashAttention2",
        message_contains="Instead, use `LlamaAttention` (from `transformers.models.llama.modeling_llama`)",
        note="a per-implementation attention class KV-compression code patches, merged into `LlamaAttention` in 4.48",
    ),
    Invalid(
        "from transformers.models.llama import modeling_llama\n\n" + _LOAD
        + "modeling_llama.LlamaSdpaAttention.forward = modeling_llama.LlamaAttention.forward\n",
        flagged="LlamaSdpaAttention",
        message_contains="AttributeError: module 'transformers.models.llama.modeling_llama' has no attribute "
                         "'LlamaSdpaAttention'",
        note="a patch of a removed attention class's `forward`: the assignment reads the class first",
    ),
    Invalid(
        "from transformers.models.llama import modeling_llama\n\n" + _LOAD
        + "\n\ndef tuple_forward(self, hidden_states, attention_mask=None, position_ids=None, past_key_value=None,\n"
        "                  output_attentions=False, use_cache=False):\n"
        "    return hidden_states, None, past_key_value\n\n\n"
        "def enable_tuple_cache():\n"
        "    modeling_llama.LlamaAttention.forward = tuple_forward\n"
        "    modeling_llama.LlamaSdpaAttention.forward = tuple_forward\n\n\n"
        "enable_tuple_cache()\n" + _GEN,
        flagged="LlamaSdpaAttention",
        message_contains="has no attribute 'LlamaSdpaAttention'",
        note="a patch function (Quest's) that patches every attention class of 4.4x: it raises at the removed one, "
             "so no forward runs the hook it patched onto `LlamaAttention` a line before (HFC010 says nothing on it)",
    ),
    Invalid(
        "from transformers import DynamicCache, GenerationConfig\n\n" + _LOAD
        + "config = GenerationConfig(do_sample=True, top_k=5)\n"
        "warper = model._get_logits_warper(config)\n"
        "step = model(**inputs, past_key_values=DynamicCache(), use_cache=True)\n",
        flagged="_get_logits_warper",
        message_contains="AttributeError: '<model class>' object has no attribute '_get_logits_warper'",
        note="a private generate helper that speculative-decoding code calls to copy generate's set-up "
             "(Chinese-LLaMA-Alpaca-2's speculative sampling): gone in 4.45.0, merged into `_get_logits_processor`",
    ),
    Invalid(
        "import transformers\n\n" + _LOAD
        + "attention = transformers.models.mistral.modeling_mistral.MistralFlashAttention2\n",
        flagged="MistralFlashAttention2",
        message_contains="has no attribute 'MistralFlashAttention2'",
        note="a removed class read through the dotted module path",
    ),
    Invalid(
        "from transformers.models.llama.modeling_llama import StaticCache\n\n" + _LOAD,
        flagged="StaticCache",
        message_contains="`from transformers.cache_utils import StaticCache`",
        note="a cache class a model module no longer re-exports (4.52): the message names where it lives",
    ),
    Invalid(
        "from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding\n\n" + _LOAD
        + "rotary = LlamaRotaryEmbedding(16, max_position_embeddings=2048)\n",
        flagged="max_position_embeddings",
        message_contains="TypeError: LlamaRotaryEmbedding.__init__() got an unexpected keyword argument "
                         "'max_position_embeddings'",
        note="a 4.4x attention's own rotary embedding (`(dim, max_position_embeddings, base)`): `(config, ...)` from "
             "4.48",
    ),
    Invalid(
        "from transformers import BeamScorer\n\n" + _LOAD,
        flagged="BeamScorer",
        versions=_5X,
        message_contains="ImportError: cannot import name 'BeamScorer' from 'transformers'",
        note="a top-level generation export gone from 5.0",
    ),
    invalid(
        _LOAD + 'kwargs = model._get_initial_cache_position(inputs["input_ids"], {"use_cache": True})\n',
        flagged="_get_initial_cache_position",
        fixes={},
        message_contains="_get_initial_cache_position",  # the TypeError at 4.57.6: tests/rules/test_helper_calls.py
        note="a private generate helper called as 4.41-4.51 took it: 4.52-5.3 take `(seq_length, device, "
             "model_kwargs)` (TypeError), 5.4 removed it (AttributeError)",
    ),
    # Caches the code builds from transformers ones, and the members they lack at the target.
    Invalid(
        _BUILT + "model(**inputs, past_key_values=cache, use_cache=True)\nseen = cache._seen_tokens\n",
        flagged="_seen_tokens",
        message_contains="AttributeError: 'DynamicCache' object has no attribute '_seen_tokens'",
        note="the token counter behind `seen_tokens` that a DynamicCache kept until 4.53 (prompt-eviction code reads it "
             "to slice back): gone with the property from 4.54",
    ),
    Invalid(
        prelude("DynamicCache") + "\n\nclass Counter(DynamicCache):\n"
        "    def update(self, key_states, value_states, layer_idx, *args, **kwargs):\n"
        "        self._seen_tokens += key_states.shape[-2]\n"
        "        return super().update(key_states, value_states, layer_idx, *args, **kwargs)\n\n\n"
        "cache = Counter()\nmodel(**inputs, past_key_values=cache, use_cache=True)\n",
        flagged="_seen_tokens",
        message_contains="AttributeError: 'Counter' object has no attribute '_seen_tokens'",
        note="a `DynamicCache` subclass that counts `_seen_tokens` with `+=` and never sets it: the `+=` reads the "
             "counter the base class set in its `__init__` until 4.53 (gone from 4.54)",
    ),
    Invalid(
        prelude("DynamicCache") + "\n\nclass Normal(DynamicCache):\n"
        "    def update(self, key_states, value_states, layer_idx, *args, **kwargs):\n"
        "        if layer_idx == 0:\n"
        "            self.seen_tokens += key_states.shape[-2]\n"
        "        if len(self.key_cache) <= layer_idx:\n"
        "            self.key_cache.append(key_states)\n"
        "        return super().update(key_states, value_states, layer_idx, *args, **kwargs)\n\n\n"
        "cache = Normal()\nmodel(**inputs, past_key_values=cache, use_cache=True)\n",
        flagged="seen_tokens",
        severity=Severity.WARNING,  # "only if `layer_idx == 0` holds": the linter does not decide the test
        message_contains="AttributeError: 'Normal' object has no attribute 'seen_tokens'",
        note="an override that only transformers' forward calls, raising under `if layer_idx == 0:`: the layers "
             "call `update` from layer 0, so the forward stops there and the later `key_cache` reads never run "
             "(ipex-llm's cache); where the module calls `update` itself, with any layer, both are reported",
    ),
    Invalid(
        "import torch\n" + prelude("DynamicCache") + "\n\nclass Normal(DynamicCache):\n"
        "    def update(self, key_states, value_states, layer_idx, *args, **kwargs):\n"
        "        if layer_idx == 0:\n"
        "            self.seen_tokens += key_states.shape[-2]\n"
        "        if len(self.key_cache) <= layer_idx:\n"
        "            self.key_cache.append(key_states)\n"
        "        return super().update(key_states, value_states, layer_idx, *args, **kwargs)\n\n\n"
        "cache = Normal()\nkeys = torch.zeros(1, 1, 2, 64)\ncache.update(keys, keys, 0)\n"
        "model(**inputs, past_key_values=cache, use_cache=True)\n",
        flagged="seen_tokens",
        severity=Severity.WARNING,
        message_contains="AttributeError: 'Normal' object has no attribute 'seen_tokens'",
        note="the same override the module also calls itself, at layer 0 (KVQ's `kvq.update(keys, values, 0)`): "
             "that call starts where the forward does, so it stops at the first-layer raise too and the later "
             "`key_cache` reads never run",
    ),
    Invalid(
        prelude("Cache") + "\n\nclass Recent(Cache):\n    def __init__(self, window):\n"
        "        super().__init__()\n        self.window = window\n\n\n"
        "cache = Recent(8)\n",
        flagged="super().__init__()",
        message_contains="ValueError: You should provide exactly one of `layers` or `layer_class_to_replicate`",
        note="a subclass of `Cache` itself that runs the base constructor bare, as 4.4x's `Cache.__init__(self)` "
             "took it: from 4.56 it needs the layers (ValueError; 4.54-4.55: `layer_classes`, TypeError)",
    ),
    Invalid(
        prelude("DynamicCache") + "\n\nclass TrimMixin:\n    def trim(self, n):\n        self._seen_tokens -= n\n\n\n"
        "class TrimCache(TrimMixin, DynamicCache):\n    pass\n\n\n"
        "class Session:\n    def __init__(self):\n        self.cache = None\n\n"
        "    def step(self, ids):\n        cache = TrimCache()\n"
        "        model(ids, past_key_values=cache, use_cache=True)\n        if self.cache:\n"
        "            self.cache.trim(1)\n        else:\n            self.cache = cache\n\n\n"
        "session = Session()\nsession.step(inputs.input_ids)\nsession.step(inputs.input_ids)\n",
        flagged="_seen_tokens",
        message_contains="AttributeError: 'TrimCache' object has no attribute '_seen_tokens'",
        note="a mixin's method on `self`, where the module combines the mixin with `DynamicCache` (surya's "
             "`ContinuousBatchingCache(ContinuousBatchingMixin, DynamicCache)`): `self` is that class's instance, "
             "so the removed `_seen_tokens` is read off a transformers cache (gone from 4.54)",
    ),
    Invalid(
        prelude("Cache") + "\n\nclass Indexed(Cache):\n    def __init__(self):\n"
        "        super().__init__()\n        self.seen = 0\n\n"
        "    @classmethod\n    def from_cache(cls, dynamic_cache):\n        cache = cls()\n"
        "        cache.seen = dynamic_cache._seen_tokens\n        return cache\n\n\n"
        "past = model(**inputs, use_cache=True).past_key_values\nconverted = Indexed.from_cache(past)\n",
        flagged="super().__init__()",
        message_contains="ValueError: You should provide exactly one of `layers` or `layer_class_to_replicate`",
        note="the subclass's classmethod builds `cls()` first (LCKV's `IndexedCache.from_cache`): the base "
             "constructor raises there, so the removed `_seen_tokens` read after it never runs and is not reported",
    ),
    Invalid(
        _BUILT + "model(**inputs, past_key_values=cache, use_cache=True)\n"
        "lengths = [keys.shape[-2] for i, keys in enumerate(cache.key_cache)]\n",
        flagged="key_cache",
        message_contains="AttributeError: 'DynamicCache' object has no attribute 'key_cache'",
        note="the per-layer list read in a comprehension's iterable (`enumerate(cache.key_cache)`, "
             "`zip(new.key_cache, past.key_cache)`): read where the comprehension stands, gone from 4.56",
    ),
    Invalid(
        _LOAD + _BUDGET,
        flagged="key_cache",
        message_contains="AttributeError: 'DynamicCache' object has no attribute 'key_cache'",
        note="a transformers cache handed to the project's own classmethod (`Budget.from_dynamic_cache(cache)`), "
             "which reads the per-layer lists: gone from 4.56",
    ),
    Invalid(
        prelude("DynamicCache") + _USABLE,
        flagged="get_usable_length",
        message_contains="AttributeError: 'DynamicCache' object has no attribute 'get_usable_length'",
        note="the caller's cache, or one the code builds when it got none: `get_usable_length()` is gone from 4.54 "
             "on either path",
    ),
    Invalid(
        prelude("DynamicCache", "EncoderDecoderCache")
        + "cache = EncoderDecoderCache(DynamicCache(), DynamicCache())\nlegacy = cache.to_legacy_cache()\n",
        flagged="to_legacy_cache",
        versions=_5X,
        message_contains="AttributeError: 'EncoderDecoderCache' object has no attribute 'to_legacy_cache'",
        note="`to_legacy_cache()` on an EncoderDecoderCache: the error names its class",
    ),
    Invalid(
        prelude("DynamicCache") + _RETURNED,
        flagged="to_legacy_cache",
        versions=_5X,
        severity=Severity.WARNING,
        message_contains="only if `return_legacy` holds",
        note="the legacy tuples returned when a flag asks for them (a flag is no compat test of the cache): a "
             "Warning, the oracle's run sets the flag",
    ),
    Invalid(
        prelude("EncoderDecoderCache") + _AS_CACHE,
        flagged="from_legacy_cache",
        versions=_5X,
        severity=Severity.WARNING,
        message_contains="AttributeError: type object 'EncoderDecoderCache' has no attribute 'from_legacy_cache'",
        note="a speech decoder's conversion of what it was given (`not isinstance(past, EncoderDecoderCache)`: a test "
             "of the argument, not of what the class has); the oracle's run passes None",
    ),
    Invalid(
        prelude("DynamicCache") + _OWN_FROM_LEGACY,
        flagged="from_legacy_cache",
        versions=_5X,
        severity=Severity.WARNING,
        message_contains="AttributeError: type object 'NormalCache' has no attribute 'from_legacy_cache'",
        note="the project's `DynamicCache` subclass (ipex-llm's `DynamicNormalCache`) converting what it is given "
             "with the classmethod it inherits: it defines none, so the call is transformers' and the error names "
             "the subclass; the oracle's run passes None",
    ),
    invalid(
        prelude("DynamicCache") + _OWN_BESIDE,
        flagged="from_legacy_cache",
        fixes={"Use `DynamicCache(...)`": ("past = DynamicCache.from_legacy_cache(past)\n", "past = DynamicCache(past)\n")},
        occurrence=1,
        versions=_5X,
        severity=Severity.WARNING,
        message_contains="AttributeError: type object 'DynamicCache' has no attribute 'from_legacy_cache'",
        note="transformers' `DynamicCache.from_legacy_cache` beside the project's own cache class that defines a "
             "`from_legacy_cache` of its own (AdaKV): the receiver is transformers' class, so the call is "
             "transformers' whatever the project defines; the oracle's run passes None",
    ),
    Invalid(
        prelude("DynamicCache") + "first = DynamicCache.from_batch_splits([DynamicCache()])\n",
        flagged="from_batch_splits",
        message_contains="AttributeError: type object 'DynamicCache' has no attribute 'from_batch_splits'",
        note="a classmethod called on the class: Python's error says `type object`",
    ),
    Invalid(
        prelude("DynamicCache") + _SIZED,
        flagged="super().__init__(num_hidden_layers)",
        severity=Severity.WARNING,
        runtime="OTHER",  # a plain TypeError
        message_contains="TypeError: 'int' object is not iterable",
        note="a DynamicCache subclass passing the layer count 4.45-4.49 took: 4.50+ iterate the first argument as "
             "the distributed cache data (speculative decoding's tree cache)",
    ),
    Invalid(
        prelude("StaticCache") + "import torch\n\n"
        "cache = StaticCache(model.config, 1, 32, model.device, torch.float32)\n",
        flagged="StaticCache(model.config, 1, 32, model.device, torch.float32)",
        message_contains="TypeError: StaticCache.__init__() takes from 3 to 5 positional arguments but 6 were given",
        note="a cache built with 4.4x's positional order `(config, max_batch_size, max_cache_len, device, dtype)`: "
             "4.56+ take `(config, max_cache_len, offloading=False, ...)`",
    ),
    Invalid(
        prelude("StaticCache") + "import torch\n\n"
        "n = 8\n"
        "cache = StaticCache(model.config, 1, n * 2 + 16, device=\"cpu\", dtype=torch.float32)\n"
        "model(**inputs, past_key_values=cache, use_cache=True)\n",
        flagged="StaticCache(model.config, 1, n * 2 + 16, device=\"cpu\", dtype=torch.float32)",
        runtime="OTHER",  # a plain AssertionError of torch's
        message_contains="`max_cache_len=1, offloading=n * 2 + 16`",
        note="4.51-4.53's positional order `(config, max_batch_size, max_cache_len)` (SpQR's demo) that 4.56+ bind "
             "as `(config, max_cache_len, offloading)`: the length lands on the `offloading` flag, which needs an "
             "accelerator when a forward runs with the cache (AssertionError: Torch not compiled with CUDA enabled on a "
             "CPU torch)",
    ),
    Invalid(
        SPEAKER,
        flagged="speaker.generate",
        message_contains="AttributeError: 'Speaker' object has no attribute 'generate'",
        note="`generate` on a model class built on `GPT2PreTrainedModel` alone: no `GenerationMixin` from 4.52.1",
    ),
    Invalid(
        STREAMER,
        flagged="self._get_logits_processor",
        message_contains="AttributeError: 'Speaker' object has no attribute '_get_logits_processor'",
        note="generate's private helper `_get_logits_processor` called by the class's own decoding loop (remote "
             "code's `stream_generate`): a `GenerationMixin` method too, gone with it from 4.52.1",
    ),
    Invalid(
        CHAT,
        flagged="self.voice.speaker.generate",
        message_contains="AttributeError: 'Speaker' object has no attribute 'generate'",
        note="`generate` on the backbone-built class through a chat helper handed its holder (`Chat(voice)`, "
             "`self.voice.speaker.generate(...)`)",
    ),
    Invalid(
        STOPPING,
        flagged="_get_stopping_criteria",
        runtime="OTHER",  # raised inside transformers (the helper): the classifier leaves such AttributeErrors OTHER
        message_contains="AttributeError: 'GenerationConfig' object has no attribute '_eos_token_tensor'",
        note="a model's own streaming method that copies its config and calls `_get_stopping_criteria` on it without "
             "generate's `_prepare_special_tokens` (ChatGLM2's `stream_generate`)",
    ),
    Invalid(
        "import types\n\n" + _LOAD + _KWARGS_UPDATE,
        flagged="_extract_past_from_model_output",
        message_contains="object has no attribute '_extract_past_from_model_output'",
        note="a function set on the model with `types.MethodType` as generate's `_update_model_kwargs_for_generation` "
             "(attention_sinks' `inject_attention_sinks`), asking the model for a helper gone from 4.49: generate "
             "runs it as the model's method at its first step",
    ),
)
