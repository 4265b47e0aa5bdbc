"""HFC010 examples of a decode loop the code runs itself with transformers' `prepare_inputs_for_generation`, carrying
the cache with `_update_model_kwargs_for_generation` (hand_loop.py); each runs unchanged under the oracle against real
transformers."""

from __future__ import annotations

from hf_cache_lint.engine.base.findings import Severity
from hf_cache_lint.rules.base import Invalid, Valid
from hf_cache_lint.rules.snippets import patched_generate_loop, prelude

# InternLM's streaming chat, reduced: the dict starts with the prompt's positions (4.43-5.2's helper reads them), the
# hook gets the whole sequence and the step's cache, and the cache must end up holding each token once.
_LOOP = (
    "import torch\n" + prelude() + "\n"
    "input_ids = inputs[\"input_ids\"]\n"
    "model_kwargs = {\"attention_mask\": inputs[\"attention_mask\"], \"use_cache\": True,\n"
    "                \"cache_position\": torch.arange(input_ids.shape[1])}\n"
    "with torch.no_grad():\n"
    "    for step in range(3):\n"
    "        model_inputs = model.prepare_inputs_for_generation(IDS, **model_kwargs)\n"
    "        outputs = model(**model_inputs)\n"
    "        next_token = outputs.logits[:, -1].argmax(-1, keepdim=True)\n"
    "        input_ids = torch.cat([input_ids, next_token], dim=-1)\n"
    "        model_kwargs = model._update_model_kwargs_for_generation(outputs, model_kwargs)\n"
    "cache = model_kwargs.get(\"cache\", model_kwargs.get(\"past_key_values\"))\n"
    "assert cache.get_seq_length() == input_ids.shape[1] - 1, f\"the cache holds {cache.get_seq_length()} tokens\"\n"
)
LOOP = _LOOP.replace("IDS", "input_ids")

# ARGS' reward-guided search, reduced: transformers' hook called by hand with the whole sequence and the cache a
# prefill returned, its inputs fed to the model; the step must run the new token only.
_DIRECT = (
    "import torch\n" + prelude() + "\n"
    "ids = inputs[\"input_ids\"]\n"
    "with torch.no_grad():\n"
    "    cached = model(input_ids=ids, use_cache=True).past_key_values\n"
    "    longer = torch.cat([ids, torch.tensor([[42]])], dim=-1)\n"
    "    step = model(**model.prepare_inputs_for_generation(input_ids=CUT, past_key_values=cached, use_cache=True))\n"
    "assert step.logits.shape[1] == 1, f\"the step ran {step.logits.shape[1]} tokens\"\n"
)

# Proxy-Tuning's DExperts loop, reduced: transformers' hook handed the whole sequence and a dict into which the code's
# own helper stores each step's cache (own_carry.py); the cache must end up holding each token once.
_CARRY = (
    "import torch\n"
    "from transformers import LlamaConfig, LlamaForCausalLM\n\n"
    "config = LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=32, num_hidden_layers=1,\n"
    "                     num_attention_heads=2, num_key_value_heads=1, pad_token_id=0, eos_token_id=63)\n"
    "model = LlamaForCausalLM(config).eval()\n\n\n"
    "def carry(outputs, kwargs):\n"
    '    kwargs["past_key_values"] = outputs.past_key_values\n'
    "    return kwargs\n\n\n"
    "@torch.no_grad()\n"
    "def decode(input_ids, steps, **kwargs):\n"
    "    step_kwargs = dict(kwargs)\n"
    "    for _ in range(steps):\n"
    "        inputs = model.prepare_inputs_for_generation(input_ids, **step_kwargs)\n"
    "        outputs = model(**inputs)\n"
    "        input_ids = torch.cat([input_ids, outputs.logits[:, -1].argmax(-1, keepdim=True)], dim=-1)\n"
    "        step_kwargs = carry(outputs, step_kwargs)\n"
    "    return input_ids, step_kwargs\n\n\n"
    "ids, state = decode(torch.tensor([[1, 2, 3, 4, 5]]), 3, use_cache=True)\n"
    'cache = state["past_key_values"]\n'
    'assert cache.get_seq_length() == ids.shape[1] - 1, f"the cache holds {cache.get_seq_length()} tokens"\n'
)

