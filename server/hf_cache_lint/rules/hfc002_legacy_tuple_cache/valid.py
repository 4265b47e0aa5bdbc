"""HFC002 examples that must not be flagged (each runs clean under the oracle)."""

from __future__ import annotations

from hf_cache_lint.rules.base import Valid
from hf_cache_lint.rules.hfc002_legacy_tuple_cache.examples import (
    _FORWARD,
    _LAYERS,
    _LIST,
    _LOAD,
    _OWN_MODEL,
    _SUBCLASS,
    _SUBCLASS_CALL,
)

_LOAD_DC = _LOAD.replace("AutoTokenizer\n", "AutoTokenizer, DynamicCache\n", 1)
# The model instance's forward replaced by the project's wrapper, which turns legacy pasts into a cache before the
# model's own forward (Olive's export wrapper, `setattr(pytorch_model, "forward", patched_forward)`): a call of the
# model runs the wrapper, so what transformers' forward does with a list is not what happens.
_ACCEPT_LEGACY = ("\n\ndef accept_legacy_pasts(m):\n    original = m.forward\n\n"
                  "    @functools.wraps(original)\n    def forward(*args, **kwargs):\n"
                  '        past = kwargs.get("past_key_values")\n'
                  "        if isinstance(past, (list, tuple)):\n            cache = DynamicCache()\n"
                  "            for i, (k, v) in enumerate(past):\n                cache.update(k, v, i)\n"
                  '            kwargs["past_key_values"] = cache\n        return original(*args, **kwargs)\n\n'
                  '    setattr(m, "forward", forward)\n\n\naccept_legacy_pasts(model)\n')

