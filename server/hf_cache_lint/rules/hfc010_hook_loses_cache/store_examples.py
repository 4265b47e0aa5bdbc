"""HFC010 examples of a forward pre-hook storing a cache of its own into a layer's keywords only where the layer was
called with a given name (`if "past_key_values" in kwargs:`), registered on each module a function given to
`model.apply` picks (AutoRound's FP8 key/value calibration); each runs unchanged under the oracle against real
transformers."""

from __future__ import annotations

from hf_cache_lint.engine.base.findings import Severity
from hf_cache_lint.rules.base import Invalid, Valid, invalid
from hf_cache_lint.rules.hfc010_hook_loses_cache.examples import STORE_TITLE

# The hook tests the layer's keywords for 4.56's name and falls back to 4.55's; the registration is on whatever
# module `model.apply` hands `prepare` that an attention predicate accepts. The run asserts that the calibration
# cache saw the prompt.
GUARDED_STORE = (
    "import torch\nfrom transformers import AutoModelForCausalLM, DynamicCache\n\n"
    'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")\n'
    "prompt = torch.tensor([[1, 5, 9, 14, 20]])\n"
    "CALIBRATION = DynamicCache()\n\n\n"
    "def hand_cache(module, args, kwargs):\n"
    '    if "past_key_values" in kwargs:\n'
    '        kwargs["past_key_values"] = CALIBRATION\n'
    "    else:\n"
    '        kwargs["past_key_value"] = CALIBRATION\n'
    '    kwargs["use_cache"] = False\n'
    "    return args, kwargs\n\n\n"
    "def is_attention_module(module):\n"
    '    return "attention" in type(module).__name__.lower() and hasattr(module, "k_proj")\n\n\n'
    "def prepare(module):\n"
    "    if is_attention_module(module):\n"
    "        module.register_forward_pre_hook(hand_cache, with_kwargs=True)\n\n\n"
    "model.apply(prepare)\n"
    "with torch.no_grad():\n"
    "    model(prompt, use_cache=False)\n"
    "assert CALIBRATION.get_seq_length() == 5, f\"the calibration cache saw {CALIBRATION.get_seq_length()} tokens\"\n")

INVALID: tuple[Invalid, ...] = (
    invalid(
        GUARDED_STORE,
        flagged='"past_key_values" in kwargs',
        fixes={STORE_TITLE: (('    if "past_key_values" in kwargs:\n',
                              '    if ("cache" in kwargs or "past_key_values" in kwargs):\n'),
                             ('        kwargs["past_key_values"] = CALIBRATION\n',
                              '        kwargs["cache" if "cache" in kwargs else "past_key_values" if "past_key_values" '
                              'in kwargs else "past_key_value"] = CALIBRATION\n'))},
        severity=Severity.WARNING, versions=("5.24.0", "5.25.0"), runtime="OTHER", portable=True,
        message_contains="so this test is False and the store under it",
        note="a calibration pre-hook storing its cache only where the layer was called with `past_key_values` (else "
             "under 4.55's `past_key_value`), registered on the modules `model.apply` hands a function that an "
             "attention predicate accepts (AutoRound's): from 5.24 the layer gets `cache=`, the test is False, the "
             "fallback name is ignored and the calibration cache stays empty (here the assertion fails); the fix "
             "lets the test through on `cache` and stores under the name the layer was called with",
    ),
)

VALID: tuple[Valid, ...] = (
    Valid(GUARDED_STORE.replace('    if "past_key_values" in kwargs:\n',
                                '    if "cache" in kwargs:\n        kwargs["cache"] = CALIBRATION\n'
                                '    elif "past_key_values" in kwargs:\n'),
          note="the same hook testing 5.24's `cache` first: it stores under the name the layer takes on every "
               "release"),
    Valid(GUARDED_STORE.replace('    if "past_key_values" in kwargs:\n        kwargs["past_key_values"] = CALIBRATION\n'
                                '    else:\n        kwargs["past_key_value"] = CALIBRATION\n',
                                '    if "position_ids" in kwargs:\n        module.positions = kwargs["position_ids"]\n')
          .replace("== 5, f", "== 0, f"),
          note="a pre-hook on the same modules whose keywords it reads by no cache name: nothing says it is a "
               "transformers layer's, nor what it is called with"),
)
