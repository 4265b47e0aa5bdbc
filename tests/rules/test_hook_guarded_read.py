"""HFC010 on a `prepare_inputs_for_generation` override whose first use of the cache sits in the branch its test of
the parameter opens (`if past_key_values is not None: past_length = past_key_values[0][0].shape[2]`): from 5.24 the
cache comes as `cache=`, the parameter is None and that branch never runs. The finding stands on the parameter, as
every finding on what a hook takes (the rule's docs, "Where a hook finding stands"; it stood on that first read from
af91a2f until the ninth session), and names the branch and its first read, which it also attaches as related
information; the outermost test of the parameter is the one named (VibeVoice's ASR hook, heldout13). The oracle: HFC010's example reading `past_key_values.get_seq_length()` in such a branch feeds 5, 1, 1, 1
tokens on 4.57.6 and 5.23.0, 5, 6, 7, 8 on 5.24.0 and 5.25.0."""

from __future__ import annotations

import pytest

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.base.findings import Finding
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.target import Target

HOOK = ("from transformers import LlamaForCausalLM\n\n\n"
        "class M(LlamaForCausalLM):\n"
        "    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, attention_mask=None, **kwargs):\n"
        "BODY"
        '        return {"input_ids": input_ids, "past_key_values": past_key_values}\n')


def found(body: str, version: str = "5.24.0") -> list[Finding]:
    text = HOOK.replace("BODY", body)
    result = check_source(text, "t.py", context=Context(target=Target.of(version)))
    return [f for f in result.findings if f.code == "HFC010"]


@pytest.mark.parametrize(("body", "line", "text"), [
    pytest.param("        if past_key_values is not None:\n"
                 "            input_ids = input_ids[:, past_key_values.get_seq_length():]\n",
                 7, "past_key_values.get_seq_length", id="is-not-None"),
    pytest.param("        if past_key_values:\n"
                 "            n = past_key_values.get_seq_length()\n"
                 "            input_ids = input_ids[:, n:]\n",
                 7, "past_key_values.get_seq_length", id="truth"),
    pytest.param("        if input_ids.shape[1] == 1:\n"
                 "            pass\n"
                 "        elif past_key_values is not None and attention_mask is not None:\n"
                 "            input_ids = input_ids[:, past_key_values.get_seq_length():]\n",
                 9, "past_key_values.get_seq_length", id="elif"),
])
def test_reported_on_the_parameter_naming_the_guarded_branch(body: str, line: int, text: str) -> None:
    (finding,) = found(body)
    assert finding.span.start.line == 5 and "takes the cache as `past_key_values`" in finding.message
    assert f"never runs (its first read of the cache, `{text}`, line {line})" in finding.message
    (related,) = finding.related
    assert related.span.start.line == line and "never runs" in related.message
    assert found(body, "5.23.0") == []


def test_the_outermost_test_of_the_parameter_is_named() -> None:
    body = ("        if past_key_values is not None:\n"
            "            if isinstance(past_key_values, tuple):\n"
            "                n = past_key_values[0][0].shape[2]\n"
            "            else:\n"
            "                n = past_key_values.get_seq_length()\n"
            "            input_ids = input_ids[:, n:]\n")
    (finding,) = found(body)
    assert finding.span.start.line == 5
    assert "the branch under `past_key_values is not None` never runs" in finding.message
    assert finding.related[0].span.start.line == 8


@pytest.mark.parametrize("body", [
    pytest.param("        if past_key_values is not None and past_key_values.get_seq_length() > 0:\n"
                 "            input_ids = input_ids[:, -1:]\n", id="read-in-the-test"),
    pytest.param("        if attention_mask is not None:\n"
                 "            input_ids = input_ids[:, past_key_values.get_seq_length():]\n", id="other-test"),
    pytest.param("        if past_key_values is None:\n"
                 "            pass\n"
                 "        else:\n"
                 "            input_ids = input_ids[:, past_key_values.get_seq_length():]\n", id="else-branch"),
    pytest.param("        n = past_key_values.get_seq_length() if past_key_values is not None else 0\n"
                 "        input_ids = input_ids[:, n:]\n", id="ternary"),
])
def test_reported_at_the_parameter_otherwise(body: str) -> None:
    (finding,) = found(body)
    assert finding.span.start.line == 5 and "takes the cache as `past_key_values`" in finding.message
    assert "never runs" not in finding.message and finding.related == ()
