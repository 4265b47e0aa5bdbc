"""HFC010 examples of the module's own attention class swapped in for transformers' by a walk over a loaded model's
submodules (engine/interpreter/attention_swaps.py); each runs unchanged under the oracle against real
transformers."""

from __future__ import annotations

from hf_cache_lint.engine.base.findings import Severity
from hf_cache_lint.rules.base import Invalid, Valid, invalid

_PATCH = "Hand the patch the cache as `cache` too (`past_key_values` on older releases)"

# quantized-training's `swap_module`: a recursive walk over `named_children()` replacing every `LlamaAttention` with
# the project's own module, whose forward takes the cache as `past_key_values` and the rest in `**kwargs`. The
# attention records whether it was handed a cache (`SEEN`), so the run shows what it got.
SWAPPED = (
    "import torch\n"
    "from transformers import LlamaConfig, LlamaForCausalLM\n"
    "from transformers.models.llama.modeling_llama import LlamaAttention\n"
    "\n"
    "SEEN = []\n"
    "\n"
    "\n"
    "class KiviAttention(torch.nn.Module):\n"
    "    def __init__(self, config, layer_idx):\n"
    "        super().__init__()\n"
    "        self.layer_idx = layer_idx\n"
    "        self.o_proj = torch.nn.Linear(config.hidden_size, config.hidden_size, bias=False)\n"
    "\n"
    "    def forward(self, hidden_states, attention_mask=None, past_key_values=None, **kwargs):\n"
    "        SEEN.append(past_key_values is not None)\n"
    "        return self.o_proj(hidden_states), None\n"
    "\n"
    "\n"
    "def swap_module(module):\n"
    "    for name, child in module.named_children():\n"
    "        if isinstance(child, LlamaAttention):\n"
    "            new_attn = KiviAttention(child.config, child.layer_idx)\n"
    "            setattr(module, name, new_attn)\n"
    "        else:\n"
    "            swap_module(child)\n"
    "    return module\n"
    "\n"
    "\n"
    "config = LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=32, num_hidden_layers=1,\n"
    "                     num_attention_heads=2, num_key_value_heads=1, pad_token_id=0, eos_token_id=63)\n"
    "model = swap_module(LlamaForCausalLM(config).eval())\n"
    "model.generate(torch.tensor([[1, 2, 3]]), max_new_tokens=2, min_new_tokens=2, do_sample=False)\n"
    "print(SEEN)\n"
)

INVALID: tuple[Invalid, ...] = (
    invalid(
        SWAPPED,
        flagged="past_key_values=None",
        fixes={_PATCH: ("        SEEN.append(past_key_values is not None)\n",
                        '        past_key_values = kwargs.get("cache", past_key_values)\n'
                        "        SEEN.append(past_key_values is not None)\n")},
        versions=("5.24.0", "5.25.0"), severity=Severity.WARNING, runtime="OK",
        message_contains="`KiviAttention.forward` (swapped in for `LlamaAttention`) takes the cache as "
                         "`past_key_values`",
        note="the project's attention swapped in by a recursive walk (quantized-training's `swap_module`): on 5.24 "
             "the decoder layer hands it `cache=`, which lands in `**kwargs`, so it never sees the cache (SEEN: "
             "True, True on 4.57.6 and 5.23.0; False, False on 5.24.0 and 5.25.0)",
    ),
)

VALID: tuple[Valid, ...] = (
    Valid(SWAPPED.replace("        if isinstance(child, LlamaAttention):\n", "        if name == \"unused\":\n"),
          note="the same walk replacing children it picks by another test: nothing says they are transformers' "
               "attention, so nothing says who calls the module, nor with what"),
)
