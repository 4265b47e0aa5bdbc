"""Functions defined inside functions see the names they capture (engine/interpreter/functions.py,
`UserFunctions._captured`): a decorator over generate keeps the original it wraps, and a captured name the
enclosing function binds again later is not taken at its old value."""

from __future__ import annotations

from tests.engine.conftest import Checker, lines

from hf_cache_lint.engine.base.findings import Severity
from hf_cache_lint.engine.interpreter.class_members import _leaves
from hf_cache_lint.engine.interpreter.closures import _rebound
from hf_cache_lint.engine.interpreter.interp import parse

HEAD = ("from transformers import AutoModelForCausalLM, DynamicCache\n\n"
        'model = AutoModelForCausalLM.from_pretrained("gpt2")\n\n\n')

DECORATOR = ("def static_cache(fn):\n"
             "    def inner(*args, **kwargs):\n"
             '        kwargs["cache_implementation"] = "static"\n'
             "        return fn(*args, **kwargs)\n"
             "    return inner\n\n\n")


def test_a_decorator_over_generate_calls_the_original_it_captured(check: Checker) -> None:
    code = HEAD + DECORATOR + "model.generate = static_cache(model.generate)\n" \
        "out = model.generate(past_key_values=DynamicCache())\n"
    found = check(code)
    assert lines(found) == [9] and found[0].severity == Severity.ERROR  # `return fn(*args, **kwargs)`


def test_the_captured_function_is_the_one_passed_to_this_decorator_call(check: Checker) -> None:
    # Two wrappers from one decorator: each inner function calls what its own call was given.
    code = HEAD + DECORATOR + "def plain(*args, **kwargs):\n    return None\n\n\n" \
        "model.generate = static_cache(plain)\n" \
        "out = model.generate(past_key_values=DynamicCache())\n"
    assert check(code) == []


def test_a_captured_name_bound_again_after_the_def_is_not_taken_at_its_old_value(check: Checker) -> None:
    # At the call, `cache` is None: the DynamicCache it held when `run` was defined never reaches generate.
    code = HEAD + "def make():\n    cache = DynamicCache()\n\n" \
        "    def run():\n" \
        '        return model.generate(past_key_values=cache, cache_implementation="static")\n\n' \
        "    cache = None\n    return run\n\n\nmake()()\n"
    assert all(f.severity != Severity.ERROR for f in check(code))


def test_a_name_bound_anywhere_in_a_loop_around_the_def_counts_as_bound_again() -> None:
    # `cache = None` comes before the `def` in the text, but a later iteration runs it after `run` was defined.
    tree = parse("def make(caches):\n    cache = DynamicCache()\n    for i in range(2):\n"
                 "        if i:\n            cache = None\n"
                 "        def run():\n            return cache\n    other = 1\n    return run\n")
    make = next(tree.iter_funcdefs())
    run = next(n for n in _leaves(make) if n.type == "name" and n.value == "run").parent
    assert _rebound(make, run, "cache", {}) and not _rebound(make, run, "caches", {})
    assert _rebound(make, run, "other", {})  # bound after the def (in the text and when it runs)
