"""HFC010 reads the `forward` of a project's own attention class installed as a transformers model's
`layer.self_attn` (H2O's heavy-hitter attention, engine/interpreter/hooks.py `_installed_attention`): transformers'
decoder layer calls it with its own keywords. Without `**kwargs`, a hook that lacks the release's cache keyword
raises TypeError at the layer's call (docs/facts.md; the HFC010 INVALID example on the oracle). The controls: the
class installed on a model the project builds itself, or a hook that takes `**kwargs`."""

from __future__ import annotations

import pytest

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.base.findings import Finding, Severity
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.target import Target

ATTENTION = (
    "import torch\nfrom transformers import AutoModelForCausalLM, LlamaForCausalLM\n\n\n"
    "class Mine(torch.nn.Module):\n"
    "    def forward(self, hidden_states, attention_mask=None, position_ids=None, past_key_value=None{extra}):\n"
    "        if past_key_value is not None:\n"
    "            hidden_states = hidden_states + past_key_value[0].mean()\n"
    "        return hidden_states, None\n\n\n")
IN_SUBCLASS = ("class LM(LlamaForCausalLM):\n    def __init__(self, config):\n        super().__init__(config)\n"
               "        for i in range(len(self.model.layers)):\n"
               "            self.model.layers[i].self_attn = Mine()\n")
ON_LOADED = ('model = AutoModelForCausalLM.from_pretrained("m")\n'
             "for layer in model.model.layers:\n    layer.self_attn = Mine()\n")
ON_OWN = ("class LM(torch.nn.Module):\n    def __init__(self, layers):\n        super().__init__()\n"
          "        for layer in layers:\n            layer.self_attn = Mine()\n")


def found(text: str, version: str) -> list[Finding]:
    result = check_source(text, "t.py", context=Context(target=Target.of(version)))
    return [f for f in result.findings if f.code == "HFC010"]


@pytest.mark.parametrize(("version", "keyword"), [("4.57.6", "past_key_values"), ("5.23.0", "past_key_values"),
                                                  ("5.24.0", "cache"), ("5.25.0", "cache")])
@pytest.mark.parametrize("install", [pytest.param(IN_SUBCLASS, id="in-a-model-subclass"),
                                     pytest.param(ON_LOADED, id="on-a-loaded-model")])
def test_installed_attention_without_kwargs_raises(install: str, version: str, keyword: str) -> None:
    got = found(ATTENTION.format(extra="") + install, version)
    assert [(f.span.start.line, f.severity) for f in got] == [(6, Severity.ERROR)]
    assert f"TypeError: Mine.forward() got an unexpected keyword argument '{keyword}'" in got[0].message


def test_installed_attention_with_kwargs_runs_without_the_cache() -> None:
    got = found(ATTENTION.format(extra=", **kwargs") + IN_SUBCLASS, "4.57.6")
    assert len(got) == 1 and "TypeError" not in got[0].message and "(silently)" in got[0].message


def test_attention_installed_on_the_projects_own_model_is_not_a_hook() -> None:
    assert found(ATTENTION.format(extra="") + ON_OWN, "5.24.0") == []
