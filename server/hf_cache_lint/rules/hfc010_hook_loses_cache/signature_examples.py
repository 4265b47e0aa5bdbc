"""HFC010 examples of code finding the cache among a transformers forward's parameters by name
(rules/hfc010_hook_loses_cache/signature_names.py); each runs unchanged under the oracle against real
transformers."""

from __future__ import annotations

from hf_cache_lint.engine.base.findings import Severity
from hf_cache_lint.rules.base import Invalid, Valid, invalid
from hf_cache_lint.rules.hfc010_hook_loses_cache.signature_names import FIX_TITLE

_HEAD = (
    "import inspect\n\nimport torch\nfrom transformers import AutoModelForCausalLM\n\n"
    'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")\n'
    "past = model(torch.tensor([[1, 5, 9, 14, 20]]), use_cache=True).past_key_values\n\n\n")

# An exporter's patched forward (Optimum Intel's): the tracer hands the cache by position, found by its name.
POSITION = _HEAD + (
    "def traced_step(ids, cache):\n"
    "    names = list(inspect.signature(model.forward).parameters.keys())\n"
    '    at = names.index("past_key_values")\n'
    "    args = [None] * (at + 1)\n"
    "    args[0], args[at] = ids, cache\n"
    "    return model(*args, use_cache=True)\n\n\n"
    "out = traced_step(torch.tensor([[7]]), past)\n"
    "assert out.past_key_values.get_seq_length() == 6\n")

# A caller handing the cache only where the forward says it takes it.
TESTED = _HEAD + (
    "def step(ids, cache):\n"
    "    params = inspect.signature(model.forward).parameters\n"
    '    if "past_key_values" in params:\n'
    "        return model(ids, past_key_values=cache, use_cache=True)\n"
    "    return model(ids, use_cache=True)\n\n\n"
    "out = step(torch.tensor([[7]]), past)\n"
    "assert out.past_key_values.get_seq_length() == 6, out.past_key_values.get_seq_length()\n")

_24 = ("5.24.0", "5.25.0")

INVALID: tuple[Invalid, ...] = (
    invalid(
        POSITION, flagged='names.index("past_key_values")',
        fixes={FIX_TITLE: ('names.index("past_key_values")',
                           'names.index("cache" if "cache" in names else "past_key_values")')}, portable=True, versions=_24, severity=Severity.ERROR,
        runtime="OTHER", message_contains="ValueError: 'past_key_values' is not in list",
        note="the cache's position found by its name among the forward's parameters (Optimum Intel's export "
             "patchers): from 5.24 the forward takes `cache`, so `.index` raises ValueError",
    ),
    invalid(
        TESTED, flagged='"past_key_values" in params',
        fixes={FIX_TITLE: ('"past_key_values" in params', '("cache" in params or "past_key_values" in params)')},
        portable=True, versions=_24, severity=Severity.WARNING,
        runtime="OTHER", message_contains="so this test is False",
        note="the cache handed only where the forward's signature names `past_key_values`: from 5.24 the test is "
             "False and the step runs without its cache (here the assertion on the cache's length fails: 1)",
    ),
)

VALID: tuple[Valid, ...] = (
    Valid(TESTED.replace('    if "past_key_values" in params:\n',
                         '    if "cache" in params:\n'
                         "        return model(ids, cache=cache, use_cache=True)\n"
                         '    if "past_key_values" in params:\n'),
          note="the same caller looking for 5.24's `cache` first: it hands the cache on every release"),
    Valid(_HEAD + (
        "class Adapter(torch.nn.Module):\n"
        "    def forward(self, ids, past_key_values=None):\n"
        "        return ids\n\n"
        "    def takes_cache(self):\n"
        '        return "past_key_values" in inspect.signature(self.forward).parameters\n\n\n'
        "assert Adapter().takes_cache()\n"),
          note="the signature of the module's own `forward`: its parameters are its own on every release"),
)
