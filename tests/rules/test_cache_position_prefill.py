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


def test_literal_positions_continuing_a_prefill_on_the_same_cache_are_an_info() -> None:
    # ExecuTorch's decode: `arange(5)` then `tensor([5])`, the cache's own length at each call (position_chain.py).
    line = ("model(ids, past_key_values=cache, cache_position=torch.arange(3))\n"
            "model(torch.tensor([[7]]), past_key_values=cache, cache_position=torch.tensor([3]))\n"
            "out = model(torch.tensor([[8, 9]]), past_key_values=cache, cache_position=torch.arange(4, 6))\n")
    assert severities(line) == [Severity.INFO] * 3


@pytest.mark.parametrize("second", [
    # a rollback: the same position re-sent
    "model(torch.tensor([[7]]), past_key_values=cache, cache_position=torch.tensor([3]))\n"
    "model(torch.tensor([[8]]), past_key_values=cache, cache_position=torch.tensor([3]))\n",
    # a gap: not where the first ended
    "model(torch.tensor([[7]]), past_key_values=cache, cache_position=torch.tensor([4]))\n",
    # another cache
    "model(torch.tensor([[7]]), past_key_values=other, cache_position=torch.tensor([3]))\n",
    # a statement between the two may change the cache
    "cache.crop(-1)\nmodel(torch.tensor([[7]]), past_key_values=cache, cache_position=torch.tensor([3]))\n",
])
def test_positions_not_continuing_the_forward_before_stay_a_warning(second: str) -> None:
    line = "other = DynamicCache()\nmodel(ids, past_key_values=cache, cache_position=torch.arange(3))\n" + second
    assert Severity.WARNING in severities(line)
    assert severities(line)[-1] == Severity.WARNING


# SPQR's static decode (position_chain.advanced): positions from 0 for the prefill, then a one-slot tensor advanced by
# `+= 1` after each step, handed to a helper that sends them: the cache's own length at every call.
ADVANCED = ("def step(model, token, cache_position, past_key_values):\n"
            "    return model(token, cache_position=cache_position, past_key_values=past_key_values)\n\n\n"
            "def decode(ids, steps, past_key_values):\n"
            "    seq_len = ids.shape[1]\n"
            "    cache_position = torch.arange(seq_len, dtype=torch.int64)\n"
            "    model(ids, cache_position=cache_position, past_key_values=past_key_values)\n"
            "    cache_position = torch.tensor([seq_len])\n"
            "    token = ids[:, -1:]\n"
            "    for _ in range(steps):\n"
            "        step(model, token, cache_position, past_key_values)\n"
            "        cache_position += 1\n\n\n"
            "decode(ids, 3, cache)\n")


def test_positions_advanced_step_by_step_are_an_info() -> None:
    assert severities(ADVANCED) == [Severity.INFO] * 2


@pytest.mark.parametrize("change", [
    ("        cache_position += 1\n", ""),  # never advanced: the same slot re-sent (a rollback)
    ("        cache_position += 1\n", "        cache_position -= 1\n"),  # moved back
    ("    cache_position = torch.tensor([seq_len])\n", "    cache_position = positions_for(seq_len)\n"),
    ("        step(model, token, cache_position, past_key_values)\n",
     "        step(model, token, cache_position, past_key_values)\n"
     "        step(model, token, torch.tensor([0]), past_key_values)\n"),  # another caller sends other positions
])
def test_positions_not_only_advanced_stay_a_warning(change: tuple[str, str]) -> None:
    assert change[0] in ADVANCED
    assert Severity.WARNING in severities(ADVANCED.replace(*change))


# ktransformers' chunked prefill, then one-token steps: the helper gets chunks of `torch.arange(n)` in order from 0,
# then `torch.tensor([position])` with `position` counting up by `+= 1`.
CHUNKED = ("def step(token, cache_position, past_key_values):\n"
           "    return model(token, cache_position=cache_position, past_key_values=past_key_values)\n\n\n"
           "def prefill_and_decode(ids, steps, past_key_values, chunk=2):\n"
           "    seq_length = ids.shape[1]\n"
           "    cache_position = torch.arange(seq_length)\n"
           "    for start in range(0, seq_length, chunk):\n"
           "        end = min(start + chunk, seq_length)\n"
           "        step(ids[:, start:end], cache_position[start:end], past_key_values)\n"
           "    position = seq_length\n"
           "    for _ in range(steps):\n"
           "        step(ids[:, -1:], torch.tensor([position]), past_key_values)\n"
           "        position += 1\n\n\n"
           "prefill_and_decode(ids, 3, cache)\n")


def test_chunks_in_order_then_counted_positions_are_an_info() -> None:
    assert severities(CHUNKED) == [Severity.INFO]


@pytest.mark.parametrize("change", [
    ("        position += 1\n", ""),  # the same slot every step
    ("    for start in range(0, seq_length, chunk):\n", "    for start in reversed(range(0, seq_length, chunk)):\n"),
    ("    for start in range(0, seq_length, chunk):\n", "    for start in range(1, seq_length, chunk):\n"),
    ("    cache_position = torch.arange(seq_length)\n", "    cache_position = torch.arange(2, seq_length)\n"),
    ("    position = seq_length\n", "    position = seq_length\n    position = 0\n"),
])
def test_chunks_or_counts_not_in_order_stay_a_warning(change: tuple[str, str]) -> None:
    assert change[0] in CHUNKED
    assert severities(CHUNKED.replace(*change)) == [Severity.WARNING]
