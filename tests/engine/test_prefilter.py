"""The prefilter skips files that cannot hold a finding, and never one that can."""

from __future__ import annotations

import pytest

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.release_version import Version
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.engine.screen.screen import can_hold_finding
from hf_cache_lint.engine.text.prefilter import might_matter
from hf_cache_lint.settings import Settings


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


_BUILT = "from transformers import DynamicCache\ncache = DynamicCache()\n"


@pytest.mark.parametrize("text", [
    _BUILT + "k = cache[0][0]\n",
    _BUILT + "k = cache [0]\n",
    _BUILT + "for k, v in cache:\n    pass\n",
    _BUILT + "pairs = [k for k, v in cache]\n",
    _BUILT + "n = cache.get_max_cache_shape()\n",
    "from transformers import StaticCache\nc: StaticCache = StaticCache(config=cfg, max_cache_len=8)\nn = c.max_cache_len\n",
    "out = model.generate(ids, return_dict_in_generate=True)\nk = out.past_key_values[0]\n",
])
def test_a_read_of_a_cache_the_text_builds_or_gets_is_analysed(text: str) -> None:
    assert can_hold_finding(text, "<t>", Context(target=Target(Version.parse("5.24.0"))))
    assert check_source(text, "<t>", Settings(transformers_version="5.24.0")).findings


@pytest.mark.parametrize("text", [
    # Another identifier that ends in the name, an attribute of it, or a longer word starting with it
    # (transformers' own modeling files: `padding_cache[i]`, `True in cache.is_sliding`, `in caches[0]`).
    _BUILT + "k = padding_cache[0]\nv = self.cache[1]\n",
    _BUILT + "if True in cache.is_sliding:\n    pass\nfor x in caches[0]:\n    pass\n",
    _BUILT + "# in cached decoding: cache.update(k, v, 0)\n",
    # `return_dict_in_generate=True` only in a docstring example or a comment.
    '"""\n>>> out = model.generate(ids, return_dict_in_generate=True)\n"""\npast_key_values = None\n',
    "# generate(..., return_dict_in_generate=True) returns past_key_values\n",
])
def test_text_that_reads_no_cache_it_builds_finds_no_removed_read(text: str) -> None:
    assert not check_source(text, "<t>", Settings(transformers_version="5.24.0")).findings
