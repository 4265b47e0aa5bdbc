"""Analysis cost grows with the file: each pathological shape (bench/scaling_shapes.py) at a moderate size
is analysed within its budget, the conflict after the shape is still found, and the work the analysis did
(steps, state entries copied or merged) stays proportional to the shape's size. No wall-clock times."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.interpreter import interp
from hf_cache_lint.engine.interpreter.values import MAX_OPTIONS, Maybe

_SPEC = importlib.util.spec_from_file_location(
    "scaling_shapes", Path(__file__).resolve().parents[2] / "bench" / "scaling_shapes.py")
assert _SPEC is not None and _SPEC.loader is not None
shapes = importlib.util.module_from_spec(_SPEC)
sys.modules["scaling_shapes"] = shapes
_SPEC.loader.exec_module(shapes)


def _work(text: str) -> tuple[int, int, interp.Interpreter]:
    it = interp.Interpreter(text, "<budget>", Context())
    it.run_module(interp.parse(text))
    assert it.session.stopped is None, it.session.stopped
    return it.session.steps, it.session.meter.work, it


@pytest.mark.parametrize("shape", sorted(shapes.SHAPES))
def test_shape_is_checked_whole_and_the_conflict_found(shape: str) -> None:
    text = shapes.source(shape, 2000)
    result = check_source(text, "<budget>")
    assert result.error is None and result.notes == ()
    assert shapes.conflict_line(text) in {f.span.start.line for f in result.findings if f.code == "HFC001"}


@pytest.mark.parametrize("shape", sorted(shapes.SHAPES))
def test_work_grows_linearly_with_the_shape(shape: str) -> None:
    # Three times the shape: per line of the file, about the same steps and state work (a quadratic
    # step would triple them; an exponential one would not finish).
    small, big = shapes.source(shape, 800), shapes.source(shape, 2400)
    (small_steps, small_work, _), (big_steps, big_work, _) = _work(small), _work(big)
    small_lines, big_lines = small.count("\n"), big.count("\n")
    assert big_steps / big_lines <= 1.5 * small_steps / small_lines + 1, (small_steps, big_steps)
    assert big_work / big_lines <= 1.5 * small_work / small_lines + 1, (small_work, big_work)


def test_a_value_combined_with_itself_widens_instead_of_doubling() -> None:
    # Each call returns one of its two arguments: without widening, p held 2^40 options.
    text = "def pick(a, b):\n    if a:\n        return b\n    return a\n\np = 'x'\nq = 'y'\n" + \
        "p = pick(p, q)\nq = pick(q, p)\n" * 20
    _, _, it = _work(text)
    p = it.session.module_state.names["p"]
    assert isinstance(p, Maybe) and len(p.options) <= MAX_OPTIONS


def test_a_long_elif_chain_keeps_a_bounded_value() -> None:
    text = "import os\nx = os.environ.get('X')\n" + "".join(
        f"{'if' if i == 0 else 'elif'} x == '{i}':\n    mode = {i}\n" for i in range(300))
    it = interp.Interpreter(text, "<budget>", Context())
    it.statements.exec_block(interp.parse(text).children)  # type: ignore[attr-defined]
    mode = it.session.state.names["mode"]  # the module's state after the chain
    assert isinstance(mode, Maybe) and len(mode.options) == MAX_OPTIONS


def test_one_long_chain_and_deep_nesting_finish() -> None:
    # Longer than CPython's own parser accepts (about 2,500): parso parses it, the analysis is iterative.
    for body in ("a = f" + "()" * 20_000 + "\n", "b = x" + ".m()" * 10_000 + "\n", "c = a" + ".b" * 20_000 + "\n",
                 "total = " + " + ".join(["1"] * 20_000) + "\n"):
        text = shapes.HEAD + body + shapes.TAIL
        result = check_source(text, "<budget>")
        assert result.notes == () and [f.span.start.line for f in result.findings if f.code == "HFC001"] == [6]


@pytest.mark.parametrize("deep", ["x = " + "(" * 3000 + "1" + ")" * 3000,
                                  "x = " + "f(" * 3000 + "1" + ")" * 3000,
                                  "x = " + "{'a': " * 3000 + "1" + "}" * 3000])
def test_a_statement_too_deep_to_analyse_is_skipped_alone(deep: str) -> None:
    text = shapes.HEAD + deep + "\n" + shapes.TAIL
    result = check_source(text, "<budget>")
    assert result.error is None
    assert result.notes == ("a statement too deeply nested to analyse skipped (at line 4)",)
    assert [f.span.start.line for f in result.findings if f.code == "HFC001"] == [6]


def test_a_skipped_assignment_forgets_its_old_value() -> None:
    # `cache` was a Cache; the deep statement rebinds it to something unknown, so no certain conflict.
    text = (shapes.HEAD + "cache = DynamicCache()\ncache = " + "(" * 3000 + "1" + ")" * 3000 + "\n"
            "model.generate(past_key_values=cache, cache_implementation='static')\n")
    result = check_source(text, "<budget>")
    assert all(f.severity.value != "error" for f in result.findings if f.code == "HFC001")


def test_a_file_past_the_budget_says_where_it_stopped(monkeypatch: pytest.MonkeyPatch) -> None:
    from hf_cache_lint.engine.interpreter import session

    monkeypatch.setattr(session, "HARD_STEPS", 2_000)
    text = shapes.HEAD + "model.generate(past_key_values=DynamicCache(), cache_implementation='static')\n" + \
        shapes.big_dict(3000) + shapes.TAIL
    result = check_source(text, "<budget>")
    [note] = result.notes
    assert note.startswith("analysis stopped at line ") and "more than 2,000 steps" in note
    # What was analysed before the budget ran out is still reported.
    assert [f.span.start.line for f in result.findings if f.code == "HFC001"] == [4]
