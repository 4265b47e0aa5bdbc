"""HFC010 on a `Cache.update` override whose fourth parameter has no default (LightCompress's `update(self,
key_states, value_states, layer_idx, cache_kwargs)`, heldout14): from 5.4.0 the attention layers call `update` with
three arguments (`update_gets_no_cache_kwargs`), so it raises TypeError: missing 1 required positional argument; from
5.24.0 an override without `**kwargs` raises on `kwargs=` first. The oracle: HFC010's INVALID example (OK on 4.57.6,
the TypeError on 5.23.0, the `kwargs=` one on 5.24.0 and 5.25.0) and its fixed text (clean on all four)."""

from __future__ import annotations

import pytest

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.base.findings import Finding
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.target import Target

TEXT = ("from transformers import AutoModelForCausalLM, DynamicCache\n\n"
        'model = AutoModelForCausalLM.from_pretrained("m")\n\n\n'
        "class Press(DynamicCache):\n"
        "    def update(self, key_states, value_states, layer_idx, SIGNATURE):\n"
        "        return super().update(key_states, value_states, layer_idx)\n\n\n"
        "model(prompt, past_key_values=Press(), use_cache=True)\n")


def found(signature: str, version: str) -> list[Finding]:
    text = TEXT.replace("SIGNATURE", signature)
    result = check_source(text, "t.py", context=Context(target=Target.of(version)))
    return [f for f in result.findings if f.code == "HFC010"]


@pytest.mark.parametrize(("signature", "version", "says"), [
    ("cache_kwargs", "4.57.6", None),
    ("cache_kwargs", "5.3.0", None),
    ("cache_kwargs", "5.4.0", "missing 1 required positional argument: 'cache_kwargs'"),
    ("cache_kwargs", "5.23.0", "missing 1 required positional argument: 'cache_kwargs'"),
    ("cache_kwargs", "5.24.0", "unexpected keyword argument 'kwargs'"),
    ("cache_kwargs, **kwargs", "5.24.0", "missing 1 required positional argument: 'cache_kwargs'"),
    ("cache_kwargs: dict", "5.23.0", "missing 1 required positional argument: 'cache_kwargs'"),
    ("cache_kwargs=None", "5.23.0", None),
    ("cache_kwargs=None, **kwargs", "5.24.0", None),
    ("*, cache_kwargs=None", "5.23.0", None),
])
def test_required_fourth(signature: str, version: str, says: str | None) -> None:
    findings = found(signature, version)
    if says is None:
        assert findings == []
    else:
        assert len(findings) == 1 and says in findings[0].message
        assert findings[0].span.start.line == 11  # the forward call given the cache
