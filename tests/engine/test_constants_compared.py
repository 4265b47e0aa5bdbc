"""`a == b` / `a != b` decided in an `if` where both sides are constants on every live path (none_comparisons.py
`constants_compared`): a flag a caller passes picks the branch, seen through HFC002 (a list of pairs into a forward,
which every checked release refuses). Undecided: a float, the project's own object, a call (not evaluated twice)."""

from __future__ import annotations

import pytest

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.target import Target

HEAD = ("import torch\nfrom transformers import AutoModelForCausalLM\n\n"
        'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")\n'
        "ids = torch.tensor([[1, 2, 3]])\npairs = [(torch.zeros(1, 2, 3, 4), torch.zeros(1, 2, 3, 4))]\n\n\n")
# line 9 on: `step`, whose forward (line 12) gets the list only where the test skips the re-assignment
STEP = ("def step(past, flag):\n    if {test}:\n        past = model(ids, use_cache=True).past_key_values\n"
        "    return model(ids, past_key_values=past, use_cache=True)\n\n\n")


def hfc002_lines(text: str) -> list[int]:
    ctx = Context(target=Target.of("5.24.0"))
    return [f.span.start.line for f in check_source(text, "t.py", context=ctx).findings if f.code == "HFC002"]


@pytest.mark.parametrize(("test", "call", "expected"), [
    ("flag == False", "step(pairs, True)", [12]),  # decided False: the list reaches the forward
    ("flag != False", "step(pairs, True)", []),  # decided True: the forward gets the returned cache
    ("flag == False", "step(pairs, False)", []),
    ("flag == 'cut'", "step(pairs, 'keep')", [12]),
    ("flag == 2", "step(pairs, 2)", []),
    ("past == None", "step(pairs, 0)", [12]),  # a list is never None
    ("None != past", "step(pairs, 0)", []),
    ("flag == 0.5", "step(pairs, 0.5)", []),  # a float: undecided, the forward may get either
    ("flag == False", "step(pairs, flag=unknown())", []),  # a value the code does not say: undecided
])
def test_a_flag_the_caller_passes_decides_the_branch(test: str, call: str, expected: list[int]) -> None:
    assert hfc002_lines(HEAD + STEP.format(test=test) + call + "\n") == expected


def test_the_project_object_and_a_call_stay_undecided() -> None:
    own = "class Flag:\n    def __eq__(self, other):\n        return True\n\n\n"
    assert hfc002_lines(HEAD + own + STEP.format(test="flag == False") + "step(pairs, Flag())\n") == []
    assert hfc002_lines(HEAD + STEP.format(test="bool(flag) == False") + "step(pairs, True)\n") == []
