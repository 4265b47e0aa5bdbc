"""HFC010 examples that must be flagged; each runs unchanged under the oracle against real transformers."""

from __future__ import annotations

from hf_cache_lint.engine.base.findings import Severity
from hf_cache_lint.rules.base import Invalid, invalid

TAKE_TITLE = "Take the cache as `cache` too (`{name}` on older releases)"
PATCH_TITLE = "Hand the patch the cache as `cache` too (`{name}` on older releases)"
READ_TITLE = "Read the cache as `cache` too"
KWARGS_TITLE = "Accept `**kwargs`"
DEFAULT_TITLE = "Give `{name}` a default (and accept `**kwargs`)"
RETURNED_TITLE = "Find the cache under `cache` too"
STORE_TITLE = "Store the cache under the name the layer was called with"
LENGTH_TITLE = "Read the cached length with `get_seq_length()`"
TRUTH_TITLE = "Test what the cache holds (`get_seq_length() > 0`), not its truth value"
NOT_NONE_TITLE = "Test what the cache holds (`get_seq_length() > 0`), not whether it is None"
FED_TITLE = "Take the cache as `{name}` from `**kwargs` (`cache`, else `past_key_values`)"

_LLAMA = "meta-llama/Llama-3.2-1B"
_PROMPT = "prompt = torch.tensor([[1, 5, 9, 14, 20]])\n"

PREPARE = (
    "import torch\nfrom transformers import LlamaForCausalLM\n\n" + _PROMPT + "\n\n"
    "class TrimmingLM(LlamaForCausalLM):\n"
    "    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, attention_mask=None, **kwargs):\n"
    "        if past_key_values is not None and past_key_values.get_seq_length() > 0:\n"
    "            input_ids = input_ids[:, -1:]\n"
    '        return {"input_ids": input_ids, "past_key_values": past_key_values, "use_cache": True}\n\n\n'
    f'model = TrimmingLM.from_pretrained("{_LLAMA}")\n'
    "model.generate(prompt, max_new_tokens=4, do_sample=False)\n")

# A backbone with `GenerationMixin` mixed in, generated with in the module (the case HFC010 reads; without the
# generate call, or without the mixin, no generate runs the hook: the VALID examples).
MIXIN_BACKEND = (
    "import torch\nfrom transformers import GenerationMixin, LlamaConfig, LlamaModel, LlamaPreTrainedModel\n"
    "from transformers.modeling_outputs import CausalLMOutputWithPast\n\n" + _PROMPT + "\n\n"
    "class Backend(LlamaPreTrainedModel, GenerationMixin):\n"
    "    def __init__(self, config):\n"
    "        super().__init__(config)\n"
    "        self.model = LlamaModel(config)\n"
    "        self.lm_head = torch.nn.Linear(config.hidden_size, config.vocab_size, bias=False)\n\n"
    "    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, **kwargs):\n"
    "        if past_key_values is not None and past_key_values.get_seq_length() > 0:\n"
    "            input_ids = input_ids[:, -1:]\n"
    '        return {"input_ids": input_ids, "past_key_values": past_key_values, "use_cache": True}\n\n'
    "    def forward(self, input_ids, past_key_values=None, use_cache=True, **kwargs):\n"
    "        out = self.model(input_ids=input_ids, past_key_values=past_key_values, use_cache=use_cache)\n"
    "        return CausalLMOutputWithPast(logits=self.lm_head(out.last_hidden_state), "
    "past_key_values=out.past_key_values)\n\n\n"
    "config = LlamaConfig(vocab_size=64, hidden_size=64, intermediate_size=64, num_hidden_layers=2, "
    "num_attention_heads=2,\n                     num_key_value_heads=1, head_dim=32)\n"
    "Backend(config).eval().generate(prompt, max_new_tokens=4, min_new_tokens=4, do_sample=False)\n")

LAYER_PATCH = (
    "import torch\nfrom transformers import AutoModelForCausalLM\n"
    "from transformers.models.llama.modeling_llama import LlamaDecoderLayer\n\n"
    f'model = AutoModelForCausalLM.from_pretrained("{_LLAMA}")\n' + _PROMPT +
    "ORIGINAL = LlamaDecoderLayer.forward\nSEEN = []\n\n\n"
    "def recording_forward(self, hidden_states, *args, past_key_values=None, **kwargs):\n"
    "    SEEN.append(past_key_values.get_seq_length() if past_key_values is not None else -1)\n"
    "    return ORIGINAL(self, hidden_states, *args, past_key_values=past_key_values, **kwargs)\n\n\n"
    "LlamaDecoderLayer.forward = recording_forward\n"
    "model.generate(prompt, max_new_tokens=2, do_sample=False)\n")

SINGULAR_PATCH = (
    "import types\n\nimport torch\nfrom transformers import AutoModelForCausalLM\n"
    "from transformers.models.llama.modeling_llama import LlamaAttention\n\n"
    f'model = AutoModelForCausalLM.from_pretrained("{_LLAMA}")\n' + _PROMPT + "SEEN = []\n\n\n"
    "def sink_forward(self, hidden_states, position_embeddings, attention_mask, past_key_value=None, **kwargs):\n"
    "    SEEN.append(past_key_value is not None)\n"
    "    return LlamaAttention.forward(self, hidden_states, position_embeddings, attention_mask, **kwargs)\n\n\n"
    "for layer in model.model.layers:\n"
    "    layer.self_attn.forward = types.MethodType(sink_forward, layer.self_attn)\n"
    "model.generate(prompt, max_new_tokens=2, do_sample=False)\n")

