"""A patch whose value is wrapped in parentheses to break a long line (`Cls.prepare_inputs_for_generation = (` with
`f)` on the next line, DynamicKV's) patches the same function as without them: the three readers of such patches
(hooks.py's `_patch`, patched_attentions.py, decoding_overrides.py) read `unparenthesised` values, so each gives the
same facts for both texts; a tuple keeps its parentheses (`unparenthesised` leaves it as it is)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest

from hf_cache_lint.engine.interpreter import interp
from hf_cache_lint.engine.interpreter.decoding_overrides import decoding_override_facts
from hf_cache_lint.engine.interpreter.hooks import hook_facts
from hf_cache_lint.engine.interpreter.patched_attentions import patched_attention_facts
from hf_cache_lint.engine.syntax.nodes import unparenthesised

_HOOK = ("import torch\nfrom transformers import LlamaForCausalLM\n\n\n"
         "def prepare(self, input_ids, past_key_values=None, **kwargs):\n"
         "    if past_key_values is not None:\n        input_ids = input_ids[:, -1:]\n"
         '    return {"input_ids": input_ids, "past_key_values": past_key_values}\n\n\n'
         "LlamaForCausalLM.prepare_inputs_for_generation = prepare\n")
_ATTENTION = ("import types\n\nfrom transformers import AutoModelForCausalLM\n\n\n"
              "def sink_forward(self, hidden_states, attention_mask=None, past_key_value=None, **kwargs):\n"
              "    return hidden_states, None, past_key_value\n\n\n"
              'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")\n'
              "for layer in model.model.layers:\n"
              "    layer.self_attn.forward = types.MethodType(sink_forward, layer.self_attn)\n")
_LOOP = ("from transformers import AutoModelForCausalLM, GenerationMixin\n\n\n"
         "def sample(self, input_ids, logits_processor, stopping_criteria, generation_config, synced_gpus, "
         "streamer, **model_kwargs):\n    return input_ids\n\n\n"
         "GenerationMixin._sample = sample\n"
         'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")\n'
         "model.generate(input_ids=None, max_new_tokens=2, do_sample=True)\n")


def _hooks(text: str) -> Sequence[object]:
    return hook_facts(interp.parse(text), text)[0]


def _attentions(text: str) -> Sequence[object]:
    return patched_attention_facts(interp.parse(text), text)


def _loops(text: str) -> Sequence[object]:
    return decoding_override_facts(interp.parse(text), text)


def _wrapped(text: str, value: str) -> str:
    """`text` with the assignment of `value` written as `(` and, on the next line, `value)`."""
    assert text.count(f" = {value}\n") == 1
    return text.replace(f" = {value}\n", f" = (\n    {value})\n")


def _shape(facts: Sequence[object]) -> list[tuple[str, int]]:
    """Each fact's kind and the line its span starts on (the patched function's, or the patch statement's)."""
    return [(type(f).__name__, f.span.start.line) for f in facts]  # type: ignore[attr-defined]


@pytest.mark.parametrize(("text", "value", "read"), [
    (_HOOK, "prepare", _hooks),
    (_ATTENTION, "types.MethodType(sink_forward, layer.self_attn)", _attentions),
    (_LOOP, "sample", _loops),
], ids=["hook", "patched-attention", "decoding-loop"])
def test_a_wrapped_patch_line_patches_the_same_function(
        text: str, value: str, read: Callable[[str], Sequence[object]]) -> None:
    plain = read(text)
    assert plain, "the plain patch gives a fact (else the comparison says nothing)"
    wrapped = read(_wrapped(text, value))
    # The patched function's lines are the same in both texts; the patch statement's own line is too (it starts
    # where it started, only its value moved to the next line).
    assert _shape(wrapped) == _shape(plain)


def test_a_tuple_keeps_its_parentheses() -> None:
    tree = interp.parse("x = (f, g)\ny = ((f))\nz = (f for f in g)\n")
    values = [stmt.children[0].children[2] for stmt in tree.children[:3]]
    assert unparenthesised(values[0]) is values[0]
    assert unparenthesised(values[1]).type == "name"
    assert unparenthesised(values[2]) is values[2]
