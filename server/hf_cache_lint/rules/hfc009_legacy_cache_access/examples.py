"""HFC009 examples that must be flagged; each runs unchanged under the oracle against real transformers."""

from __future__ import annotations

from hf_cache_lint.engine.base.findings import Severity
from hf_cache_lint.rules.base import Invalid, invalid
from hf_cache_lint.rules.snippets import prelude

_5X = ("5.23.0", "5.24.0", "5.25.0")
# The project's subclass of a transformers model (engine/interpreter/model_subclasses.py), run on its own forward.
_SUBCLASS = """from transformers import AutoTokenizer, LlamaForCausalLM


class Chat(LlamaForCausalLM):
    def prefix_pairs(self, prefix):
        cache = self(**prefix, use_cache=True).past_key_values
        return [(k.shape, v.shape) for k, v in cache]


tokenizer = AutoTokenizer.from_pretrained("meta-llama/Llama-3.2-1B")
model = Chat.from_pretrained("meta-llama/Llama-3.2-1B")
prefix = tokenizer("The capital of France", return_tensors="pt")
"""
_LOAD = prelude()
_GEN = "out = model.generate(**inputs, max_new_tokens=5, return_dict_in_generate=True)\n"
_SEQ_LEN = "seq_len = out.past_key_values[0][0].shape[2]\n"
_PAIR = "keys, values = past[0]\n"
_LOOP = "for keys, values in out.past_key_values:\n    print(keys.shape)\n"
_STEP = "cache = DynamicCache()\nmodel(**inputs, past_key_values=cache, use_cache=True)\n"
_VALUES = "values = cache[1][1]\n"
# A T5-style encoder-decoder stepped by hand: its forward returns an EncoderDecoderCache.
_SEQ2SEQ = ("import torch\nfrom transformers import AutoModelForSeq2SeqLM, DynamicCache, EncoderDecoderCache\n\n"
            'model = AutoModelForSeq2SeqLM.from_pretrained("google-t5/t5-small")\n'
            "source = torch.tensor([[5, 6, 7, 8, 1]])\n"
            "cache = EncoderDecoderCache(DynamicCache(), DynamicCache())\n"
            "model(input_ids=source, decoder_input_ids=torch.tensor([[0]]), past_key_values=cache, use_cache=True)\n")
_CROSS = "cross_keys = cache[0][2]\n"
_ENUMERATED = ("for i, layer in enumerate(cache):\n    self_keys, self_values, cross_keys, cross_values = layer\n"
               "    print(i, self_keys.shape)\n")
_ATTR = "        return self.cache[layer][0]\n"
_TRIM_LOOP = "    for k, v in past:\n"
_STATIC_LOOP = "for keys, values in cache:\n    print(keys.shape)\n"
_FOUR = "for self_keys, self_values, cross_keys, cross_values in cache:\n    print(cross_keys.shape)\n"
_FOUR_AT = (_SEQ2SEQ + _FOUR).index("in cache:") + 3

# A 4.4x remote-code `prepare_inputs_for_generation` override (InternLM-XComposer2's) cutting the prompt by the
# cached length: generate hands it its cache, a DynamicCache, as `past_key_values` until 5.24 (`cache=` from then).
_HOOK = ("import torch\nfrom transformers import LlamaForCausalLM\n\n\n"
         "class StepLM(LlamaForCausalLM):\n"
         "    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, **kwargs):\n"
         "        if past_key_values is not None and past_key_values.get_seq_length() > 0:\n"
         "            past_length = past_key_values[0][0].shape[2]\n"
         "            input_ids = input_ids[:, past_length:]\n"
         '        return {"input_ids": input_ids, "past_key_values": past_key_values, "use_cache": True}\n\n\n'
         'model = StepLM.from_pretrained("meta-llama/Llama-3.2-1B")\n'
         "model.generate(torch.tensor([[1, 5, 9, 14, 20]]), max_new_tokens=3, min_new_tokens=3, do_sample=False)\n")
_HOOK_READ = "            past_length = past_key_values[0][0].shape[2]\n"

# A helper that indexes the cache for its length, then walks its layers (StreamingLLM's `evict_for_space`): on 5.x
# the index raises, so the loop after it, which the index dominates, never runs (one finding, not two).
_EXPORT_LEN = "    seq_len = past[0][0].shape[2]\n"
_EXPORT = ("\n\ndef export_inputs(past):\n" + _EXPORT_LEN + "    flat = []\n    for layer in past:\n"
           "        flat.extend(list(layer))\n    return seq_len, flat\n\n\n"
           "out = model(**inputs, use_cache=True)\nseq_len, flat = export_inputs(out.past_key_values)\n")

_TREE = ("\n\nclass TreeCache(DynamicCache):\n    def last_values(self):\n        return self[1][1]\n\n\n"
         "cache = TreeCache()\nmodel(**inputs, past_key_values=cache, use_cache=True)\nvalues = cache.last_values()\n")
_ITEM_LOOP = "for layer in cache:\n    keys, values = layer\n    print(keys.shape)\n"

