"""An attention `forward` patched onto a transformers class whose parameter list cannot take the keyword the layer
passes the cache under (no `**kwargs`: ToolBench's `forward_2`) raises TypeError at the layer's call, before its body
reads anything: HFC010 reports that TypeError (on the parameter), not what the body would read off `self` after it
(`self.num_heads`, gone from 4.48.0). The oracle, this module's snippet run by hand: `TypeError: counted_forward() got
an unexpected keyword argument 'past_key_values'` on 4.57.6 and 5.23.0, `'cache'` on 5.24.0 and 5.25.0."""

from __future__ import annotations

import pytest

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.rules.hfc010_hook_loses_cache.forward_examples import _CLASS_PATCH, _SELF_READ

FIXED_LIST = _SELF_READ.format(heads="self.num_heads", patch=_CLASS_PATCH).replace(
    "def counted_forward(self, hidden_states, *args, **kwargs):\n",
    "def counted_forward(self, hidden_states, attention_mask=None, position_ids=None, past_key_value=None,\n"
    "                    use_cache=False, cache_position=None, position_embeddings=None):\n").replace(
    "    return ORIGINAL(self, hidden_states, *args, **kwargs)\n",
    "    assert past_key_value is None\n"
    "    return ORIGINAL(self, hidden_states, position_embeddings, attention_mask)\n")


@pytest.mark.parametrize("version", ["4.57.6", "5.23.0", "5.24.0", "5.25.0"])
def test_the_keyword_type_error_comes_first(version: str) -> None:
    result = check_source(FIXED_LIST, "t.py", context=Context(target=Target.of(version)))
    (finding,) = [f for f in result.findings if f.code == "HFC010"]
    assert finding.span.start.line == 11 and "got an unexpected keyword argument" in finding.message


def test_with_kwargs_the_attribute_read_is_what_raises() -> None:
    text = FIXED_LIST.replace("position_embeddings=None):", "position_embeddings=None, **kwargs):")
    result = check_source(text, "t.py", context=Context(target=Target.of("4.57.6")))
    lines = [f.span.start.line for f in result.findings if f.code == "HFC010"]
    assert 13 in lines  # `self.num_heads`
