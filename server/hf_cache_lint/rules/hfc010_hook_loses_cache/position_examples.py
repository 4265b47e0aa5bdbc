"""HFC010 examples of a `prepare_inputs_for_generation` override cutting the positions generate hands it only where it
builds them itself (full_positions.py); each runs unchanged under the oracle against real transformers."""

from __future__ import annotations

from hf_cache_lint.engine.base.findings import Severity
from hf_cache_lint.rules.base import Invalid, Valid

# The 4.3x Llama template's hook (KVMix's, CEPE's, AlpacaFarm's), reading the cache under 5.24's name too and
# testing it by its length (not by its truth value: `_truthy_cuts`' mechanism kept apart).
TEMPLATE = (
    "import torch\n"
    "from transformers import LlamaConfig, LlamaForCausalLM\n"
    "\n"
    "\n"
    "class Chat(LlamaForCausalLM):\n"
    "    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, attention_mask=None, **kwargs):\n"
    '        past_key_values = kwargs.pop("cache", past_key_values)\n'
    "        if past_key_values is not None and past_key_values.get_seq_length() > 0:\n"
    "            input_ids = input_ids[:, -1:]\n"
    '        position_ids = kwargs.get("position_ids", None)\n'
    "        if attention_mask is not None and position_ids is None:\n"
    "            position_ids = attention_mask.long().cumsum(-1) - 1\n"
    "            position_ids.masked_fill_(attention_mask == 0, 1)\n"
    "            if past_key_values is not None and past_key_values.get_seq_length() > 0:\n"
    "                position_ids = position_ids[:, -1:]\n"
    '        return {"input_ids": input_ids, "position_ids": position_ids, "past_key_values": past_key_values,\n'
    '                "use_cache": kwargs.get("use_cache"), "attention_mask": attention_mask}\n'
    "\n"
    "\n"
    "config = LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=32, num_hidden_layers=1,\n"
    "                     num_attention_heads=2, num_key_value_heads=1, pad_token_id=0, eos_token_id=63)\n"
    "chat = Chat(config).eval()\n"
    "prompt = torch.tensor([[1, 2, 3]])\n"
    "out = chat.generate(prompt, attention_mask=torch.ones_like(prompt), max_new_tokens=3, min_new_tokens=3,\n"
    "                    do_sample=False)\n"
)

INVALID: tuple[Invalid, ...] = (
    Invalid(
        TEMPLATE,
        flagged="kwargs",
        versions=("5.23.0", "5.24.0", "5.25.0"),
        severity=Severity.ERROR,
        runtime="OTHER",  # RuntimeError: mat1 and mat2 shapes cannot be multiplied
        message_contains="hands the hook `position_ids=` for the whole sequence",
        note="the hook cuts the input to the new token and hands the model generate's positions for the whole "
             "sequence (from 5.2.0)",
    ),
)

VALID: tuple[Valid, ...] = (
    Valid(TEMPLATE.replace('position_ids = kwargs.get("position_ids", None)', "position_ids = None"),
          note="the same hook building its own positions at every step (and cutting them)"),
    Valid(TEMPLATE.replace("        if attention_mask is not None and position_ids is None:\n",
                           "        if position_ids is not None and past_key_values is not None and "
                           "past_key_values.get_seq_length() > 0:\n"
                           "            position_ids = position_ids[:, -input_ids.shape[1]:]\n"
                           "        if attention_mask is not None and position_ids is None:\n"),
          note="the same hook cutting the positions it is given as it cuts the input"),
)
