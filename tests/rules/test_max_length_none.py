"""HFC007 on `get_max_length()`'s answer tested against None (rules/hfc007_removed_cache_api/max_length.py): which
tests count, through which bindings, on which receivers and at which targets (docs/facts.md: None on 4.41-4.48,
missing on 4.49-5.12, -1 or the window from 5.13.0)."""

from __future__ import annotations

import pytest

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.base.findings import Finding, Severity
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.release_version import Version
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.rules.hfc007_removed_cache_api.max_length import returns_since

HEAD = ("import torch\nfrom transformers import AutoModelForCausalLM, DynamicCache, StaticCache\n\n"
        'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")\n'
        "ids = torch.tensor([[1, 2, 3]])\n"
        "out = model.generate(ids, max_new_tokens=2, return_dict_in_generate=True)\n")


def found(text: str, version: str = "5.24.0") -> list[Finding]:
    result = check_source(HEAD + text, "t.py", context=Context(target=Target.of(version)))
    return [f for f in result.findings if f.code == "HFC007"]


TESTED = [
    ("if out.past_key_values.get_max_length() is None:\n    pass\n", "out.past_key_values.get_max_length() is None"),
    ("n = out.past_key_values.get_max_length()\nif n is not None:\n    print(n)\n", "n is not None"),
    ("n = out.past_key_values.get_max_length()\nok = None == n\n", "None == n"),
    ("limit = out.past_key_values.get_max_length() or 4096\n", "out.past_key_values.get_max_length() or 4096"),
    ("if not out.past_key_values.get_max_length():\n    pass\n", "not out.past_key_values.get_max_length()"),
    ("n = out.past_key_values.get_max_length()\nif n:\n    print(n)\n", "if n:"),
    ("cache = DynamicCache()\nmodel(ids, past_key_values=cache)\nn = (cache.get_max_length())\nm = 1 if n is None else n\n",
     "n is None"),
    # a helper's return, tested by its caller (directly, or through the caller's own name)
    ("def capacity(cache):\n    return cache.get_max_length()\n\n\nassert capacity(out.past_key_values) is None\n",
     "capacity(out.past_key_values) is None"),
    ("def capacity(cache):\n    n = cache.get_max_length()\n    return n\n\n\n"
     "c = capacity(out.past_key_values)\nif c is None:\n    pass\n", "c is None"),
    # the test of a conditional expression (parso's "test" node)
    ("limit = 4096 if not out.past_key_values.get_max_length() else 1\n",
     "not out.past_key_values.get_max_length()"),
    ("n = out.past_key_values.get_max_length()\nlimit = n if n else 4096\n", "n if n else 4096"),
    ("limit = 1 if out.past_key_values.get_max_length() else 4096\n",
     "1 if out.past_key_values.get_max_length() else 4096"),
    # a comparison with a length does not tell -1 from a maximum: still a None test
    ("n = out.past_key_values.get_max_length()\nassert n is None or n >= 5\n", "n is None"),
    # the helper's call that got the cache is the one whose test counts (the other caller's value is unknown)
    ("def capacity(cache):\n    return cache.get_max_length()\n\n\n"
     "def other(past):\n    return capacity(past) or 0\n\n\n"
     "assert capacity(out.past_key_values) is None\n", "capacity(out.past_key_values) is None"),
]


@pytest.mark.parametrize(("text", "test"), TESTED)
def test_a_none_test_is_reported_from_5_13(text: str, test: str) -> None:
    for version in ("5.13.0", "5.24.0", "5.25.0"):
        got = found(text, version)
        assert len(got) == 1, (version, [f.message for f in got])
        assert got[0].severity is Severity.WARNING
        assert f"(`{test}`)" in got[0].message and "from transformers 5.13.0" in got[0].message, got[0].message


SILENT = [
    # a helper reached with the cache from a call that never tests it: another caller's test is not this value's
    "def capacity(cache):\n    return cache.get_max_length()\n\n\n"
    "def trim(past, mask):\n    if capacity(past) is not None:\n        mask = mask[:, 1:]\n    return mask\n\n\n"
    "print(capacity(out.past_key_values))\n",
    # the answer used as a number, or its 5.x "no maximum" handled
    "n = out.past_key_values.get_max_length()\nprint(n + 1)\n",
    "n = out.past_key_values.get_max_length()\nif n is None or n < 0:\n    n = 1 << 30\n",
    "n = out.past_key_values.get_max_length()\nif n == -1 or n is None:\n    pass\n",
    # a StaticCache's answer is its max_cache_len on every release that has the method
    "cache = StaticCache(config=model.config, max_cache_len=32)\nassert cache.get_max_length() is not None\n",
    # a class the project defines is not a transformers cache, whatever its methods
    "class Mine:\n    def get_max_length(self):\n        return None\n\n\nassert Mine().get_max_length() is None\n",
    # a helper whose result nobody tests
    "def capacity(cache):\n    return cache.get_max_length()\n\n\nprint(capacity(out.past_key_values))\n",
]


@pytest.mark.parametrize("text", SILENT)
def test_no_finding_without_a_none_test_on_a_dynamic_cache(text: str) -> None:
    assert found(text, "5.24.0") == []


def test_where_the_method_is_missing_the_call_is_reported_as_removed() -> None:
    text = "if out.past_key_values.get_max_length() is None:\n    pass\n"
    for version in ("4.57.6", "5.0.0", "5.12.1"):
        got = found(text, version)
        assert len(got) == 1 and "has no attribute 'get_max_length'" in got[0].message, (version, got)
        assert got[0].severity is Severity.ERROR


def test_the_first_release_is_the_release_tables() -> None:
    assert returns_since(Version.parse("5.24.0")) == Version.parse("5.13.0")
    assert returns_since(Version.parse("5.13.0")) == Version.parse("5.13.0")
    assert returns_since(Version.parse("5.12.1")) is None
    assert returns_since(Version.parse("4.57.6")) is None
    assert returns_since(Version.parse("4.45.2")) is None  # DynamicCache's answer was None there


def test_no_finding_where_the_answer_was_none() -> None:
    text = "if out.past_key_values.get_max_length() is None:\n    pass\n"
    for version in ("4.44.2", "4.48.3"):
        assert found(text, version) == [], version


def test_a_read_in_a_conditional_expressions_test_is_a_use() -> None:
    """The test of `a if c else b` runs whichever side is taken: 4.57.6 has no `get_max_length`, so the read in it
    raises AttributeError there (the interpreter evaluated only the sides)."""
    got = found("limit = 1 if out.past_key_values.get_max_length() else 4096\n", "4.57.6")
    assert len(got) == 1 and got[0].severity is Severity.ERROR, [f.message for f in got]
    assert "AttributeError" in got[0].message
