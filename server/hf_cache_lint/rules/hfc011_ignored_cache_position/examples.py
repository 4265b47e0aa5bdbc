"""HFC011 examples that must be flagged; each runs unchanged under the oracle against real transformers."""

from __future__ import annotations

from hf_cache_lint.engine.base.findings import Severity
from hf_cache_lint.rules.base import Invalid, invalid

_5X = ("5.23.0", "5.24.0", "5.25.0")
REMOVE_TITLE = "Remove `cache_position=` (unsafe: a rollback then appends)"
_LOAD = ("import torch\nfrom transformers import AutoModelForCausalLM, DynamicCache, StaticCache\n\n"
         'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")\n'
         "prompt = torch.tensor([[1, 5, 9, 14, 20]])\n")

PRESS = (_LOAD + "\n\n"
         "class PositionPressCache(DynamicCache):\n"
         "    positions = []\n\n"
         "    def update(self, key_states, value_states, layer_idx, cache_kwargs=None, **kwargs):\n"
         '        self.positions.append(int(cache_kwargs["cache_position"][-1]))\n'
         "        return super().update(key_states, value_states, layer_idx, cache_kwargs, **kwargs)\n\n\n"
         "model(prompt, past_key_values=PositionPressCache(), use_cache=True)\n")

HOOK = (_LOAD + "\n\n"
        "def prefill_only(module, args, kwargs, output):\n"
        '    module.prefilled = bool(kwargs["cache_position"][0] == 0)\n'
        "    return output\n\n\n"
        "for layer in model.model.layers:\n"
        "    layer.self_attn.register_forward_hook(prefill_only, with_kwargs=True)\n"
        "model(prompt, past_key_values=DynamicCache(), use_cache=True)\n")

ROLLBACK = (_LOAD +
            "cache = StaticCache(config=model.config, max_cache_len=16)\n"
            "model(prompt, past_key_values=cache, use_cache=True)\n"
            "model(torch.tensor([[40]]), past_key_values=cache, cache_position=torch.tensor([5]), use_cache=True)\n"
            "logits = model(torch.tensor([[41]]), past_key_values=cache, use_cache=True).logits\n")

SLOT = (_LOAD +
        "cache = StaticCache(config=model.config, max_cache_len=16)\n"
        "model(prompt, past_key_values=cache, use_cache=True)\n"
        "k = torch.ones(1, model.config.num_key_value_heads, 1, model.config.head_dim)\n"
        'cache.update(k, k, 0, {"cache_position": torch.tensor([9])})\n')

PATCHED = ("import torch\nfrom transformers import AutoModelForCausalLM\n"
           "from transformers.models.llama import modeling_llama\n\n"
           'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")\n'
           "prompt = torch.tensor([[1, 5, 9, 14, 20]])\n"
           "original = modeling_llama.LlamaAttention.forward\n\n\n"
           "def forward(self, hidden_states, cache_position=None, **kwargs):\n"
           "    self.last_position = int(cache_position[-1])\n"
           "    return original(self, hidden_states, **kwargs)\n\n\n"
           "modeling_llama.LlamaAttention.forward = forward\n"
           "model.generate(prompt, max_new_tokens=2)\n")

PREPARE = ("import torch\nfrom transformers import LlamaForCausalLM\n\n\n"
           "class PrefixLM(LlamaForCausalLM):\n"
           "    def prepare_inputs_for_generation(self, input_ids, cache_position=None, **kwargs):\n"
           "        self.decoding = bool(cache_position[0] > 0)\n"
           "        return super().prepare_inputs_for_generation(input_ids, cache_position=cache_position, **kwargs)\n\n\n"
           'model = PrefixLM.from_pretrained("meta-llama/Llama-3.2-1B")\n'
           "model.generate(torch.tensor([[1, 5, 9, 14, 20]]), max_new_tokens=2)\n")

# LiveCC's streaming hook, bound to the loaded model with `functools.partial` (a `.eval()` load): it hands its own
# `cache_position` on by name, then reads the position from the model inputs transformers' hook returns.
RETURNED = ("import functools\n\nimport torch\nfrom transformers import AutoModelForCausalLM\n\n"
            'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B").eval()\n\n\n'
            "def prepare(self, input_ids, past_key_values=None, attention_mask=None, cache_position=None, "
            "**kwargs):\n"
            "    model_inputs = super(self.__class__, self).prepare_inputs_for_generation(\n"
            "        input_ids, past_key_values=past_key_values, attention_mask=attention_mask,\n"
            "        cache_position=cache_position, **kwargs)\n"
            '    self.continuing = bool(model_inputs["cache_position"][0] != 0)\n'
            "    return model_inputs\n\n\n"
            "model.prepare_inputs_for_generation = functools.partial(prepare, model)\n"
            "model.generate(torch.tensor([[1, 5, 9, 14, 20]]), max_new_tokens=2, min_new_tokens=2)\n")

