"""HFC010 examples of a hook whose first use of its cache parameter raises where that parameter is None (the release
passes the cache under another name: engine/interpreter/hook_none_reads.py); each runs unchanged under the oracle
against real transformers."""

from __future__ import annotations

from hf_cache_lint.engine.base.findings import Severity
from hf_cache_lint.rules.base import Invalid, Valid, invalid

_TAKE = "Take the cache as `cache` too (`past_key_values` on older releases)"

# An override written for 4.56+, where generate hands the hook a cache at every step (an empty one at the first):
# it reads the cached length before any test of the parameter.
UNTESTED = (
    "import torch\n"
    "from transformers import LlamaConfig, LlamaForCausalLM\n"
    "\n"
    "\n"
    "class Resume(LlamaForCausalLM):\n"
    "    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, attention_mask=None, **kwargs):\n"
    "        past_length = past_key_values.get_seq_length()\n"
    "        input_ids = input_ids[:, past_length:]\n"
    '        return {"input_ids": input_ids, "past_key_values": past_key_values, "use_cache": True}\n'
    "\n"
    "\n"
    "config = LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=32, num_hidden_layers=1,\n"
    "                     num_attention_heads=2, num_key_value_heads=1, pad_token_id=0, eos_token_id=63)\n"
    "prompt = torch.tensor([[1, 2, 3]])\n"
    "out = Resume(config).eval().generate(prompt, max_new_tokens=3, min_new_tokens=3, do_sample=False)\n"
    "assert out.shape[1] == 6\n"
)

# PyramidKV's patched hook tests the cache's type first: `not isinstance(None, tuple)` holds, so None reaches the read.
NOT_TUPLE = UNTESTED.replace(
    "        past_length = past_key_values.get_seq_length()\n",
    "        past_length = 0\n"
    "        if not isinstance(past_key_values, tuple):\n"
    "            past_length = past_key_values.get_seq_length()\n")

INVALID: tuple[Invalid, ...] = (
    invalid(
        UNTESTED,
        flagged="past_key_values.get_seq_length",
        fixes={_TAKE: ("        past_length = past_key_values",
                       '        past_key_values = kwargs.pop("cache", past_key_values)\n'
                       "        past_length = past_key_values")},
        versions=("5.24.0", "5.25.0"), severity=Severity.ERROR, runtime="OTHER", portable=True,
        message_contains="raises AttributeError: 'NoneType' object has no attribute 'get_seq_length' at the hook's "
                         "first call",
        note="the override reads the cache before testing it: on 5.24 the parameter is None there and the read raises "
             "(the traceback's last line of the project's own code: the finding stands on it)",
    ),
    invalid(
        NOT_TUPLE,
        flagged="past_key_values.get_seq_length",
        fixes={_TAKE: ("        past_length = 0\n",
                       '        past_key_values = kwargs.pop("cache", past_key_values)\n'
                       "        past_length = 0\n")},
        versions=("5.24.0", "5.25.0"), severity=Severity.ERROR, runtime="OTHER", portable=True,
        note="the read under `if not isinstance(past_key_values, tuple):` (PyramidKV's): None is no tuple, so it runs",
    ),
)

VALID: tuple[Valid, ...] = (
    Valid(UNTESTED.replace("        past_length = past_key_values.get_seq_length()\n",
                           '        past_key_values = kwargs.pop("cache", past_key_values)\n'
                           "        past_length = past_key_values.get_seq_length()\n"),
          note="the same override taking the cache under 5.24's name too"),
)