# A project's own attention (no transformers base) installed into a transformers model's decoder layers by its
# `LlamaForCausalLM` subclass (H2O's heavy-hitter attention): transformers' layer calls it with its own keywords.
INSTALLED = (
    "import torch\nfrom transformers import LlamaForCausalLM\n\n" + _PROMPT + "\n\n"
    "class HeavyHitterAttention(torch.nn.Module):\n"
    "    def __init__(self, config):\n"
    "        super().__init__()\n"
    "        self.o_proj = torch.nn.Linear(config.hidden_size, config.hidden_size, bias=False)\n\n"
    "    def forward(self, hidden_states, attention_mask=None, position_ids=None, past_key_value=None,\n"
    "                output_attentions=False, use_cache=False):\n"
    "        if past_key_value is not None:\n"
    "            hidden_states = hidden_states + 0.0 * past_key_value.get_seq_length()\n"
    "        return self.o_proj(hidden_states), None\n\n\n"
    "class TupleLM(LlamaForCausalLM):\n"
    "    def __init__(self, config):\n"
    "        super().__init__(config)\n"
    "        for layer_idx in range(len(self.model.layers)):\n"
    "            self.model.layers[layer_idx].self_attn = HeavyHitterAttention(config)\n\n\n"
    f'model = TupleLM.from_pretrained("{_LLAMA}")\n'
    "model.generate(prompt, max_new_tokens=2, do_sample=False)\n")

# The same attention installed by `setattr` on each layer of a loaded model (TransMLA's `setattr(layer, "self_attn",
# PartialRope(layer.self_attn))`), and by a decoder-layer class of the module in its own `__init__` (TransMLA's
# `LlamaMLADecoderLayer`: `self.self_attn = MLAAttention(config, layer_idx)`), whose inherited forward calls it.
SETATTR = INSTALLED.replace(
    "class TupleLM(LlamaForCausalLM):\n    def __init__(self, config):\n        super().__init__(config)\n"
    "        for layer_idx in range(len(self.model.layers)):\n"
    "            self.model.layers[layer_idx].self_attn = HeavyHitterAttention(config)\n\n\n"
    f'model = TupleLM.from_pretrained("{_LLAMA}")\n',
    f'model = LlamaForCausalLM.from_pretrained("{_LLAMA}")\n'
    "for layer in model.model.layers:\n"
    '    setattr(layer, "self_attn", HeavyHitterAttention(model.config))\n')
LAYER_CLASS = INSTALLED.replace("from transformers import LlamaForCausalLM\n",
                                "from transformers import LlamaForCausalLM\n"
                                "from transformers.models.llama.modeling_llama import LlamaDecoderLayer\n").replace(
    "class TupleLM(LlamaForCausalLM):\n    def __init__(self, config):\n        super().__init__(config)\n"
    "        for layer_idx in range(len(self.model.layers)):\n"
    "            self.model.layers[layer_idx].self_attn = HeavyHitterAttention(config)\n",
    "class HeavyLayer(LlamaDecoderLayer):\n    def __init__(self, config, layer_idx):\n"
    "        super().__init__(config, layer_idx)\n        self.self_attn = HeavyHitterAttention(config)\n\n\n"
    "class TupleLM(LlamaForCausalLM):\n    def __init__(self, config):\n        super().__init__(config)\n"
    "        self.model.layers = torch.nn.ModuleList(\n"
    "            [HeavyLayer(config, i) for i in range(config.num_hidden_layers)])\n")

# The same install in a function the module calls with a model bound to `from_pretrained(...).eval()` (TransMLA's
# `partial_rope(model)`): torch's `eval()` returns the model itself (engine/interpreter/bindings.py, the oracle's
# `facts:module_self_returning`), and the parameter given it holds it.
EVAL_CHAIN = SETATTR.replace(
    f'model = LlamaForCausalLM.from_pretrained("{_LLAMA}")\n'
    "for layer in model.model.layers:\n"
    '    setattr(layer, "self_attn", HeavyHitterAttention(model.config))\n',
    f'model = LlamaForCausalLM.from_pretrained("{_LLAMA}").eval()\n\n\n'
    "def install(lm):\n"
    "    for layer in lm.model.layers:\n"
    '        setattr(layer, "self_attn", HeavyHitterAttention(lm.config))\n\n\n'
    "install(model)\n")

READER = (
    "import torch\nfrom transformers import LlamaForCausalLM\n\n" + _PROMPT + "\n\n"
    "class StepLoggingLM(LlamaForCausalLM):\n"
    "    lengths = []\n\n"
    "    def _update_model_kwargs_for_generation(self, outputs, model_kwargs, *args, **kwargs):\n"
    "        model_kwargs = super()._update_model_kwargs_for_generation(outputs, model_kwargs, *args, **kwargs)\n"
    '        self.lengths.append(model_kwargs["past_key_values"].get_seq_length())\n'
    "        return model_kwargs\n\n\n"
    f'model = StepLoggingLM.from_pretrained("{_LLAMA}")\n'
    "model.generate(prompt, max_new_tokens=3, do_sample=False)\n")

FORWARD_HOOK = (
    "import torch\nfrom transformers import AutoModelForCausalLM, DynamicCache\n\n"
    f'model = AutoModelForCausalLM.from_pretrained("{_LLAMA}")\n' + _PROMPT + "\n\n"
    "def keep_last_four(module, args, kwargs, output):\n"
    '    layer = kwargs["past_key_values"].layers[module.layer_idx]\n'
    "    layer.keys, layer.values = layer.keys[:, :, -4:], layer.values[:, :, -4:]\n"
    "    return output\n\n\n"
    "for layer in model.model.layers:\n"
    "    layer.self_attn.register_forward_hook(keep_last_four, with_kwargs=True)\n"
    "model(prompt, past_key_values=DynamicCache(), use_cache=True)\n")

