"""HFC007 examples that must not be flagged (each runs clean under the oracle)."""

from __future__ import annotations

from hf_cache_lint.rules.base import Valid
from hf_cache_lint.rules.hfc007_removed_cache_api.examples import (
    _GEN,
    _LOAD,
    _OWN_CACHE,
    CHAT,
    SPEAKER,
    SPEAKER_MIXIN,
    STOPPING,
    STREAMER,
    STREAMER_MIXIN,
)
from hf_cache_lint.rules.snippets import prelude

VALID: tuple[Valid, ...] = (
    Valid(
        "try:\n    from transformers import HybridCache\nexcept ImportError:  # transformers 5.x\n"
        "    HybridCache = None\n" + _LOAD,
        note="an import whose ImportError is handled",
    ),
    Valid(
        "import transformers\nfrom packaging import version\n\n"
        'if version.parse(transformers.__version__) < version.parse("5.0.0"):\n'
        "    from transformers import SlidingWindowCache\n" + _LOAD,
        note="an import only under a version test that excludes 5.x",
    ),
    Valid(
        _LOAD + _GEN + "cache = out.past_key_values\n"
        'legacy = cache.to_legacy_cache() if hasattr(cache, "to_legacy_cache") else cache\n',
        note="`to_legacy_cache()` only where `hasattr` says it exists",
    ),
    Valid(
        prelude("DynamicCache") + "cache = DynamicCache()\nmodel(**inputs, past_key_values=cache, use_cache=True)\n"
        'old = getattr(cache, "key_cache", None)\n'
        "keys = old if old is not None else [layer.keys for layer in cache.layers]\n",
        note="`getattr(cache, \"key_cache\", None)` tested against None: compat code that reads the layers on 4.56+",
    ),
    Valid(
        "from transformers.cache_utils import SlidingWindowCache\n" + _LOAD,
        note="`SlidingWindowCache` from `transformers.cache_utils`, which 5.x still has",
    ),
    Valid(
        "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from transformers import HybridCache\n" + _LOAD,
        note="an import for type checkers only",
    ),
    Valid(
        "import importlib.metadata\n\n"
        'if importlib.metadata.version("transformers").startswith("4."):\n'
        "    from transformers import OffloadedCache\n" + _LOAD,
        note="a version test on the installed distribution",
    ),
    Valid(
        "import packaging.version\nimport transformers\nfrom transformers import DynamicCache\n\n\n"
        "def as_cache(legacy):\n"
        "    transformers_lt_4_56 = packaging.version.parse(transformers.__version__) < packaging.version.parse(\n"
        '        "4.56.0.dev0"\n    )\n'
        "    if transformers_lt_4_56:\n"
        "        return DynamicCache.from_legacy_cache(legacy)\n"
        "    return DynamicCache(legacy)\n\n\n"
        "cache = as_cache(None)\n",
        note="a removed method under a function-local version flag that excludes the target (as peft does)",
    ),
    Valid(
        _LOAD + _GEN + "cache = out.past_key_values\n"
        'if getattr(cache, "layers", None) is None:  # a 4.x cache without layers\n'
        "    legacy = cache.to_legacy_cache()\n"
        "else:\n"
        "    legacy = tuple((layer.keys, layer.values) for layer in cache.layers)\n",
        note="duck-typed compat code: `to_legacy_cache()` only on a fallback branch that tests the object first",
    ),
    Valid(
        _LOAD + _GEN + "seq_len = out.past_key_values.layers[0].keys.shape[2]\n"
        "limit = out.past_key_values.get_seq_length()\n"
        "for layer in out.past_key_values.layers:\n    print(layer.keys.shape, layer.values.shape)\n",
        note="the returned cache read through its layers, as 4.57 and 5.x both allow",
    ),
    Valid(
        "import torch\n\n\ndef seq_len(past):\n    return past[0][0].shape[2]\n\n\n"
        "print(seq_len(((torch.zeros(1, 2, 3, 8), torch.zeros(1, 2, 3, 8)),)))\n" + _LOAD
        + "out = model.generate(**inputs, max_new_tokens=5)\nprint(out[0])\n",
        note="indexing a parameter (it may be a legacy tuple) or generate's plain tensor result: nothing says cache",
    ),
    Valid(
        _LOAD + _GEN + "past = out.past_key_values\n"
        'if hasattr(past, "layers"):\n    keys = past.layers[0].keys\nelse:  # a legacy tuple\n'
        "    keys = past[0][0]\n",
        note="compat code indexing only on the branch for objects without layers",
    ),
    Valid(
        "import transformers\nfrom packaging import version\n\n" + _LOAD + _GEN
        + 'if version.parse(transformers.__version__) < version.parse("5"):\n'
        "    keys = out.past_key_values[0][0]\nelse:\n    keys = out.past_key_values.layers[0].keys\n",
        note="legacy indexing only under a version test that excludes 5.x",
    ),
    Valid(
        _LOAD + _GEN + "for entry in out.past_key_values:\n    print(len(entry))\n",
        note="iterating the returned cache without unpacking two names (5.x yields three, 4.57 two)",
    ),
    Valid(
        _LOAD + _GEN.replace("True)", "True, use_cache=False)")
        + "past = out.past_key_values\nif past is not None:\n    seq_len = past[0][0].shape[2]\n",
        note="a generate call with `use_cache=False` returns no cache (`past_key_values` is None)",
    ),
    Valid(
        "from mycache import DynamicCache\n\n" + _LOAD
        + "cache = DynamicCache()\nlegacy = cache.to_legacy_cache()\nagain = DynamicCache.from_legacy_cache(legacy)\n",
        files={"mycache.py": "class DynamicCache:\n    def __init__(self):\n        self.pairs = []\n\n"
               "    def to_legacy_cache(self):\n        return tuple(self.pairs)\n\n    @classmethod\n"
               "    def from_legacy_cache(cls, legacy):\n        cache = cls()\n        cache.pairs = list(legacy)\n"
               "        return cache\n"},
        note="the project's own cache class, imported from a workspace module: its methods are its own, whatever "
             "its name",
    ),
    Valid(
        "import transformers\n\ntry:\n    from transformers import HybridCache\nexcept ImportError:  # 5.x\n"
        "    transformers.HybridCache = None\n    HybridCache = None\n" + _LOAD,
        note="an assignment onto the transformers module in an ImportError fallback stores, it does not read",
    ),
    Valid(
        "import transformers\n\ntry:\n    from transformers import SinkCache\nexcept ImportError:  # 5.x\n"
        "    transformers.SinkCache = None\n\nprint(transformers.SinkCache)\n" + _LOAD,
        note="a name the code stores onto the transformers module (a compat shim) is there when read",
    ),
    Valid(
        "class DynamicCache:\n    def __init__(self):\n        self.key_cache = [None]\n        self.seen_tokens = 0\n\n\n"
        "cache = DynamicCache()\nfirst = cache.key_cache[0]\nseen = cache.seen_tokens\n" + _LOAD,
        note="the project's own class with `key_cache` and `seen_tokens`, whatever its name",
    ),
    Valid(
        _LOAD + _GEN + "cache = out.past_key_values\n"
        'keys = cache.key_cache[0] if hasattr(cache, "key_cache") else cache.layers[0].keys\n',
        note="`key_cache` read only where `hasattr` says the cache has it (4.4x), `.layers` elsewhere",
    ),
    Valid(
        "def seen(past_key_values):\n    return past_key_values.seen_tokens\n\n\n" + _LOAD,
        note="a parameter nothing in the module fills: nothing says it is a transformers cache",
    ),
    Valid(
        "class Store:\n    def __init__(self):\n        self.pairs = []\n\n"
        "    def to_legacy_cache(self):\n        return tuple(self.pairs)\n\n\n"
        "def snapshot():\n    return Store()\n\n\nlegacy = snapshot().to_legacy_cache()\n" + _LOAD,
        note="the project's own store returned by its own function: its `to_legacy_cache()` is its own",
    ),
    Valid(
        _LOAD + 'if getattr(model, "_supports_cache_class", True):\n    print("takes Cache classes")\n',
        note="a removed model flag read through `getattr` with a default, which runs on every release",
    ),
    Valid(
        prelude("QuantizedCache")
        + 'cache = QuantizedCache(backend="quanto", config=model.config, nbits=4, residual_length=16)\n',
        note="constructor keywords every checked release's `QuantizedCache.__init__` takes",
    ),
    Valid(
        _LOAD + _GEN + "limit = out.past_key_values.get_max_length()\n"
        "if limit is None or limit < 0:  # no maximum (None on 4.4x, -1 on 5.13+)\n    limit = 1 << 30\n"
        "assert limit > out.past_key_values.get_seq_length(), limit\n",
        versions=("5.23.0", "5.24.0", "5.25.0"),
        note="`get_max_length()` tested against None and a negative answer: both releases' \"no maximum\"",
    ),
    Valid(
        prelude("StaticCache") + "cache = StaticCache(config=model.config, max_cache_len=32)\n"
        "assert cache.get_max_length() is not None\n",
        versions=("5.23.0", "5.24.0", "5.25.0"),
        note="a StaticCache's `get_max_length()` is its `max_cache_len` on every release that has it",
    ),
    Valid(
        prelude("DynamicCache") + "\n\nclass Counted(DynamicCache):\n"
        "    seen_tokens = 0\n\n"
        "    def __init__(self):\n        super().__init__()\n        self.key_cache = []\n\n"
        "    def get_usable_length(self, new_length, layer_idx=0):\n        return self.get_seq_length(layer_idx)\n\n\n"
        "cache = Counted()\nmodel(**inputs, past_key_values=cache, use_cache=True)\n"
        "print(cache.seen_tokens, cache.key_cache, cache.get_usable_length(1))\n",
        note="a `DynamicCache` subclass's own members (a class attribute, `self.key_cache = ...`, a method): the "
             "project's, whatever their names",
    ),
    Valid(
        "try:\n    from transformers.generation.utils import _crop_past_key_values\nexcept ImportError:  # 4.54+\n"
        "    _crop_past_key_values = None\n\n" + _LOAD,
        note="a generation module's removed helper imported under `except ImportError`",
    ),
    Valid(
        "from transformers.generation.utils import GenerateDecoderOnlyOutput\n\n" + _LOAD,
        note="a generation module's name every release has",
    ),
    Valid(
        _LOAD + 'kwargs = model._get_initial_cache_position(inputs["input_ids"].shape[1], "cpu", {"use_cache": True})\n',
        versions=("4.57.6",),
        note="a private generate helper called as the target's signature says (4.52-5.3)",
    ),
    Valid(
        "try:\n    from transformers.models.llama.modeling_llama import LlamaFlashAttention2\n"
        "except ImportError:  # 4.48+: one attention class\n    LlamaFlashAttention2 = None\n\n" + _LOAD,
        note="a model module's removed class imported under `except ImportError`",
    ),
    Valid(
        "from transformers.models.llama import modeling_llama\n"
        "from transformers.models.llama.modeling_llama import apply_rotary_pos_emb, repeat_kv\n\n" + _LOAD
        + "if hasattr(modeling_llama, \"LlamaSdpaAttention\"):\n"
        "    modeling_llama.LlamaSdpaAttention.forward = modeling_llama.LlamaAttention.forward\n"
        "modeling_llama.LlamaAttention.forward = modeling_llama.LlamaAttention.forward\n"
        "modeling_llama.LlamaFlashAttention2 = modeling_llama.LlamaAttention\n",
        note="a removed class patched behind `hasattr`, names every release has, and a store onto the module "
             "(it raises nothing)",
    ),
    Valid(
        "from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding\n\n" + _LOAD
        + "rotary = LlamaRotaryEmbedding(config=model.config)\n",
        note="a model module's rotary embedding built as every checked release's constructor takes it",
    ),
    Valid(
        prelude("StaticCache") + "cache = StaticCache(model.config, 32)\n",
        note="a cache built with the positional arguments the target's constructor takes",
    ),
    Valid(
        prelude() + "import torch\n\n\n"
        "def reorder(self, past_key_values, beam_idx):\n"
        "    if isinstance(past_key_values, (tuple, list)) and hasattr(self, \"_reorder_cache\"):\n"
        "        return self._reorder_cache(past_key_values, beam_idx)\n"
        "    past_key_values.reorder_cache(beam_idx)\n"
        "    return past_key_values\n\n\n"
        "reorder(model, model(**inputs).past_key_values, torch.tensor([0]))\n",
        note="a model's `_reorder_cache` on a branch that also tests the model has it",
    ),
    Valid(
        prelude("StaticCache") + "import torch\n\nn = 8\n"
        "cache = StaticCache(model.config, n * 2 + 16, False, device=\"cpu\", dtype=torch.float32)\n"
        "model(**inputs, past_key_values=cache, use_cache=True)\n",
        note="the positional order 4.56+ take, `offloading` given as a flag: no number lands on it",
    ),
    Valid(
        prelude("DynamicCache") + "\n\nclass Budget:\n    def __init__(self):\n        self.keys = []\n\n"
        "    @classmethod\n    def from_dynamic_cache(cls, cache):\n        budget = cls()\n"
        "        budget.keys = [layer.keys for layer in cache.layers]\n        return budget\n\n\n"
        "cache = model(**inputs, use_cache=True).past_key_values\nbudget = Budget.from_dynamic_cache(cache)\n",
        note="a transformers cache handed to the project's own classmethod, read through `.layers` (4.54+)",
    ),
    Valid(
        prelude("Cache") + "from transformers.cache_utils import DynamicLayer\n\n\n"
        "class Recent(Cache):\n    def __init__(self, window):\n"
        "        super().__init__(layer_class_to_replicate=DynamicLayer)\n        self.window = window\n\n\n"
        "cache = Recent(8)\nmodel(**inputs, past_key_values=cache, use_cache=True)\n",
        note="a subclass of `Cache` that gives the base constructor its layer class (4.56+)",
    ),
    Valid(
        prelude("DynamicCache") + "\n\nclass Counter(DynamicCache):\n    def __init__(self):\n"
        "        super().__init__()\n        self._seen_tokens = 0\n\n"
        "    def update(self, key_states, value_states, layer_idx, *args, **kwargs):\n"
        "        if layer_idx == 0:\n            self._seen_tokens += key_states.shape[-2]\n"
        "        return super().update(key_states, value_states, layer_idx, *args, **kwargs)\n\n\n"
        "cache = Counter()\nmodel(**inputs, past_key_values=cache, use_cache=True)\nprint(cache._seen_tokens)\n",
        note="a `DynamicCache` subclass that keeps its own `_seen_tokens` (set in its `__init__`): the project's",
    ),
    Valid(
        prelude("DynamicCache", "EncoderDecoderCache") + "\n\ndef as_cache(past):\n"
        '    if not isinstance(past, EncoderDecoderCache) and hasattr(EncoderDecoderCache, "from_legacy_cache"):\n'
        "        past = EncoderDecoderCache.from_legacy_cache(past)\n"
        "    return past if past is not None else EncoderDecoderCache(DynamicCache(), DynamicCache())\n\n\n"
        "cache = as_cache(None)\n",
        note="a class's removed method called only where `hasattr` says the class has it",
    ),
    Valid(
        prelude("DynamicCache") + "\n\nclass TreeCache(DynamicCache):\n    def __init__(self, num_hidden_layers=None):\n"
        "        super().__init__()\n        self.layer_count = num_hidden_layers\n\n\n"
        "cache = TreeCache(model.config.num_hidden_layers)\n"
        "legacy = tuple((layer.keys, layer.values) for layer in model(**inputs, use_cache=True).past_key_values.layers)\n"
        "copy = DynamicCache(legacy)\n",
        note="the layer count kept by the subclass (its base built without it), and `DynamicCache(legacy)`: a first "
             "positional argument the code does not say is a count",
    ),
    Valid(
        prelude("DynamicCache") + _OWN_CACHE.replace("        super().__init__()\n", "        super().__init__()\n\n"
        "    @classmethod\n    def from_legacy_cache(cls, past=None):\n        cache = cls()\n"
        "        for i, (k, v) in enumerate(past or ()):\n            cache.update(k, v, i)\n        return cache\n")
        + "\n\nstep = model(**inputs, past_key_values=NormalCache.from_legacy_cache(None), use_cache=True)\n",
        note="the project's subclass that defines its own `from_legacy_cache`: the call is the project's, on every "
             "release",
    ),
    Valid(
        SPEAKER_MIXIN,
        note="the same backbone-built class with `GenerationMixin` among its bases: `generate` runs on every release",
    ),
    Valid(
        SPEAKER.replace("GPT2PreTrainedModel", "GPT2LMHeadModel"),
        note="a class built on a generation head (`GPT2LMHeadModel` lists `GenerationMixin` itself)",
    ),
    Valid(
        SPEAKER.replace("codes = speaker.generate(", "codes = speaker(").replace(
            ", max_new_tokens=3, do_sample=False, pad_token_id=0", ""),
        note="the backbone-built class only called, never generated from",
    ),
    Valid(
        SPEAKER_MIXIN.replace("GPT2PreTrainedModel, GenerationMixin)", "GPT2PreTrainedModel)").replace(
            "out.past_key_values)\n\n\nspeaker = Speaker(",
            "out.past_key_values)\n\n"
            "    def speak(self, ids):\n"
            "        return self.generate(ids, max_new_tokens=3, do_sample=False, pad_token_id=0)\n\n\n"
            "class GeneratingSpeaker(Speaker, GenerationMixin):\n    pass\n\n\n"
            "speaker = GeneratingSpeaker(").replace(
            "codes = speaker.generate(torch.tensor([[1, 2, 3]]), max_new_tokens=3, do_sample=False, pad_token_id=0)",
            "codes = speaker.speak(torch.tensor([[1, 2, 3]]))"),
        note="`self.generate` in a backbone-built class that a subclass of the module completes with `GenerationMixin`",
    ),
    Valid(
        CHAT.replace("chat = Chat(voice)\n", "chat = Chat(voice)\n"
                     "chat.voice.speaker = GPT2LMHeadModel(GPT2Config(vocab_size=64, n_positions=64, n_embd=32, "
                     "n_layer=2, n_head=4)).eval()\n").replace("GPT2PreTrainedModel\n", "GPT2PreTrainedModel, "
                                                                  "GPT2LMHeadModel\n", 1),
        note="the chat helper's holder whose model is replaced from outside the holder's class (by a generation "
             "head): what `self.voice.speaker` holds is not only the backbone-built class",
    ),
    Valid(
        CHAT.replace("class Chat:\n", "class LoudVoice(torch.nn.Module):\n"
                     "    def __init__(self, config):\n"
                     "        super().__init__()\n"
                     "        self.speaker = GPT2LMHeadModel(config)\n\n\n"
                     "class Chat:\n").replace(
            "chat = Chat(voice)\n", "chat = Chat(voice)\nloud = Chat(LoudVoice(GPT2Config("
                     "vocab_size=64, n_positions=64, n_embd=32, n_layer=2, n_head=4)).eval())\n").replace(
            "codes = chat.say(", "codes = loud.say(").replace(
            "GPT2PreTrainedModel\n", "GPT2PreTrainedModel, GPT2LMHeadModel\n", 1),
        note="the chat helper built with two different holders in the module (the one called holds a generation "
             "head): what `self.voice.speaker` is is not one class",
    ),
    Valid(
        STREAMER_MIXIN,
        note="the backbone-built class's own decoding loop calling `_get_logits_processor` with `GenerationMixin` "
             "among its bases: the helper is there on 4.57.6-5.25.0",
    ),
    Valid(
        STREAMER.replace("    def stream(self, ids, generation_config):\n",
                         "    def _get_logits_processor(self, generation_config, logits_processor, **kwargs):\n"
                         "        return logits_processor\n\n"
                         "    def stream(self, ids, generation_config):\n"),
        note="the backbone-built class defining the `_get_logits_processor` its loop calls: the project's own",
    ),
    Valid(
        STOPPING.replace("        criteria = self._get_stopping_criteria(",
                         "        self._prepare_special_tokens(generation_config)\n"
                         "        criteria = self._get_stopping_criteria("),
        note="the model's own streaming method running generate's `_prepare_special_tokens` on its config first",
    ),
    Valid(
        STOPPING.replace("        generation_config = copy.deepcopy(generation_config)\n", "").replace(
            "codes = speaker.stream(torch.tensor([[1, 2, 3]]), GenerationConfig(max_length=6))",
            "config = GenerationConfig(max_length=6)\nspeaker._prepare_special_tokens(config)\n"
            "codes = speaker.stream(torch.tensor([[1, 2, 3]]), config)"),
        note="the streaming method handing on the config its caller gives (here one the caller prepared) without "
             "making one: as generate's own steps get theirs",
    ),
)
