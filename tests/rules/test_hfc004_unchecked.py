"""4.41-4.44 validate no `cache_implementation` (release table `cache_implementation:*` is `unchecked` there): an
unknown value raises nothing, generate builds no cache for it and runs with the model's default one. HFC004 says
so there (a Warning, no ValueError quoted), and from 4.45.0 quotes the ValueError `validate()` raises."""

from __future__ import annotations

import pytest

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.base.findings import Severity
from hf_cache_lint.engine.environment import releases
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.target import Target

LOAD = """from transformers import AutoModelForCausalLM, AutoTokenizer, DynamicCache, GenerationConfig

tokenizer = AutoTokenizer.from_pretrained("meta-llama/Llama-3.2-1B")
model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")
inputs = tokenizer("Hello", return_tensors="pt")
"""
TYPO = LOAD + 'out = model.generate(**inputs, cache_implementation="statc", max_new_tokens=5)\n'
IN_CONFIG = LOAD + ('config = GenerationConfig(max_new_tokens=5, cache_implementation="statc")\n'
                    "out = model.generate(**inputs, generation_config=config)\n")
BOTH = LOAD + ('out = model.generate(**inputs, cache_implementation="statc", past_key_values=DynamicCache(), '
               "max_new_tokens=5)\n")


def _findings(code: str, version: str, rule: str = "HFC004") -> list:  # type: ignore[type-arg]
    return [f for f in check_source(code, "example.py", context=Context(target=Target.of(version))).findings
            if f.code == rule]


@pytest.mark.parametrize("version", ["4.41.0", "4.43.4", "4.44.2"])
@pytest.mark.parametrize("code", [TYPO, IN_CONFIG], ids=["keyword", "GenerationConfig"])
def test_unchecked_releases_warn_of_the_silent_effect(code: str, version: str) -> None:
    assert releases.value("cache_implementation:*", version) == "unchecked"
    (f,) = _findings(code, version)
    assert f.severity == Severity.WARNING
    assert "ValueError" not in f.message and "raises" not in f.message
    assert f"not a value transformers {version} knows" in f.message and "without a word" in f.message
    assert f.fixes and f.fixes[0].title == 'Replace with `"static"`'


@pytest.mark.parametrize("version", ["4.45.0", "4.57.6", "5.25.0"])
def test_checked_releases_quote_the_error(version: str) -> None:
    (f,) = _findings(TYPO, version)
    assert f.severity == Severity.ERROR
    assert "ValueError: Invalid `cache_implementation` (statc)" in f.message


def test_the_conflict_is_raised_first_where_the_value_is_not_checked() -> None:
    """4.44's generate raises 'Passing both' for any value with a cache (nothing validated it before); 4.45+
    raise the invalid value first, so HFC001 stays silent there."""
    (f,) = _findings(BOTH, "4.44.2", "HFC001")
    assert "Passing both" in f.message
    assert _findings(BOTH, "4.45.0", "HFC001") == []