UPDATE = (
    "import torch\nfrom transformers import AutoModelForCausalLM, DynamicCache\n\n"
    f'model = AutoModelForCausalLM.from_pretrained("{_LLAMA}")\n' + _PROMPT + "\n\n"
    "class NormPressCache(DynamicCache):\n"
    "    norms = []\n\n"
    "    def update(self, key_states, value_states, layer_idx, cache_kwargs=None):\n"
    "        self.norms.append(float(key_states.norm()))\n"
    "        return super().update(key_states, value_states, layer_idx, cache_kwargs)\n\n\n"
    "model(prompt, past_key_values=NormPressCache(), use_cache=True)\n")

SUPER = (
    "import torch\nfrom transformers import LlamaForCausalLM\n\n" + _PROMPT + "\n\n"
    "class SuperCallLM(LlamaForCausalLM):\n"
    "    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, attention_mask=None,\n"
    "                                      inputs_embeds=None, **kwargs):\n"
    "        return super().prepare_inputs_for_generation(input_ids, past_key_values, attention_mask, inputs_embeds,\n"
    "                                                     **kwargs)\n\n\n"
    f'model = SuperCallLM.from_pretrained("{_LLAMA}")\n'
    "model.generate(prompt, max_new_tokens=3, do_sample=False)\n")

PRE_HOOK = (
    "import torch\nfrom transformers import AutoModelForCausalLM\n"
    "from transformers.models.llama.modeling_llama import LlamaDecoderLayer\n\n"
    f'model = AutoModelForCausalLM.from_pretrained("{_LLAMA}")\n' + _PROMPT + "\n\n"
    "def record_length(module, args, kwargs):\n"
    '    module.cached = kwargs["past_key_values"].get_seq_length()\n\n\n'
    "def install(lm, hook):\n"
    "    for name, module in lm.named_modules():\n"
    "        if isinstance(module, LlamaDecoderLayer):\n"
    "            module.register_forward_pre_hook(hook, with_kwargs=True)\n\n\n"
    "install(model, record_length)\n"
    "model.generate(prompt, max_new_tokens=2)\n")

PARTIAL_HOOK = (
    "import functools\n\nimport torch\nfrom transformers import AutoModelForCausalLM\n\n"
    f'model = AutoModelForCausalLM.from_pretrained("{_LLAMA}")\n' + _PROMPT + "\n\n"
    "def tagged(layer_idx, module, args, kwargs):\n"
    '    cache = kwargs.get("past_key_values")\n'
    "    module.cached = cache.get_seq_length(layer_idx)\n\n\n"
    "for i, layer in enumerate(model.model.layers):\n"
    "    layer.register_forward_pre_hook(functools.partial(tagged, i), with_kwargs=True)\n"
    "model.generate(prompt, max_new_tokens=2)\n")

# A calibration pre-hook handing each attention a cache of its own through the layer's keywords (LightCompress's
# `kv_cache_input_hook`, llm-compressor's calibration hook): the layer calls its attention with the cache keyword of
# its release, so a store under another name never reaches the attention.
PRE_STORE = (
    "import torch\nfrom transformers import AutoModelForCausalLM, DynamicCache\n\n"
    f'model = AutoModelForCausalLM.from_pretrained("{_LLAMA}")\n' + _PROMPT + "CALIBRATION = DynamicCache()\n\n\n"
    "def hand_cache(module, args, kwargs):\n"
    '    kwargs["past_key_value"] = CALIBRATION\n\n\n'
    "for layer in model.model.layers:\n"
    "    layer.self_attn.register_forward_pre_hook(hand_cache, with_kwargs=True)\n"
    "with torch.no_grad():\n"
    "    model(prompt, use_cache=False)\n"
    "assert CALIBRATION.get_seq_length() == 5, f\"the calibration cache saw {CALIBRATION.get_seq_length()} tokens\"\n")

# llm-compressor's calibration pre-hook: the key picked at run time from the attention's signature among the cache's
# old names (`past_key_value` where the forward has it, else `past_key_values`): on 5.24+ neither is the layer's.
PRE_STORE_PICKED = PRE_STORE.replace(
    "import torch\n", "import inspect\n\nimport torch\n", 1).replace(
    '    kwargs["past_key_value"] = CALIBRATION\n',
    '    if not hasattr(module, "_past_kv_name"):\n'
    '        module._past_kv_name = (\n'
    '            "past_key_value" if "past_key_value" in inspect.signature(module.forward).parameters\n'
    '            else "past_key_values"\n'
    '        )\n'
    "    kwargs[module._past_kv_name] = CALIBRATION\n")

# A KV-compression library's patch: it wraps the model's own hook and swaps the cache it finds in the returned
# model inputs for its own class (whose `update` counts the layers it stores).
SWAP_WRAPPER = (
    "import torch\nfrom transformers import AutoModelForCausalLM, DynamicCache\n\n"
    f'model = AutoModelForCausalLM.from_pretrained("{_LLAMA}")\n' + _PROMPT + "\n\n"
    "class CountingCache(DynamicCache):\n"
    "    updates = 0\n\n"
    "    def update(self, *args, **kwargs):\n"
    "        CountingCache.updates += 1\n"
    "        return super().update(*args, **kwargs)\n\n\n"
    "original = model.prepare_inputs_for_generation\n\n\n"
    "def compressing(*args, **kwargs):\n"
    "    inputs = original(*args, **kwargs)\n"
    '    if not isinstance(inputs.get("past_key_values"), CountingCache):\n'
    '        inputs["past_key_values"] = CountingCache()\n'
    "    return inputs\n\n\n"
    "model.prepare_inputs_for_generation = compressing\n"
    "model.generate(prompt, max_new_tokens=2, min_new_tokens=2, do_sample=False)\n"
    'assert CountingCache.updates > 0, "the swapped-in cache was never used"\n')

