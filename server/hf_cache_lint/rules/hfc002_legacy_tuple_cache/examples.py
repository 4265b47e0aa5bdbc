"""HFC002 examples that must be flagged; each runs unchanged under the oracle against real transformers."""

from __future__ import annotations

from hf_cache_lint.engine.base.findings import Severity
from hf_cache_lint.rules.base import Invalid, invalid

_LOAD = """from transformers import AutoModelForCausalLM, AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("meta-llama/Llama-3.2-1B")
model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")
prefix = tokenizer("The capital of France", return_tensors="pt")
inputs = tokenizer("The capital of France is", return_tensors="pt")
out = model(**prefix, use_cache=True)
"""
_IMPORT = ("from transformers import AutoModelForCausalLM, AutoTokenizer\n",
           "from transformers import AutoModelForCausalLM, AutoTokenizer, DynamicCache\n")
# The model named by its class: what a forward does with a tuple before 5.0 is the class's (the release table's
# `tuple_forward:`); an Auto class and a checkpoint name do not say which model it is.
_LOAD_LLAMA = _LOAD.replace("AutoModelForCausalLM", "LlamaForCausalLM")
_IMPORT_LLAMA = (_IMPORT[0].replace("AutoModelForCausalLM", "LlamaForCausalLM"),
                 _IMPORT[1].replace("AutoModelForCausalLM", "LlamaForCausalLM"))

# 4.x converts the tuple and only warns (a deprecation: an Info finding); 5.x raise.
_WARN_457 = {"severity": {"4.57.6": Severity.INFO}, "runtime": {"4.57.6": "OK"}}
# 5.x lost `to_legacy_cache()`: the run stops there with an AttributeError before generate (HFC007 reports it).
_GONE_5X = {"versions": ("4.57.6",), "severity": Severity.INFO,
            "runtime": {"4.57.6": "OK", "5.23.0": "HFC007", "5.24.0": "HFC007", "5.25.0": "HFC007"}}




def _ignore(line: str) -> tuple[tuple[str, str], ...]:
    return ((line, line.rstrip("\n") + "  # hf-cache-lint: ignore[HFC002]\n"),)


_T5 = """import torch
from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("google-t5/t5-small")
model = AutoModelForSeq2SeqLM.from_pretrained("google-t5/t5-small")
inputs = tokenizer("translate English to German: The house is wonderful.", return_tensors="pt")
start = torch.zeros((1, 1), dtype=torch.long)  # T5 starts decoding from its pad token, 0
out = model(**inputs, decoder_input_ids=start, use_cache=True)
cache = out.past_key_values
"""
# An encoder-decoder's legacy layer: self-attention keys and values, then cross-attention keys and values.
_T5_LAYERS = ("legacy = tuple((s.keys, s.values, c.keys, c.values)\n"
              "               for s, c in zip(cache.self_attention_cache.layers, cache.cross_attention_cache.layers))\n")
_T5_CALL = ("result = model.generate(**inputs, decoder_input_ids=torch.cat([start, start], dim=1), past_key_values=legacy,\n"
            "                        max_new_tokens=5)\n")
_T5_FORWARD = "step = model(**inputs, decoder_input_ids=start, past_key_values=legacy, use_cache=True)\n"
_LAYERS = "legacy = tuple((layer.keys, layer.values) for layer in out.past_key_values.layers)\n"
_CALL = "result = model.generate(**inputs, past_key_values=legacy, max_new_tokens=5)\n"
_FORWARD = "step = model(**inputs, past_key_values=legacy, use_cache=True)\n"
_LIST = "legacy = [(layer.keys, layer.values) for layer in out.past_key_values.layers]\n"
# A speculative-decoding draft step (Chinese-LLaMA-Alpaca-2's): it re-feeds the last accepted token on the cache
# unless the caller says the draft was rejected, which is when the caller cut the cache to a list of pairs. The flag
# the caller passes decides `rejected == False` (engine/interpreter/none_comparisons.py): the forward that follows
# gets the list, the re-feed does not.
_DRAFT_CALL = "    out = model(ids[:, -1:], past_key_values=past, use_cache=True)\n"
_DRAFT = ("\n\ndef draft_step(ids, past=None, rejected=False):\n    if past != None:\n        if rejected == False:\n"
          "            past = model(ids[:, -2:-1], past_key_values=past, use_cache=True).past_key_values\n"
          + _DRAFT_CALL + "    return out.past_key_values\n\n\n")
