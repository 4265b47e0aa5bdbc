"""HFC010 on a forward pre-hook registered `with_kwargs=True` that stores a cache into the attention's keywords
(LightCompress's calibration hook, heldout14): under a name the release's layer no longer takes it is ignored (the
layer is called with its own cache keyword too and uses that one). The oracle: HFC010's INVALID examples `PRE_STORE`
(the stored cache stays empty on 4.57.6, 5.23.0, 5.24.0 and 5.25.0) and their fixed texts (it sees the tokens on all
four)."""

from __future__ import annotations

import pytest

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.base.findings import Finding, Severity
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.target import Target

TEXT = ("from transformers import AutoModelForCausalLM, DynamicCache\n\n"
        'model = AutoModelForCausalLM.from_pretrained("m")\n'
        "STORE = DynamicCache()\n\n\n"
        "def hand(module, args, kwargs):\n"
        '    kwargs["KEY"] = STORE\n\n\n'
        "for layer in model.model.layers:\n"
        "    layer.self_attn.REGISTER(HOOK, with_kwargs=True)\n")
FACTORY = "def make():\n    def hand(module, args, kwargs):\n        kwargs[\"KEY\"] = STORE\n    return hand\n"


def found(version: str, key: str = "past_key_value", register: str = "register_forward_pre_hook",
          hook: str = "hand", factory: bool = False) -> list[Finding]:
    text = TEXT.replace("KEY", key).replace("REGISTER", register).replace("HOOK", hook)
    if factory:
        text = text.replace(f'def hand(module, args, kwargs):\n    kwargs["{key}"] = STORE\n',
                            FACTORY.replace("KEY", key))
    result = check_source(text, "t.py", context=Context(target=Target.of(version)))
    return [f for f in result.findings if f.code == "HFC010"]


@pytest.mark.parametrize("version", ["4.57.6", "5.23.0", "5.24.0", "5.25.0"])
@pytest.mark.parametrize("factory", [False, True])
def test_store_under_the_gone_name(version: str, factory: bool) -> None:
    findings = found(version, hook="make()" if factory else "hand", factory=factory)
    assert len(findings) == 1
    assert findings[0].severity == Severity.WARNING
    assert "is ignored" in findings[0].message
    assert findings[0].span.start.line == (9 if factory else 8)


def test_store_under_the_current_name() -> None:
    assert found("4.57.6", key="past_key_values") == []
    assert found("5.23.0", key="past_key_values") == []
    assert len(found("5.24.0", key="past_key_values")) == 1  # 5.24's layer takes `cache=`


def test_post_hook_store_reaches_nothing() -> None:
    assert found("5.24.0", register="register_forward_hook") == []


def test_store_before_the_rename() -> None:
    assert found("4.52.4") == []  # the layer still took `past_key_value`
