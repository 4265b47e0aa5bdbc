"""HFC010 on a patched or installed attention reading `kwargs["past_key_value"]` behind a membership guard in the same
expression (`"past_key_value" in kwargs and kwargs["past_key_value"] is None`, AutoAWQ's fused attention, heldout14):
the read short-circuits where the layer does not pass the key, so no release raises KeyError there, as under `if
"past_key_value" in kwargs:`. The oracle: HFC010's VALID example with these reads runs on 4.57.6, 5.23.0, 5.24.0 and
5.25.0; `recall:heldout14/autoawq_fused_attention.py`'s probes raise on none of them."""

from __future__ import annotations

import pytest

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.base.findings import Finding
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.target import Target

HOOK = ("from torch import nn\nfrom transformers import AutoModelForCausalLM\n\n\n"
        "class Fused(nn.Module):\n"
        "    def forward(self, hidden_states, *args, **kwargs):\n"
        "        x = READ\n"
        "        return hidden_states\n\n\n"
        'model = AutoModelForCausalLM.from_pretrained("m")\n'
        "for layer in model.model.layers:\n"
        "    layer.self_attn = Fused()\n")


def found(read: str, version: str) -> list[Finding]:
    text = HOOK.replace("READ", read)
    result = check_source(text, "t.py", context=Context(target=Target.of(version)))
    return [f for f in result.findings if f.code == "HFC010"]


@pytest.mark.parametrize("version", ["4.57.6", "5.24.0"])
@pytest.mark.parametrize("read", [
    pytest.param('"past_key_value" in kwargs and kwargs["past_key_value"] is None', id="and"),
    pytest.param('"past_key_value" in kwargs and isinstance(kwargs["past_key_value"], list)', id="and-nested"),
    pytest.param('("past_key_value" in kwargs) and kwargs["past_key_value"]', id="and-parenthesised"),
    pytest.param('"use_cache" in kwargs and "past_key_value" in kwargs and kwargs["past_key_value"]', id="and-later"),
    pytest.param('kwargs["past_key_value"] if "past_key_value" in kwargs else None', id="conditional"),
    pytest.param('None if "past_key_value" not in kwargs else kwargs["past_key_value"]', id="conditional-not-in"),
    pytest.param('"past_key_value" not in kwargs or kwargs["past_key_value"] is None', id="or-not-in"),
])
def test_guarded_in_the_expression(read: str, version: str) -> None:
    assert found(read, version) == []


@pytest.mark.parametrize("read", [
    pytest.param('kwargs["past_key_value"] is None and "past_key_value" in kwargs', id="read-before-guard"),
    pytest.param('"past_key_value" in kwargs or kwargs["past_key_value"]', id="or-in"),
    pytest.param('"past_key_value" not in kwargs and kwargs["past_key_value"]', id="and-not-in"),
    pytest.param('kwargs["past_key_value"] if "past_key_value" not in kwargs else None', id="conditional-wrong-arm"),
    pytest.param('"past_key_value" in other and kwargs["past_key_value"]', id="other-container"),
    pytest.param('"use_cache" in kwargs and kwargs["past_key_value"]', id="other-key"),
])
def test_unguarded_read_still_raises(read: str) -> None:
    findings = found(read, "5.24.0")
    assert len(findings) == 1
    assert "raises KeyError: 'past_key_value'" in findings[0].message