_FLAT = "flat = [t for layer in out.past_key_values.layers for t in (layer.keys, layer.values)]\n"
_DECODE_CALL = "    return model(ids, position_ids=positions, past_key_values=past, use_cache=True)\n"
_DECODE = ("\n\ndef decode(ids, *flat):\n"
           "    past = [list(flat[i:i + 2]) for i in range(0, len(flat), 2)] if flat else None\n"
           "    positions = torch.arange(ids.shape[1])[None] + (past[0][0].shape[2] if past else 0)\n"
           + _DECODE_CALL + "\n\nstep = decode(inputs[\"input_ids\"][:, -1:], *flat)\n")
_SPREAD = ('step_inputs = {**inputs, "past_key_values": legacy, "use_cache": True}\n'
           "step = model(**step_inputs)\n")

_GATED_SPREAD = ('step_inputs = {"use_cache": True}\n'
                 "if inputs.input_ids.shape[1] > 1:\n"
                 '    step_inputs["past_key_values"] = [(layer.keys, layer.values) for layer in out.past_key_values.layers]\n'
                 "step = model(inputs.input_ids[:, -1:], **step_inputs)\n")

# A decode step that runs the forward on the inputs its caller built (a manual decode loop): the list rides in the
# caller's dict; the forward raises in the step, where the finding stands.
_STEP = ("\n\ndef decode_step(model, step_inputs):\n    return model(**step_inputs)\n\n\n"
         'step = decode_step(model, {**inputs, "past_key_values": legacy, "use_cache": True})\n')
# The project's own cache objects (engine/interpreter/own_caches.py): a `Cache` subclass whose `__init__` never
# runs the base one (no `layers`), and a plain class without `get_seq_length`.
_OWN_SUBCLASS = """

class LayerCache(Cache):
    def __init__(self):
        self.key_cache = []
        self.value_cache = []

    def update(self, key_states, value_states, layer_idx, cache_kwargs=None):
        self.key_cache.append(key_states)
        self.value_cache.append(value_states)
        return key_states, value_states

    def get_seq_length(self, layer_idx=0):
        return self.key_cache[layer_idx].shape[-2] if layer_idx < len(self.key_cache) else 0


step = model(**inputs, past_key_values=LayerCache(), use_cache=True)
"""
_OWN_PLAIN = """

class ChunkStore:
    def __init__(self):
        self.chunks = {}

    def update(self, key_states, value_states, layer_idx, cache_kwargs=None):
        self.chunks[layer_idx] = (key_states, value_states)
        return key_states, value_states


store = ChunkStore()
step = model(**inputs, past_key_values=store, use_cache=True)
"""
# A session cache (a serving system's) that overrides `get_seq_length` with the 4.x signature.
_NARROW = """

class TurnCache(DynamicCache):
    def get_seq_length(self):
        return super().get_seq_length()


turn = TurnCache()
step = model(**inputs, past_key_values=turn, use_cache=True)
"""
# A session cache that sets `layers` itself, to a list of None (PensieveCache), and answers its own length.
_NONE_LAYERS = """

class SessionCache(Cache):
    def __init__(self, num_layers):
        self.layers = [None] * num_layers

    def get_seq_length(self):
        return 0


session = SessionCache(model.config.num_hidden_layers)
step = model(**inputs, past_key_values=session, use_cache=True)
"""
# Legacy caches built by repeating and slicing (placeholders per layer; a draft that keeps the first layers).
_REPEAT = ("first = out.past_key_values.layers[0]\n"
           "legacy = ((first.keys[:, :, :0], first.values[:, :, :0]),) * len(out.past_key_values.layers)\n")