# A converter that wraps a legacy tuple and hands back anything else as it came: a forward's cache is no tuple.
_CONVERTER = ("\n\ndef to_cache(past):\n    if isinstance(past, tuple):\n        return DynamicCache(past)\n"
              "    return past\n\n\ncache = to_cache(out.past_key_values)\n")
_CONVERTED_LEN = "seq_len = cache[0][0].shape[2]\n"

# A cache parked on the model between calls (FastChat's `model._fschat_pkv`), kept from a prefill's or a decode
# step's forward: the next call reads its length the 4.x way.
_PARKED = ("\n\ndef turn(ids, steps=2):\n"
           "    past = model._parked if hasattr(model, \"_parked\") else None\n"
           "    start = 0 if past is None else past[0][0].shape[-2]\n"
           "    print(start)\n    for i in range(steps):\n        if i == 0:\n"
           "            out = model(input_ids=ids, past_key_values=past, use_cache=True)\n        else:\n"
           "            out = model(input_ids=ids[:, -1:], past_key_values=past, use_cache=True)\n"
           "        past = out.past_key_values\n    model._parked = past\n\n\n"
           "turn(inputs.input_ids)\nturn(inputs.input_ids)\n")
_PARKED_LEN = "    start = 0 if past is None else past[0][0].shape[-2]\n"

# A step helper returning a tuple on each of two paths (Freeze-Omni's `_generate_one_step`: `return None,
# outputs["past_key_values"], "cl", None` or `return last_id, outputs["past_key_values"], "cs", ...`), unpacked by
# its caller: the cache is at the same place on either path.
_STEP_LEN = "seq_len = past[0][0].shape[2]\n"
_TWO_RETURNS = ("\n\ndef step(ids, prefill):\n    out = model(ids, use_cache=True)\n    if prefill:\n"
                "        return None, out.past_key_values, \"listen\"\n"
                "    return ids[:, -1:], out.past_key_values, \"speak\"\n\n\n"
                "last, past, stage = step(inputs.input_ids, inputs.input_ids.shape[1] > 4)\n" + _STEP_LEN)
# The model's keywords built in either branch of an `if` (a dict in each), then given the cache as an item and read
# back through it (Freeze-Omni's `recognize`), the length computed by a helper inside a list display.
_MASK_LEN = "    return past_key_values[0][0].size(2)\n"
_BRANCH_DICTS = ("import torch\n" + prelude() + "\n\ndef cached_length(past_key_values):\n" + _MASK_LEN + "\n\n"
                 "def recognize(ids, past, speaking):\n    if speaking:\n        kw = {\"input_ids\": ids[:, -1:]}\n"
                 "    else:\n        kw = {\"input_ids\": ids}\n    kw[\"past_key_values\"] = past\n"
                 "    return torch.full([1, cached_length(kw[\"past_key_values\"])], True)\n\n\n"
                 "out = model(**inputs, use_cache=True)\n"
                 "mask = recognize(inputs.input_ids, out.past_key_values, inputs.input_ids.shape[1] > 4)\n")

_EXPAND = "batch = [[t.expand(3, -1, -1, -1) for t in past[i]] for i in range(len(past))]\n"

# A list of forward passes' caches (TurboRAG's chunk caches: one forward per document chunk, each
# `past_key_values` appended), behind a prefix cache, joined layer by layer: each item is a DynamicCache.
_CHUNKS = ("import torch\n\n\ndef chunk_caches(chunks):\n    caches = []\n    for chunk in chunks:\n"
           "        caches.append(model(chunk, use_cache=True).past_key_values)\n    return caches\n\n\n"
           "prefix = model(**inputs, use_cache=True).past_key_values\n"
           "caches = [prefix] + chunk_caches([inputs.input_ids, inputs.input_ids])\n")
_STACKED = "keys = torch.cat([past[0][0] for past in caches], dim=2)\n"
_EACH = "for past in caches:\n    print(past[0][0].shape)\n"
_CAT_KEYS = "    return torch.cat([past[layer][0] for past in caches], dim=2)\n"
_STACKER = ("\n\ndef cat_keys(caches, layer):\n" + _CAT_KEYS + "\n\n"
            "stacked = tuple(cat_keys(caches, i) for i in range(len(caches[0].layers)))\n")

# A forward's cache parked on the model as `list(cache)` (Kangaroo's `model.past_key_values = list(out.past_key_values)`),
# cut layer by layer later: the list's items are what the cache iterates as.
_PARKED_LIST = ("out = model(**inputs, use_cache=True)\nmodel.parked = list(out.past_key_values)\n\n\n"
                "def rollback(n):\n    kept = []\n    for k, v in model.parked:\n"
                "        kept.append((k[:, :, :n], v[:, :, :n]))\n    return kept\n\n\nkept = rollback(3)\n")
# Blocks of a context joined into one cache (Star-Attention's `kv_rank`): the empty list before the first block is
# falsy, so the first pass keeps the block's cache and the second indexes it.
_BLOCKS_LINE = "    kv_rank = kv_block if not kv_rank else [kv_rank[i][0] for i in range(2)]\n"
_BLOCKS = ("kv_rank = []\nfor chunk in (inputs.input_ids, inputs.input_ids):\n"
           "    kv_block = model(chunk, use_cache=True).past_key_values\n" + _BLOCKS_LINE)
