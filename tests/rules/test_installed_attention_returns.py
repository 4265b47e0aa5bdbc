"""HFC010 on the module's own attention installed as each loaded model layer's `self_attn` (AutoGPTQ's fused
attention, heldout14) whose `forward` returns another count than the decoder layers unpack (2 from 4.48.0): reported
at that `return`. Not where the class derives from a transformers class (its returns are transformers' to judge),
where it has no `forward` of its own, or where the layer is not a loaded model's. The oracle: HFC010's `_INSTALLED`
examples (ValueError on 4.57.6, 5.23.0, 5.24.0, 5.25.0 with the triple; the pair runs)."""

from __future__ import annotations

import pytest

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.base.findings import Finding
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.target import Target

TEXT = ("from torch import nn\nfrom transformers import AutoModelForCausalLM, LlamaConfig\n"
        "from transformers.models.llama.modeling_llama import LlamaAttention\n\n"
        "model = LOADED\n\n\n"
        "class Kept(BASE):\n"
        "    def __init__(self, attn):\n"
        "        super().__init__()\n"
        "        self.attn = attn\n\n"
        "    def METHOD(self, hidden_states, *args, **kwargs):\n"
        "        out = self.attn(hidden_states, *args, **kwargs)\n"
        "        return out[0], out[1], None\n\n\n"
        "for layer in model.model.layers:\n"
        "    layer.self_attn = Kept(layer.self_attn)\n")


def found(base: str = "nn.Module", method: str = "forward",
          loaded: str = 'AutoModelForCausalLM.from_pretrained("m")') -> list[Finding]:
    text = TEXT.replace("BASE", base).replace("METHOD", method).replace("LOADED", loaded)
    result = check_source(text, "t.py", context=Context(target=Target.of("5.24.0")))
    return [f for f in result.findings if f.code == "HFC010" and "values to unpack" in f.message]


def test_installed_triple() -> None:
    findings = found()
    assert len(findings) == 1 and findings[0].span.start.line == 15


@pytest.mark.parametrize(("base", "method", "loaded"), [
    pytest.param("LlamaAttention", "forward", 'AutoModelForCausalLM.from_pretrained("m")', id="transformers-base"),
    pytest.param("nn.Module", "step", 'AutoModelForCausalLM.from_pretrained("m")', id="no-forward"),
    pytest.param("nn.Module", "forward", "object()", id="not-a-loaded-model"),
])
def test_not_claimed(base: str, method: str, loaded: str) -> None:
    assert found(base, method, loaded) == []
