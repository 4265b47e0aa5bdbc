"""The prefilter skips files that cannot hold a finding, and never one that can."""

from __future__ import annotations

import pytest

from hf_cache_lint.engine.prefilter import might_matter


@pytest.mark.parametrize("text", [
    "out = model.generate(**inputs, past_key_values=cache)\n",
    "gen = model.generate\n",
    'pipe = pipeline("text-generation", model=m)\n',
    'kw = {"cache_implementation": "static"}\n',
    "cfg = GenerationConfig(max_new_tokens=5)  # past_key_values later\nout = model.generate(generation_config=cfg)\n",
    'x = "#"; model.generation_config.cache_implementation = "static"\n',
    '"""Module docstring."""\nout = model.generate(past_key_values=c)\n',
])
def test_code_that_may_hold_a_finding_is_parsed(text: str) -> None:
    assert might_matter(text)


@pytest.mark.parametrize("text", [
    "def forward(self, past_key_values=None):\n    return past_key_values\n",
    "# model.generate(past_key_values=cache, cache_implementation='static')\nx = 1  # past_key_values\n",
    'def f(past_key_values=None):\n    """\n    >>> model.generate(past_key_values=c)\n    """\n',
    'def f(past_key_values=None):\n    """Call `model.generate(...)` with a cache."""\n    return 1\n',
    "x = 1\n",
    "class M:\n    def generate(self, past_key_values=None):\n        return past_key_values\n",
    "model.generation_config.max_new_tokens = 5  # no cache_implementation, no generate\n",
])
def test_code_that_cannot_hold_a_finding_is_skipped(text: str) -> None:
    assert not might_matter(text)
