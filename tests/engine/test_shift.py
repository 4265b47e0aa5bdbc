"""engine/syntax/line_map.py and engine/interpreter/shift.py: what a recorded run holds of places, moved by one edit's
line map: lines before the changed block stay, lines after it move by the delta, a place inside it (or one whose side
is ambiguous) refuses, another file's places stay, and a type the walk does not know refuses."""

from __future__ import annotations

import pytest

from hf_cache_lint.engine.base.findings import Span
from hf_cache_lint.engine.interpreter.shift import Shifter, Unmapped
from hf_cache_lint.engine.interpreter.values import CacheVal, Const, DictState, Function, Symbol
from hf_cache_lint.engine.output.analysis import GuardedBlock, Site
from hf_cache_lint.engine.syntax import parsing
from hf_cache_lint.engine.syntax.line_map import LineMap

# Old lines 1-4 stay, old line 5 was replaced by two lines (Enter), old lines 6.. are one line further down.
ENTER = LineMap(head=4, old_end=5, delta=1)


def test_the_map_is_the_one_the_opcodes_say() -> None:
    old = ["a\n", "b\n", "c\n", "d\n", "e\n", "f\n", ""]
    new = ["a\n", "b\n", "c\n", "d\n", "e1\n", "e2\n", "f\n", ""]
    assert parsing.line_map(parsing.opcodes(old, new)) == ENTER
    joined = parsing.line_map(parsing.opcodes(new, old))
    assert (joined.head, joined.old_end, joined.delta) == (4, 6, -1)
    inserted = parsing.line_map(parsing.opcodes(old, [*old[:2], "x\n", *old[2:]]))
    assert (inserted.head, inserted.old_end, inserted.delta) == (2, 2, 1)  # a pure insertion: no old line lost
    assert [inserted.back(n) for n in (1, 2, 3, 4)] == [1, 2, None, 3]


def test_places_before_the_change_stay_and_after_it_move() -> None:
    shift = Shifter(ENTER)
    before, after = Span.of(2, 4, 3, 0), Span.of(7, 4, 7, 9)
    assert shift.map(before) is before
    assert shift.map(after) == Span.of(8, 4, 8, 9)
    # A span around the change (a class holding the edited method): its start stays, its end moves.
    assert shift.map(Span.of(1, 0, 9, 0)) == Span.of(1, 0, 10, 0)
    # An end at column 0 is the line break before it: (5, 0) ends line 4, which stays.
    assert shift.map(Span.of(3, 0, 5, 0)) == Span.of(3, 0, 5, 0)
    assert shift.key(((10, 4), "def f(): ...")) == ((11, 4), "def f(): ...")


@pytest.mark.parametrize("span", [Span.of(5, 2, 5, 6), Span.of(4, 0, 5, 3), Span.of(5, 0, 7, 1),
                                  Span.of(6, 0, 6, 0)])
def test_a_place_inside_the_change_or_of_an_ambiguous_side_refuses(span: Span) -> None:
    """Inside the replaced line, reaching into it, or an empty span at the start of the first line after it (the end
    of the changed block or the start of the next line: the two readings disagree)."""
    with pytest.raises(Unmapped):
        Shifter(ENTER).map(span)


def test_values_facts_and_heap_objects_move_and_other_files_places_stay() -> None:
    shift = Shifter(ENTER)
    here = Site(Span.of(8, 0, 8, 5), "set here")
    there = Site(Span.of(8, 0, 8, 5), "set there", path="/other.py")
    value = (Const("static", here), Const("x", there), Symbol("transformers.DynamicCache"), CacheVal("DynamicCache"))
    moved = shift.map(value)
    assert moved[0] == Const("static", Site(Span.of(9, 0, 9, 5), "set here"))
    assert moved[1] is value[1] and moved[2] is value[2] and moved[3] is value[3]
    assert shift.map(value) is moved  # once per object and check
    entries = DictState.build([("cache_implementation", Const("static"), here, None)])
    assert shift.map(entries).entries[0][2] == Site(Span.of(9, 0, 9, 5), "set here")
    assert shift.map(GuardedBlock(Span.of(7, 0, 9, 0), "v >= 5")) == GuardedBlock(Span.of(8, 0, 10, 0), "v >= 5")
    node = object()
    fn = Function(node, "f", closure=(("c", Const(1, here)),))
    assert shift.map(fn).node is node and shift.map(fn).closure[0][1].site.span.start.line == 9  # type: ignore[union-attr]
    pairs = (("model", Const(1, here)), ("tok", Symbol("t")))
    assert shift.pairs(pairs)[0][1] == Const(1, Site(Span.of(9, 0, 9, 5), "set here")) and \
        shift.pairs(pairs)[1] is pairs[1]


def test_a_type_the_walk_does_not_know_refuses() -> None:
    class Opaque:
        pass

    with pytest.raises(Unmapped):
        Shifter(ENTER).map((Const(1), Opaque()))
