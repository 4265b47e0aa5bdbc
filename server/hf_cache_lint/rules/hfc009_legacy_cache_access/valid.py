"""HFC009 examples that must not be flagged (each runs clean under the oracle)."""

from __future__ import annotations

from hf_cache_lint.rules.base import Valid
from hf_cache_lint.rules.hfc009_legacy_cache_access.examples import (
    _CHUNKS,
    _CUT_LAYER,
    _GEN,
    _HOOK,
    _HOOK_READ,
    _INJECT,
    _LOAD,
    _REORDER,
    _RERAISE_LEN,
    _SEQ2SEQ,
    _SINK,
    _SINK_LEN,
    _STACKER,
    _SUBCLASS,
)
from hf_cache_lint.rules.snippets import prelude

# An attention subclass still written for 4.55's layers (lmms-eval's cambrian `Qwen2SdpaAttention`): its forward
# takes the cache as `past_key_value` and concatenates the legacy pair. From 4.56 the decoder layers pass the cache
# as `past_key_values=` (into `**kwargs` here), so the parameter keeps its default and the branch never runs.
_OLD_NAMED_ATTENTION = ("import torch\nfrom typing import Optional\n\nfrom transformers.cache_utils import Cache\n"
                        "from transformers.models.llama.modeling_llama import LlamaAttention\n" + _LOAD + "\n\n"
                        "class ConcatAttention(LlamaAttention):\n"
                        "    def forward(self, hidden_states, position_embeddings=None, attention_mask=None,\n"
                        "                past_key_value: Optional[Cache] = None, **kwargs):\n"
                        "        if past_key_value is not None:\n"
                        "            keys = torch.cat([past_key_value[0], hidden_states], dim=2)\n"
                        "            print(keys.shape)\n"
                        "        return super().forward(hidden_states, position_embeddings, attention_mask, **kwargs)\n"
                        "\n\nfor layer in model.model.layers:\n    layer.self_attn.__class__ = ConcatAttention\n"
                        "model.generate(**inputs, max_new_tokens=2, min_new_tokens=2, do_sample=False)\n")