# The same with the anchor cut off every block after the first (Star-Attention's `_discard_anchor`): a block is the
# forward's cache on the first pass and a list on the others, so the name carried to the second pass holds the
# first block's cache, whatever the later blocks are.
_CUT_LINE = "    kv_rank = kv_block if not kv_rank else [kv_rank[i][0] for i in range(2)]\n"
_CUT_BLOCKS = ("kv_rank = []\nfor idx, chunk in enumerate((inputs.input_ids, inputs.input_ids)):\n"
               "    kv_block = model(chunk, use_cache=True).past_key_values\n"
               "    if idx > 0:\n        kv_block = [[la.keys[:, :, 2:], la.values[:, :, 2:]] for la in kv_block.layers]\n"
               + _CUT_LINE)
# Batches that each keep their forward's cache (TGI's `CausalLMBatch.past_key_values`), joined by a loop over a list
# of them: each item is one of the project's objects, and its member the cache it kept.
_BATCH_LINE = "    print(batch.past[0][0].shape)\n"
_BATCHES = ("\n\nclass Batch:\n    def __init__(self, ids):\n        self.ids = ids\n        self.past = None\n\n"
            "    def step(self):\n        self.past = model(self.ids, use_cache=True).past_key_values\n\n\n"
            "first, second = Batch(inputs.input_ids), Batch(inputs.input_ids)\nfirst.step()\nsecond.step()\n"
            "for batch in [first, second]:\n" + _BATCH_LINE)
# A model subclass's 4.x `_reorder_cache` (index-tts's GPT2InferenceModel): generate's beam search calls it with its
# cache at every step, on every release.
_REORDER = ("import torch\nfrom transformers import GPT2LMHeadModel\n\n\nclass BeamLM(GPT2LMHeadModel):\n"
            "    @staticmethod\n    def _reorder_cache(past, beam_idx):\n"
            "        return tuple(tuple(state.index_select(0, beam_idx) for state in layer) for layer in past)\n\n\n"
            'model = BeamLM.from_pretrained("openai-community/gpt2")\n')
_BEAMS = ("model.generate(torch.tensor([[1, 5, 9, 14]]), num_beams=2, max_new_tokens=3, min_new_tokens=3, "
          "do_sample=False, pad_token_id=0)\n")

# A model output's cache read part by part under a test of the output (exporters' `validate_model_outputs`): the
# first read raises where the test holds, so the second, which it dominates under the same test, never runs.
_TESTED = ("import torch\nfrom transformers import GPT2LMHeadModel\n\n"
           'model = GPT2LMHeadModel.from_pretrained("openai-community/gpt2")\n\n\n'
           "def presents(reference_model, named):\n"
           "    out = reference_model(**named, use_cache=True, return_dict=True)\n"
           '    if "past_key_values" in out:\n'
           '        out["present_key"] = out["past_key_values"][0][0]\n'
           '        out["present_value"] = out["past_key_values"][0][1]\n'
           "    return out\n\n\n"
           'presents(model, {"input_ids": torch.tensor([[1, 5, 9, 14]])})\n')

# ONNX Runtime's Whisper export splits a seq2seq cache layer by layer, asserting four items before unpacking them:
# from 5.0 an EncoderDecoderCache's layer is six items, so the assert raises first.
_ASSERT_FOUR = '    assert len(layer) == 4, f"Expected to have four items. Got {len(layer)}"\n'
_ASSERTED = ("for i, layer in enumerate(cache):\n" + _ASSERT_FOUR +
             "    self_keys, self_values, cross_keys, cross_values = layer\n    print(i, self_keys.shape)\n")

# A session's length check in a `try` whose handler raises again as another error (MiniCPM-o's `clear`): the
# handler does not handle the TypeError, it changes its class (5.x raise the ValueError).
_RERAISE_LEN = "    seq_len = out.past_key_values[0][0].shape[2]\n"
_RERAISE = ("out = model(**inputs, use_cache=True)\ntry:\n" + _RERAISE_LEN +
            "except Exception as e:\n    raise ValueError(f\"length error: {e}\")\n")
# The pairs of a forward's cache read in a list comprehension over its string key (QEfficient's reference step).
_KEYED_PAIRS = "pairs = [(k.detach(), v.detach()) for k, v in out[\"past_key_values\"]]\n"

# A rollback that hands each layer of a forward's cache to a helper cutting its tensors (LMOps' LLMA decoder:
# `kv = make_kv_tupe(kv, ...)`, whose loop reads `kv.shape[2]` of each item).
_CUT_LAYER = ("\n\ndef cut_layer(layer, n):\n    kept = []\n    for t in layer:\n        seq_len = t.shape[2]\n"
              "        kept.append(t[:, :, :seq_len - n, :])\n    return tuple(kept)\n\n\n"
              "out = model(**inputs, use_cache=True)\nrolled = []\nfor layer in out.past_key_values:\n"
              "    rolled.append(cut_layer(layer, 1))\n")