_KEPT = "kept = legacy[:model.config.num_hidden_layers]\n"
_KEPT_FORWARD = "step = model(**inputs, past_key_values=kept, use_cache=True)\n"
_HELPER = ("\n\ndef load_prev(cache, n_layers):\n    if not n_layers:\n        return None\n    pairs = []\n"
           "    for layer in cache.layers[:n_layers]:\n        pairs.append((layer.keys, layer.values))\n"
           "    return tuple(pairs)\n\n\nprev = load_prev(out.past_key_values, len(out.past_key_values.layers))\n")
_HELPER_FORWARD = "step = model(**inputs, past_key_values=prev, use_cache=True)\n"
# A fine-tune loaded from a local folder (no model name in the code), its decoder called directly.
_LOAD_PATH = _LOAD.replace('"meta-llama/Llama-3.2-1B"', "MODEL_PATH").replace(
    "\ntokenizer = ", '\nMODEL_PATH = "./checkpoints/sft-7b"\ntokenizer = ', 1)
_SUB_FORWARD = "step = model.model(**inputs, past_key_values=legacy, use_cache=True)\n"
# A generation model of the project written for the legacy cache (remote code: ChatGLM, Baichuan, Qwen-1, CodeShell,
# InternLM-1): its forward reads `past_key_values[0][0]` unless it is None; generate hands it a DynamicCache on 4.57
# and 5.3-5.23 (own_forward.py).
_OWN_MODEL = """import torch
from torch import nn
from transformers import GenerationMixin, GPT2Config, PreTrainedModel
from transformers.modeling_outputs import CausalLMOutputWithPast


class TinyForCausalLM(PreTrainedModel, GenerationMixin):
    config_class = GPT2Config

    def __init__(self, config):
        super().__init__(config)
        self.wte = nn.Embedding(config.vocab_size, config.n_embd)
        self.h = nn.ModuleList([nn.Linear(config.n_embd, config.n_embd)])
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
        self.post_init()

    def forward(self, input_ids=None, attention_mask=None, past_key_values=None, use_cache=None, **kwargs):
        if past_key_values is None:
            past_length = 0
            past_key_values = tuple([None] * len(self.h))
        else:
            past_length = past_key_values[0][0].size(-2)
        hidden = self.wte(input_ids)
        presents = ()
        for block, layer_past in zip(self.h, past_key_values):
            k = hidden.unsqueeze(1) if layer_past is None else torch.cat([layer_past[0], hidden.unsqueeze(1)], dim=2)
            hidden = hidden + block(hidden)
            presents = presents + ((k, k),)
        return CausalLMOutputWithPast(logits=self.lm_head(hidden), past_key_values=presents if use_cache else None)


config = GPT2Config(vocab_size=64, n_embd=32, n_layer=1, n_head=1, n_positions=64, bos_token_id=1, eos_token_id=2)
model = TinyForCausalLM(config).eval()
out = model.generate(torch.tensor([[5, 6, 7]]), max_new_tokens=2, do_sample=False, pad_token_id=2)
"""

# The project's subclass of a transformers model (engine/interpreter/model_subclasses.py): `Chat.from_pretrained`
# loads the model, `self(...)` is its forward, `super().generate(...)` in a method its generate.
_SUBCLASS = """from transformers import AutoTokenizer, LlamaForCausalLM


class Chat(LlamaForCausalLM):
    def prefill(self, prefix):
        return self(**prefix, use_cache=True)

    def continue_from(self, inputs, past):
        return super().generate(**inputs, past_key_values=past, max_new_tokens=5)


tokenizer = AutoTokenizer.from_pretrained("meta-llama/Llama-3.2-1B")
model = Chat.from_pretrained("meta-llama/Llama-3.2-1B")
prefix = tokenizer("The capital of France", return_tensors="pt")
inputs = tokenizer("The capital of France is", return_tensors="pt")
out = model.prefill(prefix)
"""
_SUBCLASS_CALL = "result = model.continue_from(inputs, legacy)\n"

