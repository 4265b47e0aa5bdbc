"""HFC011 on `cache_position=` sent to a forward (rules/hfc011_ignored_cache_position): positions from 0
(`torch.arange(n)`, a prefill's) are what the cache computes itself while it is empty, so ignoring them changes
nothing the code shows: an Info; positions from an offset (a rollback re-sending them) stay a Warning."""

from __future__ import annotations

import pytest

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.base.findings import Severity
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.target import Target

HEAD = ("import torch\nfrom transformers import AutoModelForCausalLM, DynamicCache\n\n"
        'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")\n'
        "ids = torch.tensor([[1, 2, 3]])\ncache = DynamicCache()\n")


def severities(line: str, version: str = "5.24.0") -> list[Severity]:
    result = check_source(HEAD + line, "t.py", context=Context(target=Target.of(version)))
    return [f.severity for f in result.findings if f.code == "HFC011"]


@pytest.mark.parametrize("positions", [
    "torch.arange(ids.shape[1])",
    "torch.arange(0, ids.shape[1], device=ids.device)",
    "torch.arange(3)",
])
def test_positions_from_zero_are_an_info(positions: str) -> None:
    assert severities(f"model(ids, past_key_values=cache, cache_position={positions}, use_cache=True)\n") == \
        [Severity.INFO]


@pytest.mark.parametrize("positions", [
    "torch.arange(2, 5)",
    "torch.arange(start, start + 3, device=ids.device)",
    "positions",
])
def test_positions_from_an_offset_stay_a_warning(positions: str) -> None:
    line = f"start = 2\npositions = torch.arange(2, 5)\nmodel(ids, past_key_values=cache, cache_position={positions})\n"
    assert severities(line) == [Severity.WARNING]


def test_nothing_before_the_release_that_ignores_them() -> None:
    assert severities("model(ids, past_key_values=cache, cache_position=torch.arange(2, 5))\n", "4.57.6") == []
