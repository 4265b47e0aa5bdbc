"""HFC010 on the model inputs transformers' own `prepare_inputs_for_generation` returns to a wrapper or an override
(engine/interpreter/hook_returns.py `_returned_reads`): read or swapped by the `"past_key_values"` key, which holds
no cache from 5.24.0 (docs/facts.md, `releases:model_inputs_hold_cache`); one finding per hook, one fix for all its
uses of the key."""

from __future__ import annotations

import pytest

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.base.findings import Finding, Severity
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.target import Target

HEAD = ("from transformers import AutoModelForCausalLM, LlamaForCausalLM\n\n"
        'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")\n'
        "original = model.prepare_inputs_for_generation\n\n\n")
PATCH = "\n\nmodel.prepare_inputs_for_generation = wrapped\n"


def found(text: str, version: str = "5.24.0") -> list[Finding]:
    result = check_source(text, "t.py", context=Context(target=Target.of(version)))
    return [f for f in result.findings if f.code == "HFC010"]


def wrapper(*body: str) -> str:
    return HEAD + "def wrapped(*args, **kwargs):\n    inputs = original(*args, **kwargs)\n" + \
        "".join(f"    {line}\n" for line in body) + "    return inputs\n" + PATCH


READS = [
    ('c = inputs.get("past_key_values")', 'inputs.get("past_key_values")', Severity.WARNING, "returns None",
     'c = inputs.get("cache", inputs.get("past_key_values"))'),
    ('c = inputs.pop("past_key_values", None)', 'inputs.pop("past_key_values", None)', Severity.WARNING,
     "returns None", 'c = inputs.pop("cache", inputs.pop("past_key_values", None))'),
    ('c = inputs["past_key_values"]', 'inputs["past_key_values"]', Severity.ERROR, "KeyError: 'past_key_values'",
     'c = inputs.get("cache", inputs.get("past_key_values"))'),
    ('ok = "past_key_values" in inputs', '"past_key_values" in inputs', Severity.WARNING, "this is False",
     'ok = ("cache" in inputs or "past_key_values" in inputs)'),
    ('ok = "past_key_values" not in inputs', '"past_key_values" not in inputs', Severity.WARNING, "this is True",
     'ok = ("cache" not in inputs and "past_key_values" not in inputs)'),
    ('inputs["past_key_values"] = None', 'inputs["past_key_values"]', Severity.WARNING, "the swap has no effect",
     'inputs["cache" if "cache" in inputs else "past_key_values"] = None'),
]


@pytest.mark.parametrize(("line", "span_text", "severity", "says", "fixed"), READS)
def test_each_use_of_the_old_key(line: str, span_text: str, severity: Severity, says: str, fixed: str) -> None:
    text = wrapper(line)
    got = found(text)
    assert len(got) == 1
    f = got[0]
    assert (f.severity, text[_offset(text, f.span.start):_offset(text, f.span.end)]) == (severity, span_text)
    assert says in f.message and "5.24.0" in f.message
    fix = next(x for x in f.fixes if x.title == "Find the cache under `cache` too")
    (edit,) = fix.edits
    after = text[:_offset(text, edit.span.start)] + edit.content + text[_offset(text, edit.span.end):]
    assert after == text.replace(line, fixed)
    assert found(text, "5.23.0") == [] and found(text, "4.57.6") == []


def test_finding_and_swapping_is_one_finding_with_one_fix() -> None:
    text = wrapper('if inputs.get("past_key_values") is None:',
                   '    inputs["past_key_values"] = make_cache()', 'n = inputs["past_key_values"].get_seq_length()')
    (f,) = found(text)
    assert f.severity == Severity.ERROR  # the subscript read raises
    assert "the swap has no effect" in f.message and '(also `inputs["past_key_values"]`)' in f.message
    (fix,) = [x for x in f.fixes if x.title.startswith("Find")]
    assert len(fix.edits) == 3


def test_an_override_through_super() -> None:
    text = ("from transformers import LlamaForCausalLM\n\n\nclass LM(LlamaForCausalLM):\n"
            "    def prepare_inputs_for_generation(self, *args, **kwargs):\n"
            "        model_inputs = super().prepare_inputs_for_generation(*args, **kwargs)\n"
            '        self.seen = model_inputs.get("past_key_values")\n        return model_inputs\n')
    assert len(found(text)) == 1


NOT_REPORTED = [
    # already looks under the new key
    wrapper('c = inputs.get("cache", inputs.get("past_key_values"))'),
    wrapper('key = "cache" if "cache" in inputs else "past_key_values"', "c = inputs.get(key)"),
    # a dict the hook built itself, not the one transformers' hook returned
    wrapper('mine = {"past_key_values": None}', 'c = mine["past_key_values"]'),
    # not installed as the model's hook (a helper called by the code itself)
    (HEAD + "def helper(*args, **kwargs):\n    inputs = original(*args, **kwargs)\n"
     '    return inputs["past_key_values"]\n'),
    # a project's own model class (no transformers base): its hook is its own
    ("class LM:\n    def prepare_inputs_for_generation(self, *args, **kwargs):\n"
     "        inputs = super().prepare_inputs_for_generation(*args, **kwargs)\n"
     '        return inputs["past_key_values"]\n'),
    # another key
    wrapper('ids = inputs["input_ids"]'),
]


@pytest.mark.parametrize("text", NOT_REPORTED)
def test_not_reported(text: str) -> None:
    assert found(text) == []


def _offset(text: str, pos: object) -> int:
    line, column = pos.line, pos.column  # type: ignore[attr-defined]
    return sum(len(x) + 1 for x in text.split("\n")[:line - 1]) + column