VALID: tuple[Valid, ...] = (
    Valid(
        _LOAD_DC + "\n\nclass TaggedCache(DynamicCache):\n    def __init__(self, tag):\n        super().__init__()\n"
        "        self.tag = tag\n\n\nstep = model(**inputs, past_key_values=TaggedCache('turn-1'), use_cache=True)\n",
        note="the project's `DynamicCache` subclass that runs the base `__init__`",
    ),
    Valid(
        _LOAD_DC + "\n\nclass TurnCache(DynamicCache):\n    def get_seq_length(self, layer_idx=0):\n"
        "        return super().get_seq_length(layer_idx)\n\n\n"
        "step = model(**inputs, past_key_values=TurnCache(), use_cache=True)\n",
        note="the project's `get_seq_length` override that takes `layer_idx`",
    ),
    Valid(
        _LOAD_DC + _LAYERS + "result = model.generate(**inputs, past_key_values=DynamicCache(legacy), max_new_tokens=5)\n",
        note="the tuple wrapped in a `DynamicCache`",
    ),
    Valid(
        _LOAD + "result = model.generate(**inputs, past_key_values=out.past_key_values, max_new_tokens=5)\n",
        note="the `Cache` object itself",
    ),
    Valid(
        _LOAD_DC + _LAYERS + "legacy = DynamicCache(legacy)\n"
        "result = model.generate(**inputs, past_key_values=legacy, max_new_tokens=5)\n",
        note="the name is rebound to a Cache before the call",
    ),
    Valid(
        _LOAD + _LAYERS + "result = model.generate(**inputs, past_key_values=None, max_new_tokens=5)\n"
        "print(len(legacy))\n",
        note="a tuple that never reaches generate",
    ),
    Valid(
        _LOAD + "first = model.generate(**prefix, max_new_tokens=2, return_dict_in_generate=True)\n"
        "result = model.generate(first.sequences, past_key_values=first.past_key_values, max_new_tokens=5)\n",
        note="the cache returned by an earlier generate",
    ),
    Valid(
        _LOAD_DC + _LAYERS + "result = model.generate(**inputs, cache=DynamicCache(legacy), max_new_tokens=5)\n",
        versions=("5.24.0", "5.25.0"),
        note="the 5.24 `cache=` keyword with a Cache",
    ),
    Valid(
        _LOAD + "sizes = tuple(layer.keys.shape[-2] for layer in out.past_key_values.layers)\n"
        "result = model.generate(**inputs, max_new_tokens=5, eos_token_id=None)\n",
        note="a tuple that is not a cache",
    ),
    Valid(
        _LOAD_DC + _LAYERS + "step = model(**inputs, past_key_values=DynamicCache(legacy), use_cache=True)\n"
        "pairs = [(k.shape, v.shape) for k, v in legacy]\n",
        note="the tuple wrapped in a `DynamicCache` before the forward; the code's own tuple iterated as pairs",
    ),
    Valid(
        _LOAD_DC + _LAYERS + "\n\ndef to_cache(past):\n    if not isinstance(past, tuple) or len(past) == 0:\n"
        "        return past\n    try:\n        return DynamicCache(past)\n    except (TypeError, ValueError):\n"
        "        pass\n    return past\n\n\nstep = model(**inputs, past_key_values=to_cache(legacy), use_cache=True)\n",
        note="a helper that converts the tuple to a `DynamicCache` and returns its input as it came only where "
             "the conversion failed or was not needed: the forward gets the cache",
    ),
    Valid(
        _LOAD + "\n\nclass Engine:\n    def __init__(self):\n        self.past = None\n\n"
        "    def step(self, ids):\n        past = self.past\n        if isinstance(past, tuple):\n"
        "            self.past = tuple(tuple(t[..., :-1, :] for t in layer) for layer in past)\n"
        "        out = model(input_ids=ids, past_key_values=self.past, use_cache=True)\n"
        "        self.past = out.past_key_values\n\n\n"
        "engine = Engine()\nengine.step(prefix.input_ids)\nengine.step(inputs.input_ids[:, -1:])\n",
        note="compat code slicing a legacy tuple, for an attribute that holds None or the cache a forward "
             "returned: `isinstance` of either with `tuple` is False, so the forward never gets the tuple",
    ),
    Valid(
        _LOAD + _LIST + "\n\ndef refeed(ids, past=None, rejected=False):\n    if past != None:\n"
        "        if rejected == False:\n            return model(ids[:, -1:], past_key_values=past, use_cache=True)\n"
        "    return None\n\n\nstep = refeed(inputs.input_ids, legacy, rejected=True)\n"
        "step = refeed(inputs.input_ids, out.past_key_values)\n",
        note="a re-feed step that runs the forward only where its caller says the cache was not cut (`rejected == "
             "False`): the list of pairs comes with `rejected=True`, the forward gets the returned cache",
    ),
    Valid(
        _SUBCLASS + "legacy = out.past_key_values\n" + _SUBCLASS_CALL,
        note="the project's model subclass given the `Cache` object its own forward returned",
    ),
    Valid(
        "import functools\n\n" + _LOAD_DC + _LIST + _ACCEPT_LEGACY + _FORWARD,
        note="a list into the model after the project replaced that model's `forward` (`setattr(m, \"forward\", ...)`) "
             "with a wrapper that builds a `DynamicCache` from it first",
    ),
    Valid(
        "import functools\n\n" + _LOAD_DC + _LIST +
        _ACCEPT_LEGACY.replace('setattr(m, "forward", forward)', "m.forward = forward") + _FORWARD,
        note="the same wrapper installed by `m.forward = forward`",
    ),
    Valid(
        _OWN_MODEL.replace("from transformers import GenerationMixin,", "from transformers import DynamicCache, GenerationMixin,")
        .replace("        if past_key_values is None:\n",
                 "        if isinstance(past_key_values, DynamicCache):\n"
                 "            past_key_values = past_key_values.to_legacy_cache() if past_key_values.get_seq_length() else None\n"
                 "        if past_key_values is None:\n"),
        versions=("4.57.6",),
        note="the same remote-code model whose forward turns the `DynamicCache` generate hands it back into the "
             "legacy tuple first (`to_legacy_cache()`, 4.x)",
    ),
    Valid(
        _LOAD.replace('"meta-llama/Llama-3.2-1B"', '"gpt2"') + _LAYERS +
        "\n\nclass Step:\n    def __init__(self, model):\n        self.model = model\n\n"
        "    def __call__(self, past):\n        return self.model(**inputs, past_key_values=past, use_cache=True)\n\n\n"
        "step = Step(model)(legacy)\n",
        versions=("4.57.6",),
        note="a tuple into the forward of a wrapper's model when the module loads only GPT-2 (`\"gpt2\"`), whose 4.57 "
             "forward converts it: no Warning for an unnamed decoder there (5.x raise)",
    ),
)
