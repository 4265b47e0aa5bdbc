"""A model instance whose `forward` the code replaced (engine/interpreter/values.py `ModelState.forward`): a call of
the model runs the code's function, so HFC002 says nothing of what transformers' forward does with a list there
(Olive's export wrapper, docs/facts.md). Replaced on one path only, the call is not said to run transformers'
forward either (state.py keeps the replacement at the join); the model's own forward put back through
`torch.compile(model.forward)` is no replacement, and `model.forward(...)` after `original = model.forward` is the
original's call where the code makes it."""

from __future__ import annotations

import pytest

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.target import Target

HEAD = ("import torch\nfrom transformers import AutoModelForCausalLM, DynamicCache\n\n"
        'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")\n'
        "ids = torch.tensor([[1, 2, 3]])\n"
        "pairs = [(torch.zeros(1, 2, 3, 4), torch.zeros(1, 2, 3, 4))]\n\n\n"
        "def wrapped(*args, **kwargs):\n    return None\n\n\n")
CALL = "out = model(ids, past_key_values=pairs)\n"


def lines(text: str, version: str = "4.57.6") -> list[int]:
    result = check_source(HEAD + text, "t.py", context=Context(target=Target.of(version)))
    return sorted(f.span.start.line - HEAD.count("\n") for f in result.findings if f.code == "HFC002")


@pytest.mark.parametrize("version", ["4.57.6", "5.24.0"])
def test_the_plain_call_is_reported(version: str) -> None:
    assert lines(CALL, version) == [1]


@pytest.mark.parametrize("install", [
    'setattr(model, "forward", wrapped)\n',
    "model.forward = wrapped\n",
    "if ids.shape[1] > 2:\n    model.forward = wrapped\n",  # on one path only
])
@pytest.mark.parametrize("version", ["4.57.6", "5.24.0"])
def test_a_replaced_forward_is_not_claimed(install: str, version: str) -> None:
    assert lines(install + CALL, version) == []


@pytest.mark.parametrize("install", [
    'model.forward = torch.compile(model.forward, mode="reduce-overhead")\n',
    'setattr(model, "forward", torch.compile(model.forward))\n',
    'model.generate = wrapped\n',  # another member replaced: the forward is still transformers'
])
def test_the_model_s_own_forward_is_no_replacement(install: str) -> None:
    assert lines(install + CALL) == [install.count("\n") + 1]


def test_the_original_forward_kept_before_the_replacement_is_transformers() -> None:
    text = "original = model.forward\nmodel.forward = wrapped\nout = original(ids, past_key_values=pairs)\n"
    assert lines(text) == [3]


# HFC011's sender reader (hooks.py `_sent`, a syntactic scan) says the same of the model names whose `forward` the
# module replaces (`_replaced_forwards`): positions sent to such a model are the code's function's to use.
ROLLBACK = ("cache = DynamicCache()\nmodel(ids, past_key_values=cache, use_cache=True)\n"
            "model(ids[:, -1:], past_key_values=cache, cache_position=torch.tensor([2]), use_cache=True)\n")


def position_lines(text: str, version: str = "5.24.0") -> list[int]:
    result = check_source(HEAD + text, "t.py", context=Context(target=Target.of(version)))
    return sorted(f.span.start.line - HEAD.count("\n") for f in result.findings if f.code == "HFC011")


def test_positions_sent_to_a_model_are_reported() -> None:
    assert position_lines(ROLLBACK) == [3]


@pytest.mark.parametrize(("install", "reported"), [
    ('setattr(model, "forward", wrapped)\n', False),
    ('setattr(model, "forward", torch.compile(model.forward))\n', True),
])
def test_positions_sent_to_a_replaced_forward_are_not_claimed(install: str, reported: bool) -> None:
    assert position_lines(install + ROLLBACK) == ([4] if reported else [])
