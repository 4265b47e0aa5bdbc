"""A legacy list reaching a forward as an entry of a `**dict`: reported at the entry's key when the function that
calls the forward set it, at the call's `**dict` when a caller (or a helper) set it, since that is where the
forward raises (what runs in the callee is judged in the callee, as HFC009's uses of a cache parameter are)."""

from __future__ import annotations

from hf_cache_lint.engine.base.findings import Span
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.release_version import Version
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.engine.facts.forward_cache import KIND, ForwardCache
from hf_cache_lint.engine.interpreter.interp import analyse

HEAD = (
    "import torch\n"
    "from transformers import AutoModelForCausalLM\n\n"
    "model = AutoModelForCausalLM.from_pretrained('Qwen/Qwen2.5-0.5B')\n\n"
    "def merged(n):\n"
    "    pairs = []\n"
    "    for i in range(n):\n        pairs.append((torch.zeros(1), torch.zeros(1)))\n"
    "    return pairs\n\n"
)


def facts(text: str) -> list[ForwardCache]:
    return list(analyse(text, "<test>", Context(target=Target(Version.parse("5.24.0")))).of(KIND))


def where(text: str, s: Span | None) -> str | None:
    if s is None:
        return None
    line = text.splitlines()[s.start.line - 1]
    return line[s.start.column:s.end.column] if s.start.line == s.end.line else line[s.start.column:]


def test_an_entry_a_caller_set_is_reported_at_the_callee_spread() -> None:
    text = HEAD + (
        "def step(model, inputs):\n"
        "    return model(**inputs)\n\n"
        "def loop(model, inputs):\n"
        "    return step(model, inputs)\n\n"
        "def run():\n"
        "    loop(model, {'input_ids': torch.ones(1, 1), 'past_key_values': merged(2)})\n")
    got = facts(text)
    assert [(f.span.start.line, where(text, f.span), f.spread, f.container) for f in got] == \
        [(13, "**inputs", "inputs", "list")]
    assert got[0].entry is not None and where(text, got[0].entry) == "'past_key_values'"
    assert got[0].entry.start.line == 19


def test_an_entry_set_where_the_forward_is_called_stays_at_its_key() -> None:
    text = HEAD + (
        "def run():\n"
        "    inputs = {'input_ids': torch.ones(1, 1), 'past_key_values': merged(2)}\n"
        "    return model(**inputs)\n")
    got = facts(text)
    assert [(where(text, f.span), f.entry) for f in got] == [("'past_key_values'", None)]


def test_a_dict_a_helper_built_is_reported_at_the_module_level_spread() -> None:
    text = HEAD + (
        "def make_inputs():\n"
        "    return {'input_ids': torch.ones(1, 1), 'past_key_values': merged(2)}\n\n"
        "inputs = make_inputs()\n"
        "model(**inputs)\n")
    got = facts(text)
    assert [(f.span.start.line, where(text, f.span)) for f in got] == [(16, "**inputs")]
    assert got[0].entry is not None and got[0].entry.start.line == 13