# VibeVoice's streaming loop, reduced: the module's own hook (taking the cache as `past_key_values`, cutting to what
# the cache lacks) called by hand with the dict transformers' update carries (renamed_carry.py); each step after the
# first must run the new token only.
_RENAMED = (
    "import torch\n"
    "from transformers import LlamaConfig, LlamaForCausalLM\n\n\n"
    "class StreamLM(LlamaForCausalLM):\n"
    "    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, attention_mask=None, **kwargs):\n"
    "        if past_key_values is not None and past_key_values.get_seq_length() > 0:\n"
    "            input_ids = input_ids[:, past_key_values.get_seq_length():]\n"
    '        return {"input_ids": input_ids, "past_key_values": past_key_values, "attention_mask": attention_mask,\n'
    '                "use_cache": True}\n\n\n'
    "config = LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=32, num_hidden_layers=1,\n"
    "                     num_attention_heads=2, num_key_value_heads=1, pad_token_id=0, eos_token_id=63)\n"
    "lm = StreamLM(config).eval()\n"
    "ids = torch.tensor([[1, 2, 3, 4, 5]])\n"
    'model_kwargs = {"attention_mask": torch.ones_like(ids), "use_cache": True, "cache_position": torch.arange(5)}\n'
    "lengths = []\n"
    "with torch.no_grad():\n"
    "    for _ in range(3):\n"
    "        inputs = lm.prepare_inputs_for_generation(ids, **model_kwargs)\n"
    '        lengths.append(inputs["input_ids"].shape[1])\n'
    "        outputs = lm(**inputs)\n"
    "        ids = torch.cat([ids, outputs.logits[:, -1].argmax(-1, keepdim=True)], dim=-1)\n"
    "        model_kwargs = lm._update_model_kwargs_for_generation(outputs, model_kwargs)\n"
    'assert lengths == [5, 1, 1], f"the steps ran {lengths} tokens"\n'
)