# A callable object of the project's own set on the model and called on a forward's cache (attention_sinks'
# `model.attention_sink_kv_cache = AttentionSinkKVCache()`), and the forward wrapper that calls it, patched in with
# `types.MethodType` over the decoder's forward (`inject_attention_sinks`): it runs at every forward pass.
_SINK_LEN = "        print(past_key_values[0][0].shape[2])\n"
_SINK = ("\n\nclass SinkLength:\n    def __call__(self, past_key_values):\n        if past_key_values is None:\n"
         "            return None\n" + _SINK_LEN + "        return past_key_values\n")
_INJECT = ("\n\ndef inject(model):\n    base = model.model\n    base.sink_length = SinkLength()\n"
           "    old_forward = base.forward\n\n    def wrapped_forward(self, *args, **kwargs):\n"
           "        outputs = old_forward(*args, **kwargs)\n"
           "        outputs.past_key_values = self.sink_length(outputs.past_key_values)\n        return outputs\n\n"
           "    base.forward = types.MethodType(wrapped_forward, base)\n    return model\n\n\n"
           "model = inject(model)\nout = model.generate(**inputs, max_new_tokens=3, min_new_tokens=3, do_sample=False)\n")
_PARKED_CALL = ("\n\nmodel.sink_length = SinkLength()\nout = model(**inputs, use_cache=True)\n"
                "model.sink_length(out.past_key_values)\n")
# Higgs Audio's cache copy: both caches tested with `isinstance(..., DynamicCache)` in one `and`, the source indexed
# per layer (the other operand's test is no compat probe of the indexed one).
_PAIR_ITEM = "            key_cache, value_cache = from_cache[layer_idx]\n"
_COPY_PAIR = ("\n\ndef copy_kv_cache(from_cache, to_cache):\n"
              "    if isinstance(from_cache, DynamicCache) and isinstance(to_cache, DynamicCache):\n"
              "        for layer_idx in range(len(from_cache)):\n" + _PAIR_ITEM
              + "            to_cache.update(key_cache, value_cache, layer_idx)\n\n\n"
              "bucket = DynamicCache()\ncopy_kv_cache(model(**inputs, use_cache=True).past_key_values, bucket)\n"
              "assert bucket.get_seq_length() == inputs.input_ids.shape[1]\n")