SUPER_INPUTS = (
    "import torch\nfrom transformers import LlamaForCausalLM\n\n" + _PROMPT + "\n\n"
    "class LoggingLM(LlamaForCausalLM):\n"
    "    lengths = []\n\n"
    "    def prepare_inputs_for_generation(self, *args, **kwargs):\n"
    "        inputs = super().prepare_inputs_for_generation(*args, **kwargs)\n"
    '        self.lengths.append(inputs["past_key_values"].get_seq_length())\n'
    "        return inputs\n\n\n"
    f'model = LoggingLM.from_pretrained("{_LLAMA}")\n'
    "model.generate(prompt, max_new_tokens=3, do_sample=False)\n")

# A pre-4.x hook (`past=`) patched onto a loaded model (ContrastiveDecoding's "ignore prefix" student): it feeds
# only the last token once it has a cache, and hands on the cache it takes as `past`, which no release fills.
OLD_NAME = (
    "import torch\nfrom transformers import AutoModelForCausalLM\n\n"
    f'model = AutoModelForCausalLM.from_pretrained("{_LLAMA}")\n' + _PROMPT + "LENGTHS = []\n\n\n"
    "def last_token_inputs(input_ids, past=None, **kwargs):\n"
    "    if past is not None and past.get_seq_length() > 0:\n"
    "        input_ids = input_ids[:, -1:]\n"
    "    LENGTHS.append(input_ids.shape[1])\n"
    "    return {\n"
    '        "input_ids": input_ids,\n'
    '        "past_key_values": past,\n'
    '        "use_cache": kwargs.get("use_cache"),\n'
    "    }\n\n\n"
    "model.prepare_inputs_for_generation = last_token_inputs\n"
    "model.generate(prompt, max_new_tokens=3, min_new_tokens=3, do_sample=False)\n"
    'assert LENGTHS == [5, 1, 1], f"each step ran the whole sequence again: {LENGTHS}"\n')

# The same hook whose only read of `past` is the entry handing it on (ContrastiveDecoding's own, which slices by the
# prompt's length, not by the cache): the finding stands on that entry.
OLD_NAME_ENTRY = (
    "import torch\nfrom transformers import AutoModelForCausalLM\n\n"
    f'model = AutoModelForCausalLM.from_pretrained("{_LLAMA}")\n' + _PROMPT + "\n\n"
    "def last_token_inputs(input_ids, past=None, **kwargs):\n"
    "    if input_ids.shape[1] > prompt.shape[1]:\n"
    "        input_ids = input_ids[:, -1:]\n"
    "    return {\n"
    '        "input_ids": input_ids,\n'
    '        "past_key_values": past,\n'
    '        "use_cache": kwargs.get("use_cache"),\n'
    "    }\n\n\n"
    "model.prepare_inputs_for_generation = last_token_inputs\n"
    "out = model.generate(prompt, max_new_tokens=3, min_new_tokens=3, do_sample=False, return_dict_in_generate=True)\n"
    "held = out.past_key_values.get_seq_length()\n"
    'assert held == 5 + 3 - 1, f"each step decoded its token without its past: the cache holds {held}"\n')

# A 4.x override reading the cached length off the legacy pair once it has a cache (InternLM2's, IPEX-LLM's), taking
# the cache from `cache=` too: generate's first-step cache has its layers, with nothing in them yet.
EMPTY_LAYER = (
    "import torch\nfrom transformers import LlamaForCausalLM\n\n" + _PROMPT + "\n\n"
    "class LengthLM(LlamaForCausalLM):\n"
    "    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, attention_mask=None, **kwargs):\n"
    '        past_key_values = kwargs.pop("cache", past_key_values)\n'
    "        if past_key_values is not None:\n"
    "            past_length = past_key_values[0][0].shape[2]\n"
    "            input_ids = input_ids[:, past_length:]\n"
    '        return {"input_ids": input_ids, "past_key_values": past_key_values, "use_cache": True}\n\n\n'
    f'model = LengthLM.from_pretrained("{_LLAMA}")\n'
    "model.generate(prompt, attention_mask=torch.ones_like(prompt), max_new_tokens=3, min_new_tokens=3, "
    "do_sample=False)\n")
# The same length read in a method of the class the override calls under its test (AirLLM's
# `get_past_key_values_cache_seq_len`).
EMPTY_LAYER_HELPER = EMPTY_LAYER.replace(
    "    def prepare_inputs_for_generation(",
    "    def cached_length(self, past_key_values):\n        return past_key_values[0][0].shape[2]\n\n"
    "    def prepare_inputs_for_generation(").replace(
    "            past_length = past_key_values[0][0].shape[2]\n", "            past_length = self.cached_length(past_key_values)\n")
# A 4.x override cutting its input to the last token `if past_key_values:` (OmniLMM, mPLUG-Owl2, LLaVA's VCD,
# AlpacaFarm's flash Llama), taking the cache from `cache=` too: generate's first-step cache, empty, is truthy.
TRUTHY_CUT = (
    "import torch\nfrom transformers import LlamaForCausalLM\n\n" + _PROMPT + "LENGTHS = []\n\n\n"
    "class LastTokenLM(LlamaForCausalLM):\n"
    "    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, attention_mask=None, **kwargs):\n"
    '        past_key_values = kwargs.pop("cache", past_key_values)\n'
    "        if past_key_values:\n"
    "            input_ids = input_ids[:, -1:]\n"
    "        LENGTHS.append(input_ids.shape[1])\n"
    '        return {"input_ids": input_ids, "past_key_values": past_key_values, "use_cache": True}\n\n\n'
    f'model = LastTokenLM.from_pretrained("{_LLAMA}")\n'
    "model.generate(prompt, attention_mask=torch.ones_like(prompt), max_new_tokens=3, min_new_tokens=3, "
    "do_sample=False)\n"
    'assert LENGTHS == [5, 1, 1], f"the first step ran {LENGTHS[0]} of the prompt\'s 5 tokens"\n')