INVALID: tuple[Invalid, ...] = (
    invalid(
        PRESS,
        flagged='cache_kwargs["cache_position"]',
        fixes={},
        versions=_5X, runtime="HFC011",
        note="a press-style `Cache.update` override reading the positions the attention layers passed until 5.3",
    ),
    invalid(
        PRESS.replace('int(cache_kwargs["cache_position"][-1])', 'cache_kwargs.get("cache_position")'),
        flagged='cache_kwargs.get("cache_position")',
        fixes={},
        versions=_5X, runtime="HFC011",
        note="`.get` on the fourth argument, which 5.4+ no longer pass (AttributeError on None)",
    ),
    invalid(
        PRESS.replace('self.positions.append(int(cache_kwargs["cache_position"][-1]))',
                      'self.positions.append(cache_kwargs.get("sin") is not None)'),
        flagged='cache_kwargs.get("sin")',
        fixes={},
        versions=_5X, runtime="HFC011",
        note="an H2O-style override reading the rotary tables from `cache_kwargs`: 5.4+ pass no dict (None)",
    ),
    invalid(
        HOOK,
        flagged='kwargs["cache_position"]',
        fixes={},
        versions=_5X, runtime="HFC011",
        note="a forward hook `with_kwargs=True` on the attention layers: 5.4 removed `cache_position` from them",
    ),
    invalid(
        ROLLBACK,
        flagged="cache_position=torch.tensor([5])",
        fixes={REMOVE_TITLE: (", cache_position=torch.tensor([5])", "")},
        versions=_5X, severity=Severity.WARNING, runtime="OK", portable=True,
        note="a rollback that re-sends positions to a StaticCache: from 5.4 the positions are ignored (silently)",
    ),
    invalid(
        SLOT,
        flagged='"cache_position": torch.tensor([9])',
        fixes={},
        versions=_5X, severity=Severity.WARNING, runtime="OK",
        note="positions given to `StaticCache.update`: from 5.4 it writes at its own running length (silently)",
    ),
    invalid(
        PATCHED,
        flagged="cache_position[-1]",
        fixes={},
        versions=_5X, runtime="HFC011",
        note="a `cache_position` parameter of a patched attention `forward`: from 5.4 nothing passes it, so it is "
             "None",
    ),
    invalid(
        PREPARE,
        flagged="cache_position[0]",
        fixes={},
        versions=_5X, runtime="HFC011",
        note="a `cache_position` parameter of a `prepare_inputs_for_generation` override (handing it on by name "
             "is not the use that fails)",
    ),
    invalid(
        PREPARE.replace("input_ids, cache_position=None, **kwargs):\n",
                        "input_ids, inputs_embeds=None, cache_position=None, **kwargs):\n"
                        "        if inputs_embeds is not None:\n"
                        "            input_ids = input_ids[:, -cache_position.shape[0]:]\n")
        .replace("(input_ids, cache_position=cache_position, **kwargs)",
                 "(input_ids, inputs_embeds=inputs_embeds, cache_position=cache_position, **kwargs)"),
        flagged="cache_position[0]",
        fixes={},
        versions=_5X, runtime="HFC011",
        note="the use every call reaches is the one flagged, not the earlier one under `if inputs_embeds is not "
             "None:` (a VLM copy's override: generate from token ids never takes that branch)",
    ),
    invalid(
        PRESS.replace("cache_kwargs=None, **kwargs):", "cache_kwargs={}, **kwargs):"),
        flagged='cache_kwargs["cache_position"]',
        fixes={},
        versions=_5X, runtime="HFC011",
        note="`cache_kwargs={}` as the default: from 5.4 the override reads that empty dict (KeyError, not the "
             "TypeError on None)",
    ),
    invalid(
        PRESS.replace('        self.positions.append(int(cache_kwargs["cache_position"][-1]))\n',
                      "        cache_kwargs = cache_kwargs or {}\n"
                      '        self.positions.append(int(cache_kwargs["cache_position"][-1]))\n'),
        flagged='cache_kwargs["cache_position"]',
        fixes={},
        versions=_5X, runtime="HFC011",
        note="`cache_kwargs = cache_kwargs or {}` before a subscript: from 5.4 that is the empty dict (KeyError), "
             "not a guard",
    ),
    invalid(
        PRESS.replace('        self.positions.append(int(cache_kwargs["cache_position"][-1]))\n',
                      "        if cache_kwargs is None:\n"
                      "            cache_kwargs = {}\n"
                      '        self.positions.append(int(cache_kwargs["cache_position"][-1]))\n'),
        flagged='cache_kwargs["cache_position"]',
        fixes={},
        versions=_5X, runtime="HFC011",
        note="`if cache_kwargs is None: cache_kwargs = {}` before a subscript: the same empty dict (KeyError)",
    ),
    invalid(
        PRESS.replace("cache_kwargs=None, **kwargs):", "cache_kwargs=None):")
        .replace("cache_kwargs, **kwargs)", "cache_kwargs)"),
        flagged='cache_kwargs["cache_position"]',
        fixes={},
        versions=("5.23.0",),
        runtime={"4.57.6": "OK", "5.23.0": "HFC011", "5.24.0": "HFC010", "5.25.0": "HFC010"},
        note="an override without `**kwargs`: 5.4-5.23 call it without the dict (TypeError on None); from 5.24 the "
             "call itself raises on `kwargs=` before the body runs (HFC010's finding), so no read is reported there",
    ),
    invalid(
        RETURNED,
        flagged='model_inputs["cache_position"][0]',
        fixes={},
        versions=_5X, runtime="HFC011",
        note="the position read from the inputs transformers' hook returned, in a hook bound with "
             "`functools.partial(f, model)` that hands its own `cache_position` on: from 5.4 that is None "
             "(TypeError on `[0]`)",
    ),
    invalid(
        RETURNED.replace("        cache_position=cache_position, **kwargs)", "        **kwargs)")
        .replace(" cache_position=None, **kwargs", " **kwargs"),
        flagged='model_inputs["cache_position"]',
        fixes={},
        versions=_5X, runtime="HFC011",
        note="the same read where the position rides in the hook's `**kwargs`: from 5.4 the returned inputs have "
             "no such key (KeyError)",
    ),
)

__all__ = ["INVALID", "Invalid"]
