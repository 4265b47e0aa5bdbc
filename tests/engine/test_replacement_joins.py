"""A `model.generate` replacement made on some paths only joins like other conditional facts
(engine/interpreter/state.py `_merge_obj`, calls.py `CallDispatch._call_options`; docs/architecture.md, "The value model
and its join rules")."""

from __future__ import annotations

from pathlib import Path

from tests.engine.conftest import Checker, lines

from hf_cache_lint.engine.base.findings import Severity
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.engine.interpreter.interp import analyse
from hf_cache_lint.engine.output.analysis import Context

HEAD = ("import functools\nimport sys\nimport types\n"
        "from transformers import AutoModelForCausalLM, DynamicCache\n"
        'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")\n'
        "flag = len(sys.argv) > 1\n")
STATIC = '    model.generate = functools.partial(model.generate, cache_implementation="static")\n'
CLEAR = "    model.generate = functools.partial(model.generate, cache_implementation=None)\n"
CALL = "model.generate(max_new_tokens=4, past_key_values=DynamicCache())\n"


def test_replacement_in_the_if_branch_only_is_a_warning_naming_it(check: Checker) -> None:
    [f] = check(HEAD + "if flag:\n" + STATIC + CALL)
    assert f.severity == Severity.WARNING and "only if `flag` holds" in f.message


def test_replacement_in_the_else_branch_only_is_a_warning_naming_it(check: Checker) -> None:
    [f] = check(HEAD + "if flag:\n    pass\nelse:\n" + STATIC + CALL)
    assert f.severity == Severity.WARNING and "only if `not flag` holds" in f.message


def test_the_same_replacement_on_both_paths_is_an_error(check: Checker) -> None:
    [f] = check(HEAD + "if flag:\n" + STATIC + "else:\n" + STATIC + CALL)
    assert f.severity == Severity.ERROR and "only if" not in f.message


def test_a_condition_that_excludes_the_call_leaves_no_finding(check: Checker) -> None:
    assert check(HEAD + "if flag:\n" + STATIC + "if not flag:\n    " + CALL) == []
    [f] = check(HEAD + "if flag:\n" + STATIC + "if flag:\n    " + CALL)
    assert f.severity == Severity.ERROR  # the call's own path decides the replacement's condition


def test_a_replacement_that_clears_the_config_value_on_one_path_leaves_a_warning_on_the_other(
        check: Checker) -> None:
    code = HEAD + 'model.generation_config.cache_implementation = "static"\nif flag:\n' + CLEAR + CALL
    [f] = check(code)
    assert f.severity == Severity.WARNING and "only if `not flag` holds" in f.message


def test_two_different_replacements_are_both_recorded_under_their_conditions(tmp_path: Path) -> None:
    code = HEAD + "if flag:\n" + STATIC + "else:\n" + STATIC.replace('"static"', '"offloaded"') + CALL
    ctx = Context(target=Target.of("5.24.0"), workspace=tmp_path)
    calls = [c for c in analyse(code, str(tmp_path / "main.py"), ctx).calls if c.cache_implementation]
    got = sorted((c.cache_implementation.value, c.cache_implementation.condition) for c in calls
                 if c.cache_implementation is not None)
    assert got == [("offloaded", "`not flag`"), ("static", "`flag`")]
    assert all(a.condition is None for c in calls for a in c.cache_args)  # the cache is passed on both


def test_method_type_replacement_under_a_condition_says_it_once(check: Checker) -> None:
    code = (HEAD + "orig = model.generate\n\n\ndef fast(self, **kw):\n"
            '    return orig(cache_implementation="static", **kw)\n\n\n'
            "if flag:\n    model.generate = types.MethodType(fast, model)\n" + CALL)
    [f] = check(code)
    assert lines([f]) == [11] and f.severity == Severity.WARNING
    assert f.message.count("`flag` holds") == 1


def test_a_try_join_keeps_the_body_s_replacement(check: Checker) -> None:
    # try body and handler are no condition's two sides: the body's replacement stands, as before.
    [f] = check(HEAD + "try:\n" + STATIC + "except ImportError:\n    pass\n" + CALL)
    assert f.severity == Severity.ERROR


def test_a_thread_over_a_replacement_made_on_one_path_is_a_warning_on_the_other(check: Checker) -> None:
    code = ("from threading import Thread\n" + HEAD + 'model.generation_config.cache_implementation = "static"\n'
            "if flag:\n" + CLEAR + 'Thread(target=model.generate, kwargs={"past_key_values": DynamicCache()}).start()\n')
    [f] = check(code)
    assert f.severity == Severity.WARNING and "only if `not flag` holds" in f.message