# The same override testing `if past_key_values is not None:` (OpenVLA's Prismatic hook): the empty cache generate
# builds before the first step is not None either.
NOT_NONE_CUT = TRUTHY_CUT.replace("        if past_key_values:\n", "        if past_key_values is not None:\n")

_24 = ("5.24.0", "5.25.0")

INVALID: tuple[Invalid, ...] = (
    invalid(
        PREPARE,
        flagged="past_key_values=None",
        fixes={TAKE_TITLE.format(name="past_key_values"): (
            "        if past_key_values is not None and",
            '        past_key_values = kwargs.pop("cache", past_key_values)\n'
            "        if past_key_values is not None and")},
        versions=_24, severity=Severity.WARNING, runtime="OK", portable=True,
        note="a 4.x `prepare_inputs_for_generation` override: on 5.24 `past_key_values` is None, so it feeds the "
             "whole sequence every step (lengths 5, 6, 7, 8 instead of 5, 1, 1, 1), without an error",
    ),
    invalid(
        PREPARE.replace("        if past_key_values is not None and past_key_values.get_seq_length() > 0:\n"
                        "            input_ids = input_ids[:, -1:]\n",
                        "        if past_key_values is not None:\n"
                        "            past_length = past_key_values.get_seq_length()\n"
                        "            input_ids = input_ids[:, min(past_length, input_ids.shape[1] - 1):]\n"),
        flagged="past_key_values=None",
        message_contains="so the branch under `past_key_values is not None` never runs (its first read of the cache, "
                         "`past_key_values.get_seq_length`, line 10)",
        fixes={TAKE_TITLE.format(name="past_key_values"): (
            "        if past_key_values is not None:",
            '        past_key_values = kwargs.pop("cache", past_key_values)\n'
            "        if past_key_values is not None:")},
        versions=_24, severity=Severity.WARNING, runtime="OK", portable=True,
        note="the override reads the cache only in the branch its None test opens (InternVL's InternLM2, "
             "InternLM-XComposer2): reported on the parameter, as every finding on what a hook takes; the message names "
             "the branch that stops running on 5.24",
    ),
    invalid(
        MIXIN_BACKEND,
        flagged="past_key_values=None",
        fixes={TAKE_TITLE.format(name="past_key_values"): (
            "        if past_key_values is not None and",
            '        past_key_values = kwargs.pop("cache", past_key_values)\n'
            "        if past_key_values is not None and")},
        versions=_24, severity=Severity.WARNING, runtime="OK", portable=True,
        note="the override of a backbone with `GenerationMixin` mixed in (Chatterbox's T3 backend) where the module "
             "generates with it: on 5.24 it feeds the whole sequence every step (5, 6, 7, 8 instead of 5, 1, 1, 1)",
    ),
    invalid(
        LAYER_PATCH,
        flagged="past_key_values=None",
        fixes={PATCH_TITLE.format(name="past_key_values"): (
            "    SEEN.append(past_key_values.get_seq_length()",
            '    past_key_values = kwargs.pop("cache", past_key_values)\n'
            "    SEEN.append(past_key_values.get_seq_length()")},
        versions=_24, severity=Severity.WARNING, runtime="OK", portable=True,
        note="a decoder-layer monkeypatch: on 5.24 the layer is called with `cache=`, so the patch sees no cache; the fix "
             "takes it out of `**kwargs` as the patch passes it on by name (unsafe: a patch's own use of it)",
    ),
    invalid(
        LAYER_PATCH.replace("    SEEN.append(past_key_values.get_seq_length()",
                            '    if not hasattr(recording_forward, "cache"):\n'
                            "        recording_forward.cache = []\n"
                            "    SEEN.append(past_key_values.get_seq_length()"),
        flagged="past_key_values=None",
        fixes={PATCH_TITLE.format(name="past_key_values"): (
            '    if not hasattr(recording_forward, "cache"):',
            '    past_key_values = kwargs.pop("cache", past_key_values)\n'
            '    if not hasattr(recording_forward, "cache"):')},
        versions=_24, severity=Severity.WARNING, runtime="OK", portable=True,
        note="the same patch keeping state in a function attribute named `cache` (racc's `hasattr(forward, "
             "\"cache\")`): an attribute name, not the cache read under its new name",
    ),
    invalid(
        SINGULAR_PATCH,
        flagged="past_key_value=None",
        fixes={PATCH_TITLE.format(name="past_key_value"): (
            "    SEEN.append(past_key_value is not None)",
            '    past_key_value = kwargs.get("cache", kwargs.get("past_key_values", past_key_value))\n'
            "    SEEN.append(past_key_value is not None)")},
        severity=Severity.WARNING, runtime="OK",
        note="an attention patch bound with `types.MethodType` that takes 4.55's `past_key_value`: from 4.56 the "
             "layer passes `past_key_values=` (5.24: `cache=`), so it never sees the cache; the fix pops the cache "
             "the fix reads it from `**kwargs` under either name (unsafe: what the patch then does with it is its own)",
    ),
    invalid(
        READER,
        flagged='model_kwargs["past_key_values"]',
        fixes={READ_TITLE: ('model_kwargs["past_key_values"]',
                            'model_kwargs.get("cache", model_kwargs.get("past_key_values"))')},
        versions=_24, runtime="HFC010", portable=True,
        note="a reader of generate's `model_kwargs`: on 5.24 the key is `cache` (KeyError)",
    ),
    invalid(
        FORWARD_HOOK,
        flagged='kwargs["past_key_values"]',
        fixes={READ_TITLE: ('kwargs["past_key_values"]', 'kwargs.get("cache", kwargs.get("past_key_values"))')},
        versions=_24, runtime="HFC010", portable=True,
        note="a forward hook registered `with_kwargs=True` on a loaded model's attention (a KV-pruning press)",
    ),
    invalid(
        PRE_HOOK,
        flagged='kwargs["past_key_values"]',
        fixes={READ_TITLE: ('kwargs["past_key_values"]', 'kwargs.get("cache", kwargs.get("past_key_values"))')},
        versions=_24, runtime="HFC010", portable=True,
        note="a forward pre-hook on the decoder layers a helper finds with `named_modules()` and `isinstance` "
             "(the helper is given the loaded model)",
    ),
    invalid(
        PARTIAL_HOOK,
        flagged='kwargs.get("past_key_values")',
        fixes={READ_TITLE: ('kwargs.get("past_key_values")',
                            'kwargs.get("cache", kwargs.get("past_key_values"))')},
        severity=Severity.WARNING, versions=_24, runtime="OTHER", portable=True,
        note="a pre-hook bound to its layer index with `functools.partial`: `.get` returns None from 5.24 (here "
             "the next line fails on it)",
    ),
    invalid(
        PRE_STORE,
        flagged='kwargs["past_key_value"]',
        fixes={STORE_TITLE: ('kwargs["past_key_value"]',
                             'kwargs["cache" if "cache" in kwargs else "past_key_values" if "past_key_values" in kwargs '
                             'else "past_key_value"]')},
        severity=Severity.WARNING, runtime="OTHER", portable=True,
        note="a forward pre-hook storing a cache of its own into the attention's keywords under 4.55's name: from "
             "4.56 the layer passes `past_key_values=` (5.24: `cache=`) and the attention uses that one, so the "
             "stored cache is never updated (here the assertion on its length fails); the fix stores it under the "
             "name the layer was called with",
    ),
    invalid(
        PRE_STORE.replace("def hand_cache(module, args, kwargs):\n"
                          '    kwargs["past_key_value"] = CALIBRATION\n',
                          "def cache_input_hook():\n"
                          "    def hook_fn(module, args, kwargs):\n"
                          '        kwargs["past_key_value"] = CALIBRATION\n'
                          "    return hook_fn\n")
        .replace("register_forward_pre_hook(hand_cache,", "register_forward_pre_hook(cache_input_hook(),"),
        flagged='kwargs["past_key_value"]',
        fixes={STORE_TITLE: ('kwargs["past_key_value"]',
                             'kwargs["cache" if "cache" in kwargs else "past_key_values" if "past_key_values" in kwargs '
                             'else "past_key_value"]')},
        severity=Severity.WARNING, runtime="OTHER", portable=True,
        note="the same pre-hook made by a factory the registration calls (LightCompress's `kv_cache_input_hook()`)",
    ),
    invalid(
        PRE_STORE_PICKED,
        flagged="kwargs[module._past_kv_name]",
        fixes={STORE_TITLE: ("kwargs[module._past_kv_name]",
                             'kwargs["cache" if "cache" in kwargs else "past_key_values" if "past_key_values" in kwargs '
                             'else "past_key_value"]')},
        severity=Severity.WARNING, versions=_24, runtime="OTHER", portable=True,
        note="the key picked at run time from the attention's signature among the cache's old names (llm-compressor's "
             "calibration hook): right up to 5.23, and on 5.24+ neither name is the layer's, so whichever it picked "
             "is never read or updated",
    ),
    invalid(
        UPDATE.replace("    norms = []\n\n",
                       "    norms = []\n\n"
                       "    def reset(self):\n"
                       "        self._seen: int = 0\n\n"
                       "    def get_seq_length(self, layer_idx=0):\n"
                       "        return self._seen\n\n")
        .replace("model(prompt, past_key_values=NormPressCache(), use_cache=True)\n",
                 "press = NormPressCache()\npress.reset()\nmodel(prompt, past_key_values=press, use_cache=True)\n"),
        flagged="press", occurrence=2,
        fixes={KWARGS_TITLE: ("layer_idx, cache_kwargs=None):", "layer_idx, cache_kwargs=None, **kwargs):")},
        versions=_24, runtime="HFC010", portable=True,
        note="the same override in a class whose own `get_seq_length` reads a counter set only by an annotated "
             "assignment in another method (`self._seen: int = 0`, llm-compressor's `reset_states`): the class "
             "reaches `update`, and 5.24's `kwargs=` raises there",
    ),
    invalid(
        UPDATE,
        flagged="NormPressCache()",
        fixes={KWARGS_TITLE: ("layer_idx, cache_kwargs=None):", "layer_idx, cache_kwargs=None, **kwargs):")},
        versions=_24, runtime="HFC010", portable=True,
        note="a `Cache.update` override written for 4.x/5.x before 5.24, which passes `kwargs=`: reported at the "
             "forward call given the cache, where the TypeError is raised",
    ),
    invalid(
        UPDATE.replace("layer_idx, cache_kwargs=None):", "layer_idx, cache_kwargs):"),
        flagged="NormPressCache()",
        fixes={DEFAULT_TITLE.format(name="cache_kwargs"): ("layer_idx, cache_kwargs):",
                                                           "layer_idx, cache_kwargs=None, **kwargs):")},
        versions=("5.23.0", *_24), runtime={"5.23.0": "OTHER", "5.24.0": "HFC010", "5.25.0": "HFC010"},
        portable=True,
        note="an override requiring the fourth argument (LightCompress's `update(self, key_states, value_states, "
             "layer_idx, cache_kwargs)`): from 5.4.0 the layers pass three, TypeError: missing 1 required positional "
             "argument: 'cache_kwargs' (5.24: the `kwargs=` TypeError first); the fix gives it a default and takes "
             "`**kwargs` (unsafe: the body then gets None)",
    ),
    invalid(
        UPDATE.replace("from transformers import AutoModelForCausalLM, DynamicCache\n",
                       "from transformers import AutoModelForCausalLM\n"
                       "from transformers.cache_utils import DynamicCache as HFCache\n")
        .replace("class NormPressCache(DynamicCache):", "class NormPressCache(HFCache):"),
        flagged="NormPressCache()",
        fixes={KWARGS_TITLE: ("layer_idx, cache_kwargs=None):", "layer_idx, cache_kwargs=None, **kwargs):")},
        versions=_24, runtime="HFC010", portable=True,
        note="the same override on a base imported under another name (SpecSplit's `Cache as HFCache`)",
    ),
    invalid(
        SINGULAR_PATCH.replace(
            "for layer in model.model.layers:\n"
            "    layer.self_attn.forward = types.MethodType(sink_forward, layer.self_attn)\n",
            "def install(parent):\n"
            "    for name, module in parent._modules.items():\n"
            "        install(module)\n"
            "        if isinstance(module, (LlamaAttention,)):\n"
            "            parent._modules[name].forward = types.MethodType(sink_forward, parent._modules[name])\n\n\n"
            "install(model)\n"),
        flagged="past_key_value=None",
        fixes={PATCH_TITLE.format(name="past_key_value"): (
            "    SEEN.append(past_key_value is not None)",
            '    past_key_value = kwargs.get("cache", kwargs.get("past_key_values", past_key_value))\n'
            "    SEEN.append(past_key_value is not None)")},
        severity=Severity.WARNING, runtime="OK",
        note="the same patch installed by a recursive walk over `_modules` under an `isinstance` test of a tuple of "
             "attention classes (kvpruner's `enable_kv_cache_pruning(model)`)",
    ),
    invalid(
        SUPER,
        flagged="super().prepare_inputs_for_generation(input_ids, past_key_values, attention_mask, inputs_embeds,\n"
                "                                                     **kwargs)",
        fixes={},
        versions=("5.23.0", "5.24.0", "5.25.0"), runtime="HFC010",
        note="a positional `super()` call: 5.3 inserted `next_sequence_length` after `input_ids`",
    ),
    invalid(
        SWAP_WRAPPER,
        flagged='inputs.get("past_key_values")',
        fixes={RETURNED_TITLE: (('inputs.get("past_key_values")', 'inputs.get("cache", inputs.get("past_key_values"))'),
                                ('inputs["past_key_values"] = ',
                                 'inputs["cache" if "cache" in inputs else "past_key_values"] = '))},
        severity=Severity.WARNING, versions=_24, runtime="OTHER", portable=True,
        note="a wrapper of the model's own `prepare_inputs_for_generation` that finds the cache in the inputs it "
             "returns and swaps in its own: from 5.24 they hold it under `cache`, so it finds None and the cache it "
             "stores under `past_key_values` is ignored (the assertion fails: the swapped-in cache is never updated)",
    ),
    invalid(
        INSTALLED,
        flagged="past_key_value=None",
        fixes={PATCH_TITLE.format(name="past_key_value"): (
            ("                output_attentions=False, use_cache=False):",
             "                output_attentions=False, use_cache=False, **kwargs):"),
            ("        if past_key_value is not None:\n            hidden_states = hidden_states +",
             '        past_key_value = kwargs.get("cache", kwargs.get("past_key_values", past_key_value))\n'
             "        if past_key_value is not None:\n            hidden_states = hidden_states +"))},
        message_contains="this raises TypeError: HeavyHitterAttention.forward() got an unexpected keyword argument",
        note="a project's own attention class without `**kwargs` installed as the decoder layers' `self_attn` (H2O): "
             "from 4.56 the layer calls it with `past_key_values=` (5.24: `cache=`), which it does not take",
    ),
    invalid(
        SETATTR,
        flagged="past_key_value=None",
        fixes={PATCH_TITLE.format(name="past_key_value"): (
            ("                output_attentions=False, use_cache=False):",
             "                output_attentions=False, use_cache=False, **kwargs):"),
            ("        if past_key_value is not None:\n            hidden_states = hidden_states +",
             '        past_key_value = kwargs.get("cache", kwargs.get("past_key_values", past_key_value))\n'
             "        if past_key_value is not None:\n            hidden_states = hidden_states +"))},
        message_contains="this raises TypeError: HeavyHitterAttention.forward() got an unexpected keyword argument",
        note="the same attention installed with `setattr(layer, \"self_attn\", ...)` on each layer of a loaded "
             "model (TransMLA's partial RoPE)",
    ),
    invalid(
        EVAL_CHAIN,
        flagged="past_key_value=None",
        fixes={PATCH_TITLE.format(name="past_key_value"): (
            ("                output_attentions=False, use_cache=False):",
             "                output_attentions=False, use_cache=False, **kwargs):"),
            ("        if past_key_value is not None:\n            hidden_states = hidden_states +",
             '        past_key_value = kwargs.get("cache", kwargs.get("past_key_values", past_key_value))\n'
             "        if past_key_value is not None:\n            hidden_states = hidden_states +"))},
        message_contains="this raises TypeError: HeavyHitterAttention.forward() got an unexpected keyword argument",
        note="the same install in a function given a model bound to `from_pretrained(...).eval()` (TransMLA's "
             "`partial_rope(model)`): `eval()` returns the model itself",
    ),
    invalid(
        LAYER_CLASS,
        flagged="past_key_value=None",
        fixes={PATCH_TITLE.format(name="past_key_value"): (
            ("                output_attentions=False, use_cache=False):",
             "                output_attentions=False, use_cache=False, **kwargs):"),
            ("        if past_key_value is not None:\n            hidden_states = hidden_states +",
             '        past_key_value = kwargs.get("cache", kwargs.get("past_key_values", past_key_value))\n'
             "        if past_key_value is not None:\n            hidden_states = hidden_states +"))},
        message_contains="this raises TypeError: HeavyHitterAttention.forward() got an unexpected keyword argument",
        note="the same attention installed by a decoder-layer class of the module in its own `__init__` "
             "(`self.self_attn = ...` in a `LlamaDecoderLayer` subclass, TransMLA's MLA layer): the inherited "
             "layer forward calls it",
    ),
    invalid(
        "import torch\nfrom transformers import AutoModelForCausalLM, DynamicCache\n\n"
        f'model = AutoModelForCausalLM.from_pretrained("{_LLAMA}")\n' + _PROMPT + "\n\n"
        "class StepCache(DynamicCache):\n"
        "    def update(self, key_states, value_states, layer_idx, cache_kwargs=None):\n"
        "        return super().update(key_states, value_states, layer_idx, cache_kwargs)\n\n"
        "    def get_seq_length(self, step_idx=0):\n"
        "        return super().get_seq_length(step_idx)\n\n\n"
        "class LayerLengthCache(StepCache):\n"
        "    def get_seq_length(self, layer_idx=0, **kwargs):\n"
        "        return DynamicCache.get_seq_length(self, layer_idx)\n\n\n"
        "model(prompt, past_key_values=LayerLengthCache(), use_cache=True)\n",
        flagged="LayerLengthCache()",
        fixes={KWARGS_TITLE: ("layer_idx, cache_kwargs=None):", "layer_idx, cache_kwargs=None, **kwargs):")},
        versions=_24, runtime="HFC010", portable=True,
        note="a subclass that inherits the override and mends its base's `get_seq_length` (the Huginn cache's "
             "shape): the forward reaches the inherited `update`, which fails on `kwargs=`",
    ),
    invalid(
        SUPER_INPUTS,
        flagged='inputs["past_key_values"]',
        fixes={RETURNED_TITLE: ('inputs["past_key_values"]', 'inputs.get("cache", inputs.get("past_key_values"))')},
        versions=_24, runtime="HFC010", portable=True,
        note="an override that reads the cache from what `super().prepare_inputs_for_generation(...)` returns: "
             "KeyError from 5.24",
    ),
    invalid(
        OLD_NAME,
        flagged="past=None",
        fixes={FED_TITLE.format(name="past"): (
            "    if past is not None and",
            '    past = kwargs.pop("cache", kwargs.pop("past_key_values", past))\n    if past is not None and')},
        severity=Severity.WARNING, runtime="OTHER", portable=True,
        note="a hook taking the cache as `past` (a pre-4.x name) patched onto a loaded model: every release passes "
             "`past_key_values=` (5.24: `cache=`) into its `**kwargs`, so it hands the model None and each step runs "
             "the whole sequence again (5, 6, 7 tokens, not 5, 1, 1: the assertion fails on every release; the "
             "fixed code runs on each); the body tests `past` too, so the finding stands on the parameter",
    ),
    invalid(
        EMPTY_LAYER,
        flagged="past_key_values[0]",
        fixes={LENGTH_TITLE: ("past_key_values[0][0].shape[2]", "past_key_values.get_seq_length()")},
        versions=("4.57.6",), runtime="OTHER", portable=True,
        note="a 4.x override reading the cached length as `past_key_values[0][0].shape[2]` once it has a cache: "
             "4.57.6's first-step cache has its layers but no tensors, so this raises AttributeError: 'NoneType' "
             "object has no attribute 'shape' (5.x: TypeError, the cache is not subscriptable: HFC009's; the fixed "
             "code runs)",
    ),
    invalid(
        EMPTY_LAYER_HELPER,
        flagged="past_key_values[0]",
        fixes={LENGTH_TITLE: ("past_key_values[0][0].shape[2]", "past_key_values.get_seq_length()")},
        versions=("4.57.6",), runtime="OTHER", portable=True,
        note="the same read in a method of the class the override calls under `if past_key_values is not None:` "
             "(AirLLM's `get_past_key_values_cache_seq_len`): reported in the method, where it raises on 4.57.6",
    ),
    invalid(
        TRUTHY_CUT,
        flagged="past_key_values",
        occurrence=3,
        fixes={TRUTH_TITLE: ("        if past_key_values:\n",
                             "        if past_key_values is not None and past_key_values.get_seq_length() > 0:\n")},
        versions=("4.57.6", "5.23.0"), severity=Severity.WARNING, runtime="OTHER", portable=True,
        note="a 4.x override cutting its input `if past_key_values:`: generate's first-step cache is empty but "
             "truthy (one layer per decoder layer), so the first step runs 1 of the prompt's 5 tokens (the "
             "assertion fails; the fixed code runs)",
    ),
    invalid(
        NOT_NONE_CUT,
        flagged="past_key_values is not None",
        fixes={NOT_NONE_TITLE: ("        if past_key_values is not None:\n",
                                "        if past_key_values is not None and past_key_values.get_seq_length() > 0:\n")},
        versions=("4.57.6", "5.23.0"), severity=Severity.WARNING, runtime="OTHER", portable=True,
        note="the same override cutting its input `if past_key_values is not None:` (OpenVLA's): generate's "
             "first-step cache is empty but not None, so the first step runs 1 of the prompt's 5 tokens (the "
             "assertion fails; the fixed code runs)",
    ),
    invalid(
        OLD_NAME_ENTRY,
        flagged='"past_key_values": past',
        fixes={FED_TITLE.format(name="past"): (
            "    if input_ids.shape[1] > prompt.shape[1]:",
            '    past = kwargs.pop("cache", kwargs.pop("past_key_values", past))\n'
            "    if input_ids.shape[1] > prompt.shape[1]:")},
        severity=Severity.WARNING, runtime="OTHER", portable=True,
        note="the `past=` hook whose only read of `past` is the entry handing it on: the finding stands on that "
             "entry; the model decodes each new token without its past (the cache ends holding 1 token, not 7, on "
             "every release; the fixed code runs on each)",
    ),
)

__all__ = ["INVALID", "Invalid"]
