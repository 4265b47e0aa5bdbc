"""A hook whose first use of its cache parameter raises where the parameter is None (engine/interpreter/
hook_none_reads.py): from 5.24 generate passes `prepare_inputs_for_generation` the cache as `cache=`, the parameter
keeps its default and the read raises at the hook's first call. HFC010 reports that read (an Error, the traceback's
last project line) instead of "runs without the cache (silently)" on the parameter; HFC011 does not report a
`cache_position` read the body never reaches (PyramidKV's patched hook, heldout20: its `key_cache` read raises first
on 5.23.0 and 5.24.0). The oracle: HFC010's none_examples raise AttributeError on 5.24.0 and 5.25.0, run on 4.57.6
and 5.23.0."""

from __future__ import annotations

import pytest

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.base.findings import Finding, Severity
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.target import Target

HOOK = ("from transformers import LlamaForCausalLM\n\n\n"
        "class M(LlamaForCausalLM):\n"
        "    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, attention_mask=None,\n"
        "                                      cache_position=None, **kwargs):\n"
        "BODY"
        '        return {"input_ids": input_ids, "past_key_values": past_key_values}\n')


def found(body: str, version: str = "5.24.0", code: str = "HFC010") -> list[Finding]:
    text = HOOK.replace("BODY", body)
    result = check_source(text, "t.py", context=Context(target=Target.of(version)))
    return [f for f in result.findings if f.code == code]


@pytest.mark.parametrize(("body", "line", "text", "error"), [
    pytest.param("        n = past_key_values.get_seq_length()\n", 7, "past_key_values.get_seq_length",
                 "AttributeError: 'NoneType' object has no attribute 'get_seq_length'", id="attribute"),
    pytest.param("        n = past_key_values[0][0].shape[2]\n", 7, "past_key_values[0]",
                 "TypeError: 'NoneType' object is not subscriptable", id="subscript"),
    pytest.param("        n = len(past_key_values)\n", 7, "len(past_key_values)",
                 "TypeError: object of type 'NoneType' has no len()", id="len"),
    pytest.param("        if not isinstance(past_key_values, tuple):\n"
                 "            n = past_key_values.get_seq_length()\n", 8, "past_key_values.get_seq_length",
                 "AttributeError", id="not-isinstance"),
    pytest.param("        if past_key_values.get_seq_length() > 0:\n"
                 "            input_ids = input_ids[:, -1:]\n", 7, "past_key_values.get_seq_length",
                 "AttributeError", id="in-the-test"),
    pytest.param("        with torch.no_grad():\n"
                 "            n = past_key_values.get_seq_length()\n", 8, "past_key_values.get_seq_length",
                 "AttributeError", id="with"),
])
def test_the_raising_read_is_reported(body: str, line: int, text: str, error: str) -> None:
    (finding,) = found(body)
    assert finding.severity == Severity.ERROR and finding.span.start.line == line
    assert f"`{text}`" in finding.message and error in finding.message
    assert found(body, "5.23.0") == []


@pytest.mark.parametrize("body", [
    pytest.param("        if past_key_values is not None:\n"
                 "            n = past_key_values.get_seq_length()\n", id="None-test"),
    pytest.param("        if isinstance(past_key_values, tuple):\n"
                 "            n = past_key_values[0][0].shape[2]\n", id="isinstance"),
    pytest.param("        if input_ids.shape[1] > 1:\n"
                 "            n = past_key_values.get_seq_length()\n", id="another-test"),
    pytest.param("        n = past_key_values.get_seq_length() if past_key_values else 0\n", id="ternary"),
    pytest.param("        past_key_values = past_key_values or self.cache\n"
                 "        n = past_key_values.get_seq_length()\n", id="rebound"),
    pytest.param("        n = self.past_key_values.get_seq_length()\n", id="an-attribute"),
    pytest.param("        try:\n            pass\n        except ValueError:\n"
                 "            n = past_key_values.get_seq_length()\n", id="handler"),
])
def test_no_raising_read(body: str) -> None:
    (finding,) = found(body)
    assert finding.severity == Severity.WARNING and finding.span.start.line == 5


def test_a_later_position_read_is_not_reported() -> None:
    body = ("        if not isinstance(past_key_values, tuple):\n"
            "            n = len(past_key_values.key_cache)\n"
            "        if input_ids.shape[1] != cache_position.shape[0]:\n"
            "            input_ids = input_ids[:, cache_position]\n")
    assert found(body, "5.23.0", "HFC011") == []  # `key_cache` is gone from 4.56.0: that read raises first
    assert found(body, "5.24.0", "HFC011") == []  # the parameter is None: that read raises first
    (first,) = found(body, "5.24.0")
    assert first.span.start.line == 8 and "'key_cache'" in first.message
    body = body.replace("len(past_key_values.key_cache)", "past_key_values.get_seq_length()")
    assert [f.span.start.line for f in found(body, "5.23.0", "HFC011")] == [9]  # nothing raises before it
