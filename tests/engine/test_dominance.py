"""engine/syntax/dominance.py: code that always runs before other code in the same function (structured control
flow), and HFC007 reporting only the first of the removed uses one of them dominates (a use that raises stops its
function there: the later ones are never reached on the target; heldout2 press_answer_loop.py, heldout3
block_prefix_cache.py)."""

from __future__ import annotations

import parso
import pytest

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.base.findings import Position
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.engine.syntax.dominance import dominates

CODE = (
    "def f(c, flag):\n"              # 1
    "    for i in range(len(c.a)):\n"  # 2: header
    "        x = c.b[i]\n"            # 3: body
    "    if flag:\n"                  # 4
    "        y = c.d\n"               # 5
    "    z = c.e\n"                   # 6
    "    def inner():\n"              # 7
    "        return c.g\n"            # 8
    "    if c.h:\n"                   # 9: test
    "        pass\n"                  # 10
    "    else:\n"                     # 11
    "        w = c.k\n"               # 12
    "    if flag: v = c.m\n"          # 13: one-line branch
    "    u = c.n + c.p\n"             # 14
    "    f(x=c.q, y=c.r)\n"           # 15: a call's arguments
    "    f(c.s or c.t, c.u)\n"        # 16
    "    f(g(c.v), c.w)\n"            # 17
)
TREE = parso.parse(CODE)


def at(line: int, text: str) -> Position:
    return Position(line, CODE.splitlines()[line - 1].index(text))


@pytest.mark.parametrize(("first", "later", "expected"), [
    (at(2, "c.a"), at(3, "c.b"), True),     # a loop's header runs before its body
    (at(2, "c.a"), at(6, "c.e"), True),     # a statement runs before the later statements of its block
    (at(5, "c.d"), at(6, "c.e"), False),    # a branch's statement does not run on every path after the branch
    (at(3, "c.b"), at(6, "c.e"), False),    # nor does a loop body's (the loop may run no time)
    (at(6, "c.e"), at(8, "c.g"), False),    # a nested function's body runs when it is called, not here
    (at(9, "c.h"), at(12, "c.k"), True),    # an `if` test runs before its `else`
    (at(13, "c.m"), at(14, "c.n"), False),  # a one-line branch
    (at(14, "c.n"), at(14, "c.p"), False),  # one statement: its order is not always the text's (`a = b`, `x if c`)
    (at(6, "c.e"), at(2, "c.a"), False),    # only forward
    (at(15, "c.q"), at(15, "c.r"), True),   # a call's arguments are evaluated left to right
    (at(15, "c.r"), at(15, "c.q"), False),  # not backwards
    (at(16, "c.t"), at(16, "c.u"), False),  # an `or` operand may not run
    (at(16, "c.s"), at(16, "c.t"), False),  # nor is it an argument of its own
    (at(17, "c.v"), at(17, "c.w"), True),   # an earlier argument's own call's argument runs first too
])
def test_dominates(first: Position, later: Position, expected: bool) -> None:
    assert dominates(TREE, first, later) is expected


def found(text: str, version: str = "4.57.6") -> list[tuple[int, str]]:
    head = 'from transformers import AutoModelForCausalLM, DynamicCache\nmodel = AutoModelForCausalLM.from_pretrained("m")\n'
    result = check_source(head + text, "t.py", context=Context(target=Target.of(version)))
    return [(f.span.start.line - 2, f.severity.value) for f in result.findings if f.code == "HFC007"]


def test_the_first_raising_read_is_reported_not_the_reads_it_stops() -> None:
    text = ("def cut(cache, n):\n    for i in range(len(cache.key_cache)):\n"
            "        cache.key_cache[i] = cache.key_cache[i][..., :n, :]\n"
            "        cache.value_cache[i] = cache.value_cache[i][..., :n, :]\n\n\n"
            "c = model(ids, use_cache=True).past_key_values\ncut(c, 2)\n")
    assert found(text) == [(2, "error")]


def test_a_read_under_a_condition_stops_the_rest_of_its_branch_only() -> None:
    text = ("def read(cache, cross):\n    if cross:\n        k = cache.key_cache[0]\n        v = cache.value_cache[0]\n"
            "    return cache.value_cache[1]\n\n\n"
            "c = model(ids, use_cache=True).past_key_values\nread(c, flag)\n")
    assert [line for line, _ in found(text)] == [3, 5]


def test_a_silent_store_stops_nothing() -> None:
    text = ("c = DynamicCache()\nmodel(ids, past_key_values=c, use_cache=True)\nc.key_cache = []\n"
            "k = c.value_cache[0]\n")
    assert found(text) == [(3, "warning"), (4, "error")]
