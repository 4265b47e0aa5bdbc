"""HFC002's first release for a project cache whose `get_seq_length` takes no `layer_idx` (rules/hfc002 `_LENGTH_OF_LAYER`,
docs/facts.md §8): 5.13.1 runs the forward with it, 5.14.0 raises, run on both releases (the release before and the
first, as the release table's behaviours are; tests/oracle/test_releases.py). The checked releases (4.57.6, 5.23.0-
5.25.0) are the HFC002 examples'."""

from __future__ import annotations

import os

import pytest

from hf_cache_lint.engine.environment.release_version import Version
from hf_cache_lint.rules.hfc002_legacy_tuple_cache import _LENGTH_OF_LAYER

from .runner import Snippet, missing, run_snippets

pytestmark = pytest.mark.oracle

SOURCE = """\
import torch
from transformers import AutoModelForCausalLM, DynamicCache


class TurnCache(DynamicCache):
    def get_seq_length(self):
        return super().get_seq_length()


model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")
cache = TurnCache()
model(torch.tensor([[1, 2, 3]]), past_key_values=cache, use_cache=True)
"""
BEFORE, FIRST = "5.13.1", str(_LENGTH_OF_LAYER)


@pytest.mark.parametrize("version", [BEFORE, FIRST])
def test_the_override_breaks_from_its_first_release(version: str) -> None:
    only = os.environ.get("ORACLE_ONLY", "")
    if only and not any("own_cache_length".startswith(p) or p.startswith("own_cache_length") for p in only.split(",")):
        pytest.skip(f"not selected by ORACLE_ONLY={only}")
    reason = missing(version)
    if reason:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"oracle unavailable under CI: {reason}", pytrace=False)
        pytest.skip(reason)
    got = run_snippets(version, [Snippet("own_cache_length", SOURCE)])["own_cache_length"]
    if Version.parse(version) >= _LENGTH_OF_LAYER:
        assert "TurnCache.get_seq_length() got an unexpected keyword argument 'layer_idx'" in got.message, \
            got.describe()
    else:
        assert got.kind == "OK", got.describe()
