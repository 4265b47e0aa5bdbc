"""A model's removed member read on a branch (engine/interpreter/removed_reads.py `_model_read_untested`): a condition
that tests another object (the cache's format) does not make the read a compat branch; one that names the model, or
probes the member, does."""

from __future__ import annotations

import pytest

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.target import Target

HEAD = ("import torch\nimport transformers\nfrom transformers import AutoModelForCausalLM\n\n\n"
        "def reorder(self, past_key_values, beam_idx):\n"
        "    if {condition}:\n"
        "        return self._reorder_cache(past_key_values, beam_idx)\n"
        "    return past_key_values\n\n\n"
        'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")\n'
        "reorder(model, ((torch.zeros(1), torch.zeros(1)),), torch.tensor([0]))\n")


def lines(condition: str) -> list[int]:
    result = check_source(HEAD.format(condition=condition), "t.py", context=Context(target=Target.of("5.24.0")))
    return [f.span.start.line for f in result.findings if f.code == "HFC007"]


@pytest.mark.parametrize("condition", [
    "isinstance(past_key_values, (tuple, list))",
    "type(past_key_values) is tuple",
])
def test_a_branch_testing_the_cache_format_still_reads_the_model(condition: str) -> None:
    assert lines(condition) == [8]


@pytest.mark.parametrize("condition", [
    'hasattr(self, "_reorder_cache")',
    "isinstance(self, transformers.XLNetLMHeadModel)",
    'isinstance(past_key_values, tuple) and getattr(self, "_reorder_cache", None)',
])
def test_a_branch_testing_the_model_is_compat_code(condition: str) -> None:
    assert lines(condition) == []