VALID: tuple[Valid, ...] = (
    Valid(
        "import types\n\n" + _LOAD + _SINK.replace(_SINK_LEN, "        print(past_key_values.get_seq_length())\n")
        + _INJECT,
        note="the patched forward wrapper's callable object reads the length with `get_seq_length()`",
    ),
    Valid(
        _LOAD + _CUT_LAYER.replace("for layer in out.past_key_values:", "for layer in out.past_key_values.layers:")
        .replace("cut_layer(layer, 1)", "cut_layer((layer.keys, layer.values), 1)"),
        note="the helper handed each layer's `(keys, values)` read by name: its loop sees two tensors",
    ),
    Valid(
        _LOAD + "out = model(**inputs, use_cache=True)\ntry:\n" + _RERAISE_LEN + "except TypeError:\n"
        "    if out.past_key_values is None:\n        raise\n    seq_len = out.past_key_values.get_seq_length()\n",
        note="a handler that raises again only on a branch and otherwise falls back to `get_seq_length()`: it "
             "handles the 5.x TypeError",
    ),
    Valid(
        prelude() + _CHUNKS + "keys = torch.cat([past.layers[0].keys for past in caches], dim=2)\n"
        "print([past.get_seq_length() for past in caches], keys.shape)\n",
        note="a list of forward passes' caches read through their layers",
    ),
    Valid(
        prelude() + _CHUNKS + _STACKER.replace("past[layer][0]", "past.layers[layer].keys"),
        note="the helper called in a generator expression reads each cache's layers",
    ),
    Valid(
        prelude() + _CHUNKS + "caches.append(inputs.input_ids)\nprint(caches[-1][0].shape)\n",
        note="a list that holds a tensor besides the caches: an item's index is not claimed to be a cache's",
    ),
    Valid(
        _LOAD + _GEN + "\n\ndef to_legacy(past):\n"
        "    if isinstance(past, tuple) and len(past) > 0 and isinstance(past[0], (tuple, list)):\n"
        "        return past\n    return tuple((layer.keys, layer.values) for layer in past.layers)\n\n\n"
        "legacy = to_legacy(out.past_key_values)\nprint(legacy[0][0].shape)\n",
        note="a version-agnostic helper that indexes its argument only where `isinstance(past, tuple)` holds (no "
             "transformers cache is a tuple), and reads a cache through its layers",
    ),
    Valid(
        _HOOK.replace("        if past_key_values is not None and",
                      '        past_key_values = kwargs.pop("cache", past_key_values)\n'
                      "        if past_key_values is not None and")
        .replace(_HOOK_READ, "            past_length = past_key_values.get_seq_length()\n"),
        note="a `prepare_inputs_for_generation` override that takes the cache as `cache` too and asks it its length: "
             "the same inputs on every release",
    ),
    Valid(
        _LOAD + _GEN + "seq_len = out.past_key_values.layers[0].keys.shape[2]\n"
        "for layer in out.past_key_values.layers:\n    print(layer.keys.shape, layer.values.shape)\n",
        note="the returned cache read through its layers, as 4.57 and 5.x both allow",
    ),
    Valid(
        "import torch\n\n\ndef seq_len(past):\n    return past[0][0].shape[2]\n\n\n"
        "print(seq_len(((torch.zeros(1, 2, 3, 8), torch.zeros(1, 2, 3, 8)),)))\n" + _LOAD
        + "out = model.generate(**inputs, max_new_tokens=5)\nprint(out[0])\n",
        note="indexing a parameter that receives a legacy tuple, or generate's plain tensor result: nothing says "
             "cache",
    ),
    Valid(
        _LOAD + _GEN + "legacy = tuple((layer.keys, layer.values) for layer in out.past_key_values.layers)\n"
        "for keys, values in legacy:\n    print(keys.shape)\nfirst_keys = legacy[0][0]\n",
        note="a legacy tuple the code built itself, iterated as pairs and indexed",
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
        _LOAD + _GEN + "for entry in out.past_key_values:\n    print(entry[0].shape, entry[1].shape)\n"
        "n_layers = len(out.past_key_values)\n",
        note="iterating the returned cache with one name and reading `entry[0]` / `entry[1]` (5.x yields "
             "`(keys, values, sliding)`, 4.57 `(keys, values)`), and `len(cache)` (the layer count on both)",
    ),
    Valid(
        _LOAD + _GEN + "try:\n    keys = out.past_key_values[0][0]\nexcept TypeError:  # a 5.x cache\n"
        "    keys = out.past_key_values.layers[0].keys\n",
        note="legacy indexing inside a `try` that handles the TypeError",
    ),
    Valid(
        _SEQ2SEQ + "cross_keys = cache.cross_attention_cache.layers[0].keys\n"
        "self_keys = cache.self_attention_cache.layers[0].keys\n",
        note="an encoder-decoder's cache read through its two sub-caches' layers",
    ),
    Valid(
        _LOAD + "out = model(**inputs, use_cache=True)\nparked = list(out.past_key_values)\nfor entry in parked:\n"
        "    print(entry[0].shape, entry[1].shape)\n",
        note="`list(cache)` iterated with one name, reading `entry[0]` / `entry[1]` (4.57 pairs, 5.x triples)",
    ),
    Valid(
        _REORDER + "model.generate(torch.tensor([[1, 5, 9, 14]]), max_new_tokens=3, min_new_tokens=3, do_sample=False, "
        "pad_token_id=0)\n",
        note="a 4.x `_reorder_cache` in a module that never asks for beam search: generate never calls it",
    ),
    Valid(
        _SUBCLASS.replace("for k, v in cache]", "for k, v in ((layer.keys, layer.values) for layer in cache.layers)]")
        + "pairs = model.prefix_pairs(prefix)\n",
        note="the project's model subclass reading its own forward's cache by layers",
    ),
    Valid(
        _LOAD + "\n\ndef rebuild(outputs):\n"
        "    outputs.past_key_values = tuple((layer.keys, layer.values) for layer in outputs.past_key_values.layers)"
        "\n\n\nout = model(**inputs, use_cache=True)\nrebuild(out)\nprint(out.past_key_values[0][0].shape)\n",
        note="a helper stores a tuple of pairs on the output it is given (Whisper-Medusa's rebuilt tree cache): the "
             "caller's later index reads that tuple, not the forward's cache",
    ),
    Valid(
        _LOAD + "out = model(**inputs, use_cache=True)\n"
        "out[\"past_key_values\"] = tuple((layer.keys, layer.values) for layer in out.past_key_values.layers)\n"
        "print(out.past_key_values[0][0].shape)\n",
        note="a tuple stored on the output under its key: the attribute reads it too (a ModelOutput keeps both)",
    ),
    Valid(
        _OLD_NAMED_ATTENTION,
        note="an attention subclass's forward indexing its `past_key_value` parameter (annotated `Cache`): the decoder "
             "layers pass the cache as `past_key_values=` from 4.56.0, so that parameter is None and the read never "
             "runs",
    ),
)