INVALID: tuple[Invalid, ...] = (
    Invalid(
        _RENAMED,
        flagged="_update_model_kwargs_for_generation",
        versions=("5.24.0", "5.25.0"),
        severity=Severity.WARNING,
        runtime="OTHER",  # the assertion: every step ran the whole sequence without the carried cache
        message_contains="stores it there as `\"cache\"` (since 5.24.0)",
        note="transformers' update carrying the cache to the module's own hook, which takes it as `past_key_values` "
             "(VibeVoice's streaming CFG loop): steps of 5, 1, 1 tokens on 4.57.6 and 5.23.0, 5, 6, 7 on 5.24.0 and "
             "5.25.0",
    ),
    Invalid(
        _CARRY,
        flagged="prepare_inputs_for_generation",
        severity={"4.57.6": Severity.ERROR, "5.23.0": Severity.WARNING, "5.24.0": Severity.WARNING,
                  "5.25.0": Severity.WARNING},
        # 4.57.6: the TypeError at the second step (the oracle's classifier files it under HFC011's kind); from 5.3.0
        # the assertion (every step fed the whole sequence onto the carried cache)
        runtime={"4.57.6": "HFC011", "5.23.0": "OTHER", "5.24.0": "OTHER", "5.25.0": "OTHER"},
        message_contains="the cache the loop carries in `step_kwargs`",
        note="a decode loop carrying the cache into the hook's dict with a helper of its own (Proxy-Tuning's "
             "DExperts): 4.57.6's hook reads `cache_position[-1]` once it has a cache (TypeError); from 5.3.0 it cuts "
             "by `next_sequence_length` alone and returns the whole sequence",
    ),
    Invalid(
        LOOP,
        flagged="_update_model_kwargs_for_generation",
        versions=("5.23.0", "5.24.0", "5.25.0"),
        severity=Severity.WARNING,
        runtime="OTHER",  # the assertion: every step fed the whole sequence onto the carried cache
        message_contains="without `next_sequence_length`",
        note="a decode loop handing transformers' hook the whole sequence and the carried cache: from 5.3.0 the "
             "hook cuts to the new tokens by `next_sequence_length` alone, which only generate passes",
    ),
    Invalid(
        _DIRECT.replace("CUT", "longer"),
        flagged="prepare_inputs_for_generation",
        severity={"4.57.6": Severity.ERROR, "5.23.0": Severity.WARNING, "5.24.0": Severity.WARNING,
                  "5.25.0": Severity.WARNING},
        # 4.57.6: the TypeError (the oracle's classifier files it under HFC011's kind); from 5.3.0 the assertion (the
        # step ran the whole sequence again)
        runtime={"4.57.6": "HFC011", "5.23.0": "OTHER", "5.24.0": "OTHER", "5.25.0": "OTHER"},
        message_contains="prepare_inputs_for_generation(..., past_key_values=cached)` without",
        note="transformers' hook called by hand with the whole sequence and a cache, no positions (ARGS): 4.57.6's "
             "hook reads `cache_position[-1]` once it has a cache (TypeError); from 5.3.0 it cuts by "
             "`next_sequence_length` alone and returns the whole sequence",
    ),
    Invalid(
        patched_generate_loop(),
        flagged="_update_model_kwargs_for_generation",
        versions=("5.23.0", "5.24.0", "5.25.0"),
        severity=Severity.WARNING,
        runtime="OTHER",  # the assertion: every step fed the whole sequence onto the carried cache
        message_contains="without `next_sequence_length`",
        note="the same loop set on `GenerationMixin` as `generate` (EasyEdit's DeCo): `self` is every model there, "
             "and the dict is the loop's own (4.57.6: HFC007's KeyError first)",
    ),
)

VALID: tuple[Valid, ...] = (
    Valid(_RENAMED.replace("    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, attention_mask=None, "
                           "**kwargs):\n",
                           "    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, attention_mask=None, "
                           "**kwargs):\n"
                           '        past_key_values = kwargs.pop("cache", past_key_values)\n'),
          note="the same hook taking the cache as `cache` too: steps of 5, 1, 1 tokens on every release"),
    Valid(_CARRY.replace("        step_kwargs = carry(outputs, step_kwargs)\n", "").replace(
        'cache = state["past_key_values"]\n', "cache = outputs = None\n").replace(
        'assert cache.get_seq_length() == ids.shape[1] - 1, f"the cache holds {cache.get_seq_length()} tokens"\n',
        "assert ids.shape[1] == 8\n"),
          note="the same loop carrying no cache: every step runs the whole sequence, as its author means, on every "
               "release"),
    Valid(_DIRECT.replace("CUT", "longer, cache_position=torch.arange(cached.get_seq_length(), longer.shape[1])"),
          versions=("4.57.6",),
          note="transformers' hook called by hand with the new tokens' positions, which 4.43-5.2's hook cuts by"),
    Valid(_DIRECT.replace("CUT", "longer[:, cached.get_seq_length():]"),
          versions=("5.23.0", "5.24.0", "5.25.0"),
          note="transformers' hook called by hand with only the tokens the cache lacks (5.3.0 on: it keeps them)"),
    Valid(_LOOP.replace("IDS", "input_ids[:, -1:] if step else input_ids"),
          note="the same loop cutting the input to the new token itself once the cache holds the rest"),
    Valid(patched_generate_loop("input_ids[:, -1:] if step else input_ids", positions=True),
          note="the loop set on `GenerationMixin`, cutting its input once the cache holds the rest"),
)