# Janus's image loop: the decoder of a ForCausalLM run by hand; step 0 cuts its cache to the prompt as pairs.
_DECODER_LOOP = """import torch
from transformers import LlamaForCausalLM

lm = LlamaForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")
embeds = torch.randn(1, 6, lm.config.hidden_size)


def prompt_pairs(outputs, keep):
    pairs = []
    for layer in outputs.past_key_values:
        k, v = layer[0], layer[1]
        pairs.append((k[:, :, :keep, :], v[:, :, :keep, :]))
    return tuple(pairs)


past = None
for step in range(2):
    if step == 0:
        outputs = lm.model(inputs_embeds=embeds, use_cache=True)
        past = prompt_pairs(outputs, 4)
    else:
        outputs = lm.model(inputs_embeds=embeds[:, -2:], past_key_values=past, use_cache=True)
"""

# A wrapper that fills a missing cache with a tuple under a test, else hands on the caller's None (unlimiformer's
# fallback wrapper): the entry is a tuple or None, and the forward raises where the test held.
_FILLED_SPREAD = ("\n\ndef fallback_forward(**kwargs):\n"
                  '    if kwargs["past_key_values"] is None and model.config.use_cache:\n'
                  '        kwargs["past_key_values"] = tuple((layer.keys, layer.values) for layer in out.past_key_values.layers)\n'
                  "    return model(**kwargs)\n\n\n"
                  "step = fallback_forward(input_ids=inputs.input_ids[:, -1:], past_key_values=None, use_cache=True)\n")

