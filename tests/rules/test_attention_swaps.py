"""HFC010 on the module's own attention swapped in for transformers' by a walk over a model's submodules
(engine/interpreter/attention_swaps.py, quantized-training's `swap_module`, heldout21 qt_kivi_forward): the
`isinstance` test of a transformers attention class says transformers' decoder layer calls the module, with its own
keywords. The oracle: HFC010's swap example sees the cache on 4.57.6 and 5.23.0, never on 5.24.0 and 5.25.0."""

from __future__ import annotations

import pytest

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.rules.hfc010_hook_loses_cache.swap_examples import SWAPPED


def lines(text: str, version: str = "5.24.0") -> list[int]:
    result = check_source(text, "t.py", context=Context(target=Target.of(version)))
    return [f.span.start.line for f in result.findings if f.code == "HFC010"]


@pytest.mark.parametrize("text", [
    pytest.param(SWAPPED, id="bound-first"),
    pytest.param(SWAPPED.replace("            new_attn = KiviAttention(child.config, child.layer_idx)\n"
                                 "            setattr(module, name, new_attn)\n",
                                 "            setattr(module, name, KiviAttention(child.config, child.layer_idx))\n"),
                 id="direct"),
    pytest.param(SWAPPED.replace("module.named_children()", "module.named_modules()"), id="named-modules"),
    pytest.param(SWAPPED.replace("isinstance(child, LlamaAttention)", "isinstance(child, (LlamaAttention,))"),
                 id="tuple"),
])
def test_swapped_in_attention_is_a_hook(text: str) -> None:
    assert lines(text) == [14]
    assert lines(text, "5.23.0") == []


@pytest.mark.parametrize("text", [
    pytest.param(SWAPPED.replace("isinstance(child, LlamaAttention)", "isinstance(child, torch.nn.Linear)"),
                 id="not-attention"),
    pytest.param(SWAPPED.replace("setattr(module, name, new_attn)", "setattr(module, \"x\" + name, new_attn)"),
                 id="another-name"),
    pytest.param(SWAPPED.replace("module.named_children()", "module.children_by_name()"), id="not-a-walk"),
    pytest.param(SWAPPED.replace("            new_attn = KiviAttention(child.config, child.layer_idx)\n",
                                 "            new_attn = make(child)\n"), id="a-factory"),
])
def test_not_a_swap(text: str) -> None:
    assert lines(text) == []