INVALID: tuple[Invalid, ...] = (
    invalid(
        _LOAD + "out = model(**inputs, use_cache=True)\n"
        "kept = [(keys.clone(), values.clone(), sliding) for keys, values, sliding in out.past_key_values]\n",
        flagged="out.past_key_values",
        fixes={},
        versions=("4.57.6",),
        runtime={"4.57.6": "OTHER", "5.23.0": "OK", "5.24.0": "OK", "5.25.0": "OK"},  # a plain ValueError
        message_contains="ValueError: not enough values to unpack (expected 3, got 2)",
        note="5.x's triples (`keys, values, sliding_window`) unpacked from a forward's cache (lerobot's PI0 clone "
             "of the prefix cache): 5.x run it, 4.57.6's DynamicCache yields pairs",
    ),
    invalid(
        _LOAD + _PARKED_LIST,
        flagged="model.parked",
        fixes={},
        versions=_5X,
        runtime={"4.57.6": "OK", "5.23.0": "OTHER", "5.24.0": "OTHER", "5.25.0": "OTHER"},  # a plain ValueError
        message_contains="holds `list(...)` of a transformers cache",
        note="`list(cache)` parked on the model and unpacked as pairs in a later call (no fix: the list is made "
             "elsewhere, and a list has no `.layers`)",
    ),
    invalid(
        _LOAD + _BLOCKS,
        flagged="kv_rank[i]",
        fixes={"Use `.layers[i].keys`": (_BLOCKS_LINE, "    kv_rank = kv_block if not kv_rank else "
                                                        "[kv_rank.layers[i].keys for i in range(2)]\n")},
        versions=_5X,
        portable=True,
        severity=Severity.WARNING,
        message_contains="TypeError: 'DynamicCache' object is not subscriptable",
        note="a loop-carried name that starts as the empty list: the first pass keeps the block's cache (`not []` "
             "holds), the second indexes it",
    ),
    invalid(
        _LOAD + _CUT_BLOCKS,
        flagged="kv_rank[i]",
        fixes={"Use `.layers[i].keys`": (_CUT_LINE, "    kv_rank = kv_block if not kv_rank else "
                                                     "[kv_rank.layers[i].keys for i in range(2)]\n")},
        versions=_5X,
        portable=True,
        severity=Severity.WARNING,
        message_contains="TypeError: 'DynamicCache' object is not subscriptable",
        note="a loop-carried name that holds the first block's cache or, after it, the cut blocks' lists: indexing "
             "it fails on the pass after the first, the cache's",
    ),
    invalid(
        _LOAD + _BATCHES,
        flagged="batch.past[0]",
        fixes={"Use `.layers[0].keys`": (_BATCH_LINE, "    print(batch.past.layers[0].keys.shape)\n")},
        versions=_5X,
        portable=True,
        message_contains="TypeError: 'DynamicCache' object is not subscriptable",
        note="a loop over a list of the project's objects: each item's member is the cache its method kept",
    ),
    invalid(
        _REORDER + _BEAMS,
        flagged="state.index_select",
        fixes={},
        versions=_5X,
        runtime={"4.57.6": "OK", "5.23.0": "OTHER", "5.24.0": "OTHER", "5.25.0": "OTHER"},  # AttributeError on None
        message_contains="beam search passes to `_reorder_cache`",
        note="a model subclass's `_reorder_cache` walking each layer's tensors, run by generate's beam search",
    ),
    invalid(
        _LOAD + _GEN + "past = out.past_key_values\n" + _EXPAND,
        flagged="past[i]",
        fixes={"Use `.layers[i]`": (_EXPAND, "batch = [[t.expand(3, -1, -1, -1) for t in (past.layers[i].keys, "
                                             "past.layers[i].values)] for i in range(len(past))]\n")},
        versions=_5X,
        portable=True,
        message_contains="TypeError: 'DynamicCache' object is not subscriptable",
        note="the cache indexed inside a nested comprehension (a prefix cache expanded to a batch, layer by layer)",
    ),
    invalid(
        prelude("DynamicCache") + _GEN + _CONVERTER + _CONVERTED_LEN,
        flagged="cache[0]",
        fixes={"Use `.layers[0].keys`": (_CONVERTED_LEN, "seq_len = cache.layers[0].keys.shape[2]\n")},
        versions=_5X,
        portable=True,
        message_contains="TypeError: 'DynamicCache' object is not subscriptable",
        note="the returned cache passed through a helper that converts only a tuple (`isinstance(past, tuple)` is "
             "never true of a cache, so the helper returns the cache itself), then indexed as the legacy tuple",
    ),
    invalid(
        prelude("DynamicCache") + _STEP + _ITEM_LOOP,
        flagged="keys, values = layer",
        fixes={"Iterate `.layers`": ("for layer in cache:\n",
                                     "for layer in ((layer.keys, layer.values) for layer in cache.layers):\n")},
        versions=_5X,
        portable=True,
        runtime={"4.57.6": "OK", "5.23.0": "OTHER", "5.24.0": "OTHER", "5.25.0": "OTHER"},  # a plain ValueError
        message_contains="`for layer in cache:` with `k, v = layer`",
        note="the loop variable unpacked in the body: the same three-item layers, reported at the unpacking "
             "statement, where Python raises (the loop header runs)",
    ),
    invalid(
        _LOAD + _GEN + _SEQ_LEN,
        flagged="out.past_key_values[0]",
        fixes={"Use `.layers[0].keys`": (_SEQ_LEN, "seq_len = out.past_key_values.layers[0].keys.shape[2]\n")},
        versions=_5X,
        portable=True,
        message_contains="TypeError: 'DynamicCache' object is not subscriptable",
        note="legacy-tuple indexing of the returned cache (`past_key_values[0][0].shape[2]`, the 4.x sequence length)",
    ),
    invalid(
        _LOAD + _GEN + "past = out.past_key_values\n" + _PAIR,
        flagged="past[0]",
        fixes={"Use `.layers[0]`": (_PAIR, "keys, values = (past.layers[0].keys, past.layers[0].values)\n")},
        versions=_5X,
        portable=True,
        note="a name bound to the returned cache, indexed for the `(keys, values)` pair of layer 0",
    ),
    invalid(
        _LOAD + _GEN + _LOOP,
        flagged="out.past_key_values",
        fixes={"Iterate `.layers`": (_LOOP, "for keys, values in ((layer.keys, layer.values) for layer in "
                                            "out.past_key_values.layers):\n    print(keys.shape)\n")},
        versions=_5X,
        portable=True,
        runtime={"4.57.6": "OK", "5.23.0": "OTHER", "5.24.0": "OTHER", "5.25.0": "OTHER"},  # a plain ValueError: see own_cases
        message_contains="ValueError: too many values to unpack (expected 2)",
        note="`for k, v in cache:`: a 5.x DynamicCache yields `(keys, values, sliding_window_tensor)`",
    ),
    invalid(
        prelude("DynamicCache") + _STEP + _VALUES,
        flagged="cache[1]",
        fixes={"Use `.layers[1].values`": (_VALUES, "values = cache.layers[1].values\n")},
        versions=_5X,
        portable=True,
        note="a cache built here and filled by a forward call (a manual decode loop, no generate)",
    ),
    invalid(
        _SEQ2SEQ + _CROSS,
        flagged="cache[0]",
        fixes={"Use `.cross_attention_cache.layers[0].keys`": (
            _CROSS, "cross_keys = cache.cross_attention_cache.layers[0].keys\n")},
        versions=_5X,
        portable=True,
        message_contains="TypeError: 'EncoderDecoderCache' object is not subscriptable",
        note="an encoder-decoder's cache indexed for the cross-attention keys (part 2 of the legacy 4-tuple)",
    ),
    Invalid(
        _SEQ2SEQ + _FOUR,
        flagged="cache",
        occurrence=(_SEQ2SEQ + _FOUR)[:_FOUR_AT].count("cache"),
        versions=_5X,
        runtime={"4.57.6": "OK", "5.23.0": "OTHER", "5.24.0": "OTHER", "5.25.0": "OTHER"},
        message_contains="ValueError: too many values to unpack (expected 4)",
        note="`for sk, sv, ck, cv in cache:` over an EncoderDecoderCache: 5.x yields six-tuples",
    ),
    # Followed by the interpreter (the cache_use facts): a parameter a caller fills, an attribute.
    invalid(
        prelude() + _CHUNKS + _STACKED,
        flagged="past[0]",
        fixes={"Use `.layers[0].keys`": (_STACKED, "keys = torch.cat([past.layers[0].keys for past in caches], "
                                                   "dim=2)\n")},
        versions=_5X,
        portable=True,
        message_contains="TypeError: 'DynamicCache' object is not subscriptable",
        note="an item of a list of forward passes' caches (appended in a loop, behind a prefix cache) indexed in a "
             "comprehension over the list",
    ),
    invalid(
        prelude() + _CHUNKS + _STACKER,
        flagged="past[layer]",
        fixes={"Use `.layers[layer].keys`": (_CAT_KEYS, "    return torch.cat([past.layers[layer].keys for past in "
                                                        "caches], dim=2)\n")},
        versions=_5X,
        portable=True,
        message_contains="TypeError: 'DynamicCache' object is not subscriptable",
        note="that list handed to a helper called in a generator expression's element (TurboRAG's layer stacking: "
             "the helper runs once, as a loop body would, with the generator's variable unknown)",
    ),
    invalid(
        prelude() + _CHUNKS + _EACH,
        flagged="past[0]",
        fixes={"Use `.layers[0].keys`": (_EACH, "for past in caches:\n    print(past.layers[0].keys.shape)\n")},
        versions=_5X,
        portable=True,
        message_contains="TypeError: 'DynamicCache' object is not subscriptable",
        note="the loop variable of a `for` over that list",
    ),
    invalid(
        prelude() + "\n\ndef trim_pairs(past, keep):\n    trimmed = []\n" + _TRIM_LOOP
        + "        trimmed.append((k[:, :, :keep], v[:, :, :keep]))\n    return tuple(trimmed)\n\n\n"
        "step = model(**inputs, use_cache=True)\ntrimmed = trim_pairs(step.past_key_values, 2)\n",
        flagged="past",
        occurrence=1,
        fixes={"Iterate `.layers`": (_TRIM_LOOP, "    for k, v in ((layer.keys, layer.values) for layer in past.layers):\n")},
        portable=True,
        versions=_5X,
        runtime={"4.57.6": "OK", "5.23.0": "OTHER", "5.24.0": "OTHER", "5.25.0": "OTHER"},
        message_contains="ValueError: too many values to unpack (expected 2)",
        note="a helper's parameter that a caller fills with a forward pass's cache (speculative decoding's trim)",
    ),
    invalid(
        prelude("DynamicCache") + "\n\nclass PrefixCache:\n    def __init__(self):\n"
        "        self.cache = DynamicCache()\n        model(**inputs, past_key_values=self.cache, use_cache=True)\n\n"
        "    def keys(self, layer):\n" + _ATTR + "\n\nprint(PrefixCache().keys(0).shape)\n",
        flagged="self.cache[layer]",
        fixes={"Use `.layers[layer].keys`": (_ATTR, "        return self.cache.layers[layer].keys\n")},
        versions=_5X,
        portable=True,
        note="a cache held in an attribute (a prompt cache), indexed in a method",
    ),
    invalid(
        prelude("StaticCache") + "cache = StaticCache(config=model.config, max_cache_len=32)\n"
        "model(**inputs, past_key_values=cache, use_cache=True)\n" + _STATIC_LOOP,
        flagged="cache",
        occurrence=4,
        fixes={"Iterate `.layers`": (_STATIC_LOOP, "for keys, values in ((layer.keys, layer.values) for layer in "
                                                   "cache.layers):\n    print(keys.shape)\n")},
        versions=_5X,
        portable=True,
        message_contains="TypeError: 'StaticCache' object is not iterable",
        runtime={"4.57.6": "OK", "5.23.0": "OTHER", "5.24.0": "OTHER", "5.25.0": "OTHER"},
        note="a StaticCache iterated: 5.x static caches do not iterate at all",
    ),
    Invalid(
        _SEQ2SEQ + _ENUMERATED,
        flagged="self_keys, self_values, cross_keys, cross_values = layer",
        versions=_5X,
        runtime={"4.57.6": "OK", "5.23.0": "OTHER", "5.24.0": "OTHER", "5.25.0": "OTHER"},
        message_contains="ValueError: too many values to unpack (expected 4)",
        note="`for i, layer in enumerate(cache):` over an EncoderDecoderCache, each layer unpacked into four names "
             "in the body (a rolling-window copy of an audio model's cache): 5.x yields six-tuples, and the unpacking "
             "statement raises",
    ),
    Invalid(
        _SEQ2SEQ + "copy = [[t.clone() for t in layer] for layer in cache]\n",
        flagged="t.clone",
        versions=_5X,
        runtime={"4.57.6": "OK", "5.23.0": "OTHER", "5.24.0": "OTHER", "5.25.0": "OTHER"},
        message_contains="AttributeError: 'NoneType' object has no attribute 'clone'",
        note="each item of an EncoderDecoderCache's layers copied as a tensor: 5.x's six-tuples hold None for the "
             "sliding-window tensors of a model without sliding windows",
    ),
    Invalid(
        prelude() + "cache = model(**inputs, use_cache=True).past_key_values\n"
        "for layer in cache:\n    for t in layer:\n        print(t.shape)\n",
        flagged="t.shape",
        versions=_5X,
        runtime={"4.57.6": "OK", "5.23.0": "OTHER", "5.24.0": "OTHER", "5.25.0": "OTHER"},
        message_contains="AttributeError: 'NoneType' object has no attribute 'shape'",
        note="each item of a DynamicCache's layers read as a tensor: 5.x's triples end with None for a full-attention "
             "layer",
    ),
    invalid(
        prelude("DynamicCache") + _TREE,
        flagged="self[1]",
        fixes={"Use `.layers[1].values`": ("        return self[1][1]\n", "        return self.layers[1].values\n")},
        versions=_5X,
        portable=True,
        message_contains="TypeError: 'TreeCache' object is not subscriptable",
        note="the project's own `DynamicCache` subclass indexing itself (it defines no `__getitem__`: the one it "
             "inherits is gone from 5.0)",
    ),
    invalid(
        _HOOK,
        flagged="past_key_values[0]",
        fixes={"Use `.layers[0].keys`": (_HOOK_READ,
                                         "            past_length = past_key_values.layers[0].keys.shape[2]\n")},
        versions=("5.23.0",),
        portable=True,
        severity=Severity.WARNING,  # under the body's own `if` (HFC009's conditional reads)
        message_contains="TypeError: 'DynamicCache' object is not subscriptable",
        note="a `prepare_inputs_for_generation` override of a transformers model indexing the cache generate hands "
             "it (from 5.24 it comes as `cache=`, and `past_key_values` is None: HFC010's finding)",
    ),
    invalid(
        _SUBCLASS + "pairs = model.prefix_pairs(prefix)\n",
        flagged="cache",
        occurrence=_SUBCLASS.count("cache", 0, _SUBCLASS.index("for k, v in cache") + len("for k, v in ")),
        fixes={"Iterate `.layers`": ("for k, v in cache]", "for k, v in ((layer.keys, layer.values) for layer in cache.layers)]")},
        versions=_5X,
        runtime={"4.57.6": "OK", "5.23.0": "OTHER", "5.24.0": "OTHER", "5.25.0": "OTHER"},
        message_contains="ValueError: too many values to unpack (expected 2)",
        note="the project's subclass of a transformers model: `self(...)` in its method is the model's forward (it "
             "defines none), whose cache is unpacked as pairs",
    ),
    invalid(
        _LOAD + _PARKED,
        flagged="past[0]",
        fixes={"Use `.layers[0].keys`": (_PARKED_LEN,
                                        "    start = 0 if past is None else past.layers[0].keys.shape[-2]\n")},
        versions=_5X,
        severity=Severity.WARNING,
        note="a cache kept on the model between calls, from whichever forward of the loop ran last: the second "
             "call indexes it",
    ),
    invalid(
        _LOAD + "out = model(**inputs, use_cache=True)\nflat = []\nfor layer in out.past_key_values:\n"
        "    flat.extend(list(layer))\nassert len(flat) == 2 * model.config.num_hidden_layers\n",
        flagged="out.past_key_values",
        fixes={},
        versions=_5X,
        severity=Severity.WARNING,
        runtime={"4.57.6": "OK", "5.23.0": "OTHER", "5.24.0": "OTHER", "5.25.0": "OTHER"},
        message_contains="adds three items per layer",
        note="a cache flattened layer by layer (a device compiler's flat inputs): no error, a third item per "
             "layer (the assert shows it)",
    ),
    invalid(
        _LOAD + _EXPORT,
        flagged="past[0]",
        fixes={"Use `.layers[0].keys`": (_EXPORT_LEN, "    seq_len = past.layers[0].keys.shape[2]\n")},
        versions=_5X,
        message_contains="TypeError: 'DynamicCache' object is not subscriptable",
        note="a helper that reads the length by indexing and then walks the layers (StreamingLLM's "
             "`evict_for_space`): the index raises, so the loop after it never runs and is not reported (the fixed "
             "helper runs clean)",
    ),
    invalid(
        _TESTED,
        flagged='out["past_key_values"][0]',
        fixes={},
        versions=_5X,
        severity=Severity.WARNING,
        message_contains="This happens only if `\"past_key_values\" in out` holds",
        note="a forward's cache read part by part under a test of the output (exporters' validation): the first "
             "read raises where the test holds, so the next line's read, under the same test, is not reported",
    ),
    invalid(
        _SEQ2SEQ + _ASSERTED,
        flagged=_ASSERT_FOUR.strip(),
        fixes={},
        versions=_5X,
        runtime={"4.57.6": "OK", "5.23.0": "OTHER", "5.24.0": "OTHER", "5.25.0": "OTHER"},  # the AssertionError
        message_contains="AssertionError (`len(layer) == 4` fails: each layer is 6 items)",
        note="the loop asserts four items per layer before unpacking them (ONNX Runtime's Whisper export): the "
             "assert raises first, and the finding stands there",
    ),
    invalid(
        _LOAD + _RERAISE,
        flagged="out.past_key_values[0]",
        fixes={"Use `.layers[0].keys`": (_RERAISE_LEN, "    seq_len = out.past_key_values.layers[0].keys.shape[2]\n")},
        versions=_5X,
        portable=True,
        runtime={"4.57.6": "OK", "5.23.0": "OTHER", "5.24.0": "OTHER", "5.25.0": "OTHER"},  # the handler's ValueError
        message_contains="TypeError: 'DynamicCache' object is not subscriptable",
        note="the index in a `try` whose `except Exception` handler raises again as a ValueError (MiniCPM-o's "
             "session `clear`): the handler does not handle the error, it renames it",
    ),
    invalid(
        _LOAD + "out = model(**inputs, use_cache=True)\n" + _KEYED_PAIRS,
        flagged='out["past_key_values"]',
        fixes={"Iterate `.layers`": (_KEYED_PAIRS, "pairs = [(k.detach(), v.detach()) for k, v in ((layer.keys, "
                                                   "layer.values) for layer in out[\"past_key_values\"].layers)]\n")},
        portable=True,
        versions=_5X,
        runtime={"4.57.6": "OK", "5.23.0": "OTHER", "5.24.0": "OTHER", "5.25.0": "OTHER"},  # a plain ValueError
        message_contains="ValueError: too many values to unpack (expected 2)",
        note="a list comprehension unpacking the pairs of a forward's cache read by its string key "
             "(QEfficient's reference decode step)",
    ),
    Invalid(
        _LOAD + _CUT_LAYER,
        flagged="t.shape",
        versions=_5X,
        runtime={"4.57.6": "OK", "5.23.0": "OTHER", "5.24.0": "OTHER", "5.25.0": "OTHER"},
        message_contains="AttributeError: 'NoneType' object has no attribute 'shape'",
        note="each layer of a forward's cache handed to a module function that walks its items as tensors (LMOps' "
             "LLMA rollback): 5.x's triples hold None for the sliding-window tensor, and the helper's read raises",
    ),
    invalid(
        "import types\n\n" + _LOAD + _SINK + _INJECT,
        flagged="past_key_values[0]",
        fixes={"Use `.layers[0].keys`": (_SINK_LEN, "        print(past_key_values.layers[0].keys.shape[2])\n")},
        versions=_5X,
        portable=True,
        message_contains="TypeError: 'DynamicCache' object is not subscriptable",
        note="a forward wrapper patched over the decoder's forward with `types.MethodType` (attention_sinks' "
             "`inject_attention_sinks`) hands the original forward's cache to a callable object the code set on the "
             "model, which indexes it: the wrapper runs at every forward pass of generate",
    ),
    invalid(
        _LOAD + _SINK + _PARKED_CALL,
        flagged="past_key_values[0]",
        fixes={"Use `.layers[0].keys`": (_SINK_LEN, "        print(past_key_values.layers[0].keys.shape[2])\n")},
        versions=_5X,
        portable=True,
        message_contains="TypeError: 'DynamicCache' object is not subscriptable",
        note="a callable object of the project's own kept as an attribute of the model, called on a forward's cache",
    ),
    invalid(
        prelude("DynamicCache") + _COPY_PAIR,
        flagged="from_cache[layer_idx]",
        fixes={"Use `.layers[layer_idx]`": (_PAIR_ITEM, _PAIR_ITEM.replace(
            "from_cache[layer_idx]", "(from_cache.layers[layer_idx].keys, from_cache.layers[layer_idx].values)"))},
        versions=_5X,
        portable=True,
        severity=Severity.WARNING,
        runtime={"4.57.6": "OK", "5.23.0": "HFC009", "5.24.0": "HFC009", "5.25.0": "HFC009"},
        note="a helper indexing a cache inside `isinstance(a, DynamicCache) and isinstance(b, DynamicCache)`",
    ),
    invalid(
        _LOAD + _TWO_RETURNS,
        flagged="past[0]",
        fixes={"Use `.layers[0].keys`": (_STEP_LEN, "seq_len = past.layers[0].keys.shape[2]\n")},
        versions=_5X,
        portable=True,
        message_contains="TypeError: 'DynamicCache' object is not subscriptable",
        note="a helper returning a tuple on each of two paths, unpacked by its caller: the name gets the cache "
             "either path puts at its place",
    ),
    invalid(
        _BRANCH_DICTS,
        flagged="past_key_values[0]",
        fixes={"Use `.layers[0].keys`": (_MASK_LEN, "    return past_key_values.layers[0].keys.size(2)\n")},
        versions=_5X,
        portable=True,
        message_contains="TypeError: 'DynamicCache' object is not subscriptable",
        note="a dict built in either branch of an `if` given the cache as an item, read back into a helper called "
             "inside a list display (`torch.full([1, cached_length(kw[\"past_key_values\"])], True)`)",
    ),
)


__all__ = ["INVALID", "Invalid"]