INVALID: tuple[Invalid, ...] = (
    invalid(
        _LOAD + _LAYERS + _CALL,
        flagged="past_key_values=legacy",
        fixes={
            "Wrap in `DynamicCache(...)`": (
                _IMPORT, (_CALL, "result = model.generate(**inputs, past_key_values=DynamicCache(legacy), max_new_tokens=5)\n")),
            "Ignore HFC002 on this line": _ignore(_CALL),
        },
        note="a tuple built from a cache's layers",
        **_WARN_457,
    ),
    invalid(
        _LOAD + "keys = [layer.keys for layer in out.past_key_values.layers]\n"
        "values = [layer.values for layer in out.past_key_values.layers]\n"
        "result = model.generate(**inputs, past_key_values=tuple(zip(keys, values)), max_new_tokens=5)\n",
        flagged="past_key_values=tuple(zip(keys, values))",
        fixes={
            "Wrap in `DynamicCache(...)`": (
                _IMPORT,
                ("past_key_values=tuple(zip(keys, values))", "past_key_values=DynamicCache(tuple(zip(keys, values)))")),
        },
        note="a tuple written in the call",
        **_WARN_457,
    ),
    invalid(
        _LOAD + "result = model.generate(**inputs, past_key_values=out.past_key_values.to_legacy_cache(), max_new_tokens=5)\n",
        flagged="past_key_values=out.past_key_values.to_legacy_cache()",
        fixes={
            "Pass the `Cache` object instead of its legacy tuple": (
                ("past_key_values=out.past_key_values.to_legacy_cache()", "past_key_values=out.past_key_values"),),
        },
        note="`to_legacy_cache()` in the call (gone in 5.x: the run fails there first)",
        **_GONE_5X,
    ),
    invalid(
        _LOAD + "legacy = out.past_key_values.to_legacy_cache()\n" + _CALL,
        flagged="past_key_values=legacy",
        fixes={
            "Wrap in `DynamicCache(...)`": (
                _IMPORT, (_CALL, "result = model.generate(**inputs, past_key_values=DynamicCache(legacy), max_new_tokens=5)\n")),
        },
        note="a `to_legacy_cache()` result kept in a variable",
        **_GONE_5X,
    ),
    invalid(
        _LOAD.replace("from transformers import AutoModelForCausalLM, AutoTokenizer\n",
                      "import transformers\nfrom transformers import AutoModelForCausalLM, AutoTokenizer\n")
        + _LAYERS + "result = model.generate(**inputs, cache=legacy, max_new_tokens=5)\n",
        flagged="cache=legacy",
        fixes={
            "Wrap in `transformers.DynamicCache(...)`": (
                ("cache=legacy", "cache=transformers.DynamicCache(legacy)"),),
        },
        versions=("5.24.0", "5.25.0"),
        note="the 5.24 `cache=` keyword (before 5.24 `cache=` is rejected first: HFC003)",
    ),
    invalid(
        _LOAD + _LAYERS + "\n\ndef continue_from(kv, max_new_tokens=5):\n"
        "    return model.generate(**inputs, past_key_values=kv, max_new_tokens=max_new_tokens)\n\n\n"
        "result = continue_from(legacy)\n",
        flagged="past_key_values=kv",
        fixes={
            "Wrap in `DynamicCache(...)`": (
                _IMPORT, ("past_key_values=kv,", "past_key_values=DynamicCache(kv),")),
        },
        note="a tuple reaching generate through a helper function",
        **_WARN_457,
    ),
    invalid(
        _T5 + _T5_LAYERS + _T5_CALL,
        flagged="past_key_values=legacy",
        fixes={
            "Wrap in `EncoderDecoderCache(...)`": (
                ("from transformers import AutoModelForSeq2SeqLM, AutoTokenizer\n",
                 "from transformers import AutoModelForSeq2SeqLM, AutoTokenizer, EncoderDecoderCache\n"),
                ("past_key_values=legacy,", "past_key_values=EncoderDecoderCache(legacy),")),
        },
        note="an encoder-decoder's tuple (4 tensors per layer): `DynamicCache(legacy)` would raise on 4.57.6",
        **_WARN_457,
    ),
    # A tuple into a model's forward (no generate): every model raises from 5.0.0; on 4.57 a Llama-style decoder
    # already does, GPT-2 converts it (docs/facts.md, the release table's `tuple_cache_to_forward`).
    invalid(
        _LOAD_LLAMA + _LAYERS + _FORWARD,
        flagged="past_key_values=legacy",
        fixes={"Wrap in `DynamicCache(...)`": (
            _IMPORT_LLAMA, (_FORWARD, "step = model(**inputs, past_key_values=DynamicCache(legacy), use_cache=True)\n"))},
        portable=True,
        message_contains="AttributeError: 'tuple' object has no attribute 'get_seq_length'",
        note="a tuple into a Llama forward (speculative decoding's verification step): 4.57.6 raises too",
    ),
    invalid(
        _T5.replace("AutoModelForSeq2SeqLM", "T5ForConditionalGeneration") + _T5_LAYERS + _T5_FORWARD,
        flagged="past_key_values=legacy",
        fixes={"Wrap in `EncoderDecoderCache(...)`": (
            ("from transformers import T5ForConditionalGeneration, AutoTokenizer\n",
             "from transformers import T5ForConditionalGeneration, AutoTokenizer, EncoderDecoderCache\n"),
            ("past_key_values=legacy,", "past_key_values=EncoderDecoderCache(legacy),"))},
        portable=True,
        message_contains="AttributeError: 'tuple' object has no attribute 'get_seq_length'",
        note="an encoder-decoder's tuple into T5's forward (an export wrapper's decode step): T5's modeling file "
             "stopped converting one at 4.54.0 (the release table), so 4.57.6 raises as 5.x do",
    ),
    invalid(
        _LOAD.replace("meta-llama/Llama-3.2-1B", "openai-community/gpt2") + _LAYERS + _FORWARD,
        flagged="past_key_values=legacy",
        fixes={"Wrap in `DynamicCache(...)`": (
            _IMPORT, (_FORWARD, "step = model(**inputs, past_key_values=DynamicCache(legacy), use_cache=True)\n"))},
        versions=("5.23.0", "5.24.0", "5.25.0"),
        portable=True,
        note="a tuple into a GPT-2 forward: 4.57.6 converts it (with a deprecation warning), 5.x raise",
    ),
    # A decoder the code does not name (a local path, a submodule's forward): most 4.57 heads raise (the release
    # table's census, hfc002/census.py), a Warning naming the ones that convert; every 5.x forward raises.
    invalid(
        _LOAD_PATH + _LAYERS + _SUB_FORWARD,
        flagged="past_key_values=legacy",
        fixes={"Wrap in `DynamicCache(...)`": (
            _IMPORT, (_SUB_FORWARD, "step = model.model(**inputs, past_key_values=DynamicCache(legacy), use_cache=True)\n"))},
        portable=True,
        severity={"4.57.6": Severity.WARNING},
        message_contains="AttributeError: 'tuple' object has no attribute 'get_seq_length'",
        note="a tuple into the decoder of a model loaded from a local path: 4.57.6 raises for every decoder "
             "but GPT-2, BioGPT, XGLM, MPT and the other converting heads (a Warning), 5.x for all",
    ),
    invalid(
        _LOAD_PATH.replace("AutoModelForCausalLM", "GPT2LMHeadModel") + _LAYERS + _FORWARD,
        flagged="past_key_values=legacy",
        fixes={"Wrap in `DynamicCache(...)`": (
            (_IMPORT[0].replace("AutoModelForCausalLM", "GPT2LMHeadModel"),
             _IMPORT[1].replace("AutoModelForCausalLM", "GPT2LMHeadModel")),
            (_FORWARD, "step = model(**inputs, past_key_values=DynamicCache(legacy), use_cache=True)\n"))},
        versions=("5.23.0", "5.24.0", "5.25.0"),
        portable=True,
        note="the same local checkpoint loaded as GPT-2, whose 4.57.6 forward converts a tuple: silent there",
    ),
    invalid(
        _OWN_MODEL,
        flagged="past_key_values",
        occurrence=0,
        fixes={},
        versions=("4.57.6", "5.23.0"),
        message_contains="reads `past_key_values` as the legacy tuple",
        runtime={"4.57.6": "OTHER", "5.23.0": "HFC009", "5.24.0": "OK", "5.25.0": "OK"},
        note="a generation model of the project whose forward reads the legacy tuple (remote code): 4.57.6 and "
             "5.3-5.23 hand it a `DynamicCache`; 5.24+ hand the cache as `cache=` (it runs, without its past)",
    ),
    invalid(
        _LOAD + _LIST + _FORWARD,
        flagged="past_key_values=legacy",
        fixes={"Wrap in `DynamicCache(...)`": (
            _IMPORT, (_FORWARD, "step = model(**inputs, past_key_values=DynamicCache(legacy), use_cache=True)\n"))},
        portable=True,
        message_contains="AttributeError: 'list' object has no attribute 'get_seq_length'",
        note="a list of `(keys, values)` pairs into a Llama forward",
    ),
    invalid(
        _LOAD.replace("meta-llama/Llama-3.2-1B", "openai-community/gpt2") + _LIST + _FORWARD,
        flagged="past_key_values=legacy",
        fixes={"Wrap in `DynamicCache(...)`": (
            _IMPORT, (_FORWARD, "step = model(**inputs, past_key_values=DynamicCache(legacy), use_cache=True)\n"))},
        portable=True,
        message_contains="AttributeError: 'list' object has no attribute 'get_seq_length'",
        note="a list of pairs into a GPT-2 forward: 4.57.6 raises too (it converts only a tuple)",
    ),
    invalid(
        "import torch\n" + _LOAD + _FLAT + _DECODE,
        flagged="past_key_values=past",
        fixes={"Wrap in `DynamicCache(...)`": (
            _IMPORT, (_DECODE_CALL, _DECODE_CALL.replace("past_key_values=past", "past_key_values=DynamicCache(past)")))},
        portable=True,
        severity=Severity.WARNING,
        message_contains="This happens only if `past` is not None",
        note="a decode step that rebuilds `[k, v]` lists from flat tensors (a compiler's flat inputs), None on the "
             "first step, and gives `position_ids`: 5.14+ first ask the list `get_query_offset`",
    ),
    invalid(
        _LOAD_LLAMA + _LAYERS + _SPREAD,
        flagged='"past_key_values"',
        fixes={},
        note="a tuple reaching the forward through a `**dict` of its inputs (no fix: the dict may feed other calls)",
    ),
    invalid(
        _LOAD_LLAMA + _GATED_SPREAD,
        flagged="**step_inputs",
        fixes={},
        severity=Severity.WARNING,
        message_contains="This happens only if `inputs.input_ids.shape[1] > 1` holds",
        note="a list of pairs set in the forward's `**dict` only under a branch (an export wrapper's `if "
             "self.config.use_past:`): reported at the `**dict`, where the forward raises when the branch ran",
    ),
    invalid(
        _LOAD + _LIST + _STEP,
        flagged="**step_inputs",
        fixes={},
        message_contains="(its `\"past_key_values\"` entry set on line 15)",
        note="a list in the dict a caller hands to a decode step that runs the forward: reported at the step's "
             "`**dict`, where the forward raises",
    ),
    invalid(
        _LOAD.replace("AutoTokenizer\n", "AutoTokenizer, Cache\n", 1) + _OWN_SUBCLASS,
        flagged="past_key_values=LayerCache()",
        fixes={},
        runtime="OTHER",
        message_contains="AttributeError: 'LayerCache' object has no attribute 'layers'",
        note="the project's `Cache` subclass whose `__init__` skips the base one (a research model's own cache "
             "with its own key/value lists): no `layers`, which the forward reads",
    ),
    invalid(
        _LOAD.replace("AutoTokenizer\n", "AutoTokenizer, Cache\n", 1) + _OWN_SUBCLASS.replace(
            "step = model(**inputs, past_key_values=LayerCache(), use_cache=True)",
            "result = model.generate(**inputs, past_key_values=LayerCache(), max_new_tokens=3, min_new_tokens=3)"),
        flagged="past_key_values=LayerCache()",
        fixes={},
        runtime="OTHER",
        message_contains="of `generate()` gets `LayerCache()`",
        note="the same subclass given to `generate()`, which runs the forward",
    ),
    invalid(
        _LOAD + _OWN_PLAIN,
        flagged="past_key_values=store",
        fixes={},
        runtime="OTHER",
        message_contains="AttributeError: 'ChunkStore' object has no attribute 'get_seq_length'",
        note="a plain class of the project (a serving system's chunk store) as the forward's cache",
    ),
    invalid(
        _LOAD.replace("AutoTokenizer\n", "AutoTokenizer, Cache\n", 1) + _NONE_LAYERS,
        flagged="past_key_values=session",
        fixes={},
        runtime={"4.57.6": "OTHER", "5.23.0": "OTHER", "5.24.0": "OTHER", "5.25.0": "OTHER"},
        message_contains="a `SessionCache`: the project's subclass of a transformers cache whose",
        note="the project's cache subclass with `layers` set to None per layer: 4.57.6's mask asks a layer for its "
             "sizes (AttributeError: 'NoneType' object has no attribute 'get_mask_sizes'); from 5.14.0 its "
             "`get_seq_length` without `layer_idx` raises first",
    ),
    invalid(
        _LOAD.replace("AutoTokenizer\n", "AutoTokenizer, DynamicCache\n", 1) + _NARROW,
        flagged="get_seq_length",
        fixes={},
        versions=("5.23.0", "5.24.0", "5.25.0"),
        runtime={"4.57.6": "OK", "5.23.0": "OTHER", "5.24.0": "OTHER", "5.25.0": "OTHER"},
        message_contains="TypeError: TurnCache.get_seq_length() got an unexpected keyword argument 'layer_idx'",
        note="the project's cache subclass overriding `get_seq_length` without `layer_idx`: 4.57.6 (and up to "
             "5.13.1) runs it, from 5.14.0 it raises; reported on the override's `def`, where the fix goes",
    ),
    invalid(
        _LOAD.replace("AutoTokenizer\n", "AutoTokenizer, DynamicCache\n", 1) + _NARROW.replace(
            "turn = TurnCache()\nstep = model(**inputs, past_key_values=turn, use_cache=True)\n",
            "class ChatCache(TurnCache):\n    pass\n\n\n"
            "result = model.generate(**inputs, past_key_values=ChatCache(), max_new_tokens=3, min_new_tokens=3)\n"),
        flagged="get_seq_length",
        fixes={},
        versions=("5.23.0", "5.24.0", "5.25.0"),
        runtime={"4.57.6": "OK", "5.23.0": "OTHER", "5.24.0": "OTHER", "5.25.0": "OTHER"},
        message_contains="TypeError: ChatCache.get_seq_length() got an unexpected keyword argument 'layer_idx'",
        note="a subclass inheriting that override from the project's base, given to `generate()`: reported on the "
             "base's `def` (the Huginn cache's shape)",
    ),
    invalid(
        _LOAD + _REPEAT + _CALL,
        flagged="past_key_values=legacy",
        fixes={
            "Wrap in `DynamicCache(...)`": (
                _IMPORT, (_CALL, "result = model.generate(**inputs, past_key_values=DynamicCache(legacy), max_new_tokens=5)\n")),
            "Ignore HFC002 on this line": _ignore(_CALL),
        },
        note="a tuple of empty `(key, value)` placeholders repeated per layer: `((k, v),) * n`",
        **_WARN_457,
    ),
    invalid(
        _LOAD_LLAMA + _LAYERS + _KEPT + _KEPT_FORWARD,
        flagged="past_key_values=kept",
        fixes={"Wrap in `DynamicCache(...)`": (
            _IMPORT_LLAMA, (_KEPT_FORWARD, "step = model(**inputs, past_key_values=DynamicCache(kept), use_cache=True)\n"))},
        portable=True,
        message_contains="AttributeError: 'tuple' object has no attribute 'get_seq_length'",
        note="a slice of a legacy tuple (the layers a draft keeps) into a Llama forward",
    ),
    invalid(
        _LOAD_LLAMA + _HELPER + _HELPER_FORWARD,
        flagged="past_key_values=prev",
        fixes={"Wrap in `DynamicCache(...)`": (
            _IMPORT_LLAMA, (_HELPER_FORWARD, "step = model(**inputs, past_key_values=DynamicCache(prev), use_cache=True)\n"))},
        severity=Severity.WARNING,
        portable=True,
        message_contains="This happens only if `prev` is not None.",
        note="a helper that returns None early, else `tuple(pairs)` of a list it appended in a loop (a prefix store "
             "reloading its chunks): a Warning, the tuple on some paths",
    ),
    invalid(
        _LOAD + _LIST + _DRAFT + "past = draft_step(inputs.input_ids, legacy, rejected=True)\n",
        flagged="past_key_values=past",
        occurrence=1,
        fixes={"Wrap in `DynamicCache(...)`": (
            _IMPORT, (_DRAFT_CALL, "    out = model(ids[:, -1:], past_key_values=DynamicCache(past), use_cache=True)\n"))},
        portable=True,
        message_contains="AttributeError: 'list' object has no attribute 'get_seq_length'",
        note="a draft step the caller tells its cache was cut (`rejected=True`, a list of pairs): `rejected == "
             "False` is False, so the re-feed is skipped and the list reaches the next forward",
    ),
    invalid(
        _SUBCLASS + _LAYERS + _SUBCLASS_CALL,
        flagged="past_key_values=past",
        fixes={
            "Wrap in `DynamicCache(...)`": (
                ("from transformers import AutoTokenizer, LlamaForCausalLM\n",
                 "from transformers import AutoTokenizer, LlamaForCausalLM, DynamicCache\n"),
                ("past_key_values=past,", "past_key_values=DynamicCache(past),")),
        },
        note="the project's subclass of a transformers model: its method's `super().generate(...)` is the model's "
             "generate, the tuple its caller built given as the cache",
        **_WARN_457,
    ),
    invalid(
        _DECODER_LOOP,
        flagged="past_key_values=past",
        fixes={
            "Wrap in `DynamicCache(...)`": (
                ("from transformers import LlamaForCausalLM\n",
                 "from transformers import LlamaForCausalLM, DynamicCache\n"),
                ("past_key_values=past, use_cache", "past_key_values=DynamicCache(past), use_cache")),
        },
        severity=Severity.WARNING,
        note="the decoder inside a `...ForCausalLM` (`lm.model`, Janus's image loop) given, after step 0, the "
             "pairs cut from step 0's cache",
    ),
    invalid(
        _LOAD_LLAMA + _FILLED_SPREAD,
        flagged="**kwargs",
        occurrence=1,
        fixes={},
        severity=Severity.WARNING,
        message_contains='This happens only if `kwargs["past_key_values"] is None and model.config.use_cache` holds',
        note="a `**kwargs` entry set to a tuple under a test and left None otherwise (unlimiformer's fallback "
             "wrapper filling a missing cache): reported at the `**dict`, where the forward raises when the test held",
    ),
)
