"""Literal conditions decide branches as Python does, and half-typed code never crashes the analysis."""

from __future__ import annotations

import pytest
from tests.engine.conftest import Checker, lines

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.base.findings import Severity

HEAD = ("from transformers import AutoModelForCausalLM, DynamicCache\n"
        'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")\n')
STATIC = '    model.generation_config.cache_implementation = "static"\n'
CALL = "out = model.generate(past_key_values=DynamicCache())\n"


@pytest.mark.parametrize("test", ["1", "True", "-1", "1.5", "-0.5", "2j", "0x10", "1_000", "not 0", "'yes'",
                                  "(1)", "1 and 2", "0 or 1", "not None", "~0"])
def test_a_truthy_literal_condition_is_always_taken(check: Checker, test: str) -> None:
    [f] = check(HEAD + f"if {test}:\n" + STATIC + CALL)
    assert f.span.start.line == 5 and f.severity == Severity.ERROR  # definite, not "depends on a condition"


@pytest.mark.parametrize("test", ["0", "False", "None", "0.0", "-0", "0j", "''", "()", "[]", "not 1", "1 and 0",
                                  "0 or ''", "not -2.5"])
def test_a_falsy_literal_condition_is_never_taken(check: Checker, test: str) -> None:
    assert check(HEAD + f"if {test}:\n" + STATIC + CALL) == []


def test_else_of_a_falsy_literal_is_always_taken(check: Checker) -> None:
    code = HEAD + "if 0:\n    pass\nelif 1.0:\n" + STATIC + CALL
    [f] = check(code)
    assert f.severity == Severity.ERROR


def test_while_true_body_runs_and_while_zero_body_does_not(check: Checker) -> None:
    body = "    out = model.generate(past_key_values=DynamicCache(), cache_implementation='static')\n    break\n"
    assert lines(check(HEAD + "while True:\n" + body)) == [4]
    assert lines(check(HEAD + "while 1:\n" + body)) == [4]
    assert check(HEAD + "while 0:\n" + body) == []


def test_a_literal_condition_in_a_conditional_expression(check: Checker) -> None:
    assert lines(check(HEAD + "impl = 'static' if 1 else None\n"
                       "out = model.generate(past_key_values=DynamicCache(), cache_implementation=impl)\n")) == [4]
    assert check(HEAD + "impl = 'static' if 0 else None\n"
                 "out = model.generate(past_key_values=DynamicCache(), cache_implementation=impl)\n") == []


def test_a_name_bound_to_a_literal_is_still_a_flag(check: Checker) -> None:
    # Only literals are decided: a module-level name may be rebound elsewhere (a CLI flag, a test).
    [f] = check(HEAD + "USE_STATIC = False\nif USE_STATIC:\n" + STATIC + CALL)
    assert f.severity == Severity.WARNING


def test_number_literals_keep_their_value_as_tuple_indices(check: Checker) -> None:
    code = HEAD + "pair = (None, DynamicCache())\nout = model.generate(past_key_values=pair[1], cache_implementation='static')\n"
    assert lines(check(code)) == [4]
    code = HEAD + "pair = (None, DynamicCache())\nout = model.generate(past_key_values=pair[0], cache_implementation='static')\n"
    assert check(code) == []


# -- nothing crashes: states an editor passes through -------------------------------------------------

def test_a_return_at_module_level_after_its_def_line_was_deleted(check: Checker) -> None:
    code = HEAD + "    cache = DynamicCache()\n    return model.generate(past_key_values=cache, cache_implementation='static')\n" \
        "out = model.generate(past_key_values=DynamicCache(), cache_implementation='static')\n"
    result = check_source(code, "main.py")
    assert result.error is None
    assert 5 in lines(list(result.findings))  # the code after the stray `return` is still analysed


def test_a_bare_return_and_a_yield_at_top_level(check: Checker) -> None:
    for stray in ("return\n", "return 1\n", "yield\n", "yield model\n", "x = yield from y\n", "await model\n"):
        result = check_source(HEAD + stray + "out = model.generate(past_key_values=DynamicCache(), "
                              "cache_implementation='static')\n", "main.py")
        assert result.error is None, stray
        assert [f.span.start.line for f in result.findings if f.code == "HFC001"] == [4], stray


@pytest.mark.parametrize("keyword", ["cfg.cache_implementation", "a[0]", "f()", "(x)", "'s'", "1"])
def test_a_keyword_argument_whose_name_is_not_a_name(check: Checker, keyword: str) -> None:
    code = HEAD + f"out = model.generate({keyword}=\"static\", past_key_values=DynamicCache())\n"
    result = check_source(code, "main.py")
    assert result.error is None
    assert [f for f in result.findings if f.code == "HFC001"] == []  # Python accepts no such keyword: no conflict


def test_unfinished_number_literals(check: Checker) -> None:
    for literal in ("1e", "0x", "1_", "09", "1.2.3", "1__0"):
        code = HEAD + f"if {literal}:\n" + STATIC + CALL
        assert check_source(code, "main.py").error is None, literal
