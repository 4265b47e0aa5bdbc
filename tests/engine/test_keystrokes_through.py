"""A run whose inlined function was edited is replayed when that function's calls inside it, run again where they
started at the last check, do what they did (engine/interpreter/replay.py `Replays.through`): keystrokes typed
inside function bodies (the line count kept, several on one line as a user types), over the corpus, the examples
and transformers' own generation/utils.py, give a fresh check's analysis (every fact kind) and findings after each
one, and the trials did stand for runs (so the comparison covers them). Enter and joins inside those bodies (a line
added or removed: the trials moved by the line map, engine/interpreter/shift.py) likewise."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.engine.test_keystrokes import (
    RUNNER,
    analyses,
    assert_keystrokes_match_fresh_checks,
    generation_utils,
    small_files,
)

from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.interpreter import replay
from hf_cache_lint.engine.output.analysis import Analysis

__all__ = ["analyses"]  # the fixture, used by name

Edit = Callable[[str, random.Random, int, list[int]], Iterator[str]]  # typed_in_place, entered_in_place
TYPED = ["x", " ", "(", ")", ":", '"', "#", ",", "=", ".", "1", "None", "self.", "static", "not ", "[0]", "'"]


def body_lines(text: str, only: tuple[str, ...] = ()) -> list[int]:
    """The lines inside a `def`'s body (indented deeper than it, not blank), of the functions named `only` if given."""
    lines = text.split("\n")
    found: list[int] = []
    depth: int | None = None
    for i, line in enumerate(lines):
        indent = len(line) - len(line.lstrip())
        stripped = line.strip()
        if depth is not None and stripped and indent <= depth:
            depth = None
        if stripped.startswith("def ") and (not only or stripped[4:].split("(")[0] in only):
            depth = indent
            continue
        if depth is not None and stripped:
            found.append(i)
    return found


def typed_in_place(text: str, rng: random.Random, edits: int, rows: list[int]) -> Iterator[str]:
    """The text, then `edits` keystrokes on lines of `rows`: a few on one line (typed there, then deleted or
    typed on), as a user types; never a line break."""
    yield text
    lines = text.split("\n")
    while edits > 0:
        i = rng.choice(rows)
        col = rng.randrange(len(lines[i]) + 1)
        for _ in range(rng.randrange(2, 6)):
            line = lines[i]
            col = min(col, len(line))
            if rng.random() < 0.35 and col < len(line):
                lines[i] = line[:col] + line[col + 1:]
            else:
                token = rng.choice(TYPED)
                lines[i] = line[:col] + token + line[col:]
                col += len(token)
            edits -= 1
            yield "\n".join(lines)


def entered_in_place(text: str, rng: random.Random, edits: int, rows: list[int]) -> Iterator[str]:
    """The text, then `edits` edits on lines of `rows` (moved as lines come and go): Enter somewhere on a line (the
    rest of it moved to a new line indented like it or 4 deeper, or an empty one), then, as a user does, the two
    lines joined again, a keystroke typed on either, or Enter again; never more than one line added or removed at
    a time."""
    yield text
    lines = text.split("\n")
    rows = list(rows)
    while edits > 0:
        i = rng.choice(rows)
        line = lines[i]
        col = rng.choice([len(line), rng.randrange(len(line) + 1)])
        indent = " " * (len(line) - len(line.lstrip()) + rng.choice([0, 4]))
        lines[i:i + 1] = [line[:col], indent + line[col:]]
        rows = [r + (r > i) for r in rows]
        edits -= 1
        yield "\n".join(lines)
        for _ in range(rng.randrange(1, 4)):
            if edits <= 0:
                break
            choice = rng.random()
            if choice < 0.5:  # joined again (Backspace at the new line's start, its indentation removed)
                lines[i:i + 2] = [lines[i] + lines[i + 1].lstrip(" ")]
                rows = [r - (r > i) for r in rows]
                edits -= 1
                yield "\n".join(lines)
                break
            j = i + rng.randrange(2)
            at = rng.randrange(len(lines[j]) + 1)
            lines[j] = lines[j][:at] + rng.choice(TYPED) + lines[j][at:]
            edits -= 1
            yield "\n".join(lines)


@pytest.fixture
def tried(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    got: list[bool] = []
    original = replay.Replays.through

    def spy(self: replay.Replays, key: Any, run: Any) -> bool:
        ok = original(self, key, run)
        got.append(ok)
        return ok

    monkeypatch.setattr(replay.Replays, "through", spy)
    return got


# The edits made inside function bodies: keystrokes typed (the line count kept), and Enter and joins (a line added
# or removed at a time); each with its seed's prefix (and the file's name) and how many.
EDITS = [pytest.param(typed_in_place, "through", 40, id="typed"),
         pytest.param(entered_in_place, "entered", 24, id="entered")]


@pytest.mark.parametrize("path", small_files(), ids=lambda p: p.name)
@pytest.mark.parametrize(("edit", "seed", "edits"), EDITS)
def test_edits_inside_functions_on_the_corpus_and_examples_give_a_fresh_checks_findings(
        path: Path, edit: Edit, seed: str, edits: int, analyses: list[Analysis]) -> None:
    text = path.read_text()
    rows = body_lines(text)
    if not rows:
        pytest.skip("no function body")
    rng = random.Random(seed + path.name)
    ctx = Context(workspace=path.parent)
    assert assert_keystrokes_match_fresh_checks(path, ctx, edit(text, rng, edits, rows), analyses) > edits


def test_typing_inside_a_method_others_inline_replays_them_through_it(
        tmp_path: Path, analyses: list[Analysis], tried: list[bool]) -> None:
    """`run` and `other` inline `cache`: typing inside `cache` replays them through its calls where it does
    what it did (a comment, spaces), and runs them where it does otherwise; every keystroke a fresh check's."""
    path = tmp_path / "runner.py"
    rows = body_lines(RUNNER, ("cache",))
    rng = random.Random(7)
    n = assert_keystrokes_match_fresh_checks(path, Context(workspace=tmp_path),
                                             typed_in_place(RUNNER, rng, 80, rows), analyses)
    assert n > 80
    assert tried.count(False) > 0
    # A comment typed at the end of a line of `cache`, a character at a time: its calls do what they did.
    tried.clear()
    line = "        made = DynamicCache()"
    comment = "  # the cache"
    texts = [RUNNER.replace(line, line + comment[:k]) for k in range(len(comment) + 1)]
    assert assert_keystrokes_match_fresh_checks(path, Context(workspace=tmp_path), iter(texts), analyses) == len(texts)
    assert tried.count(True) >= len(texts) - 3  # each keystroke from the third on (the first two record)


def test_enter_and_joins_inside_a_method_others_inline_replay_them_through_it_moved(
        tmp_path: Path, analyses: list[Analysis], tried: list[bool]) -> None:
    """Enter at the end of a line of `cache` (an empty line added, every later line moved): `run` and `other` below
    it are replayed through `cache`'s call, moved; Enter inside `DynamicCache()`'s
    parentheses changes where the cache was made (a place inside the changed lines): they run. Each a fresh
    check's; random Enter and joins inside `cache` too."""
    path = tmp_path / "runner.py"
    ctx = Context(workspace=tmp_path)
    line = "        made = DynamicCache()"
    entered = RUNNER.replace(line, line + "\n        ")
    split = RUNNER.replace(line, "        made = DynamicCache(\n        )")
    assert entered != RUNNER and split != RUNNER
    texts = [RUNNER, RUNNER.replace(line, line + " "), RUNNER, entered, RUNNER, entered, RUNNER]
    assert assert_keystrokes_match_fresh_checks(path, ctx, iter(texts), analyses) == len(texts)
    # `run` and `other` at each Enter (the join may make a new node of `cache`, which parso's diff parser does here:
    # a method looked up is then another node, and they run).
    assert tried.count(True) >= 4
    tried.clear()
    texts = [RUNNER, RUNNER.replace(line, line + " "), RUNNER, split, RUNNER]
    assert assert_keystrokes_match_fresh_checks(path, ctx, iter(texts), analyses) == len(texts)
    assert tried[-4:-2] == [False, False]  # at `split`: `run` and `other` ran
    rng = random.Random(11)
    assert assert_keystrokes_match_fresh_checks(path, ctx, entered_in_place(RUNNER, rng, 60, body_lines(RUNNER, (
        "cache",))), analyses) > 60


def edited_generation_utils(edit: Edit, seed: int, edits: int, analyses: list[Analysis]) -> tuple[Path, str, Context]:
    """transformers' generation/utils.py and its context, after `edits` random edits inside methods `generate`
    inlines (and the one the benchmark types into), each checked as the buffer and afresh."""
    path = generation_utils()
    assert path is not None
    text = path.read_text()
    rows = body_lines(text, ("_prepare_cache_for_generation", "_prepare_special_tokens", "_prepare_generated_length",
                             "_prepare_static_cache"))
    rng = random.Random(seed)
    ctx = Context(workspace=path.parent.parent)
    assert_keystrokes_match_fresh_checks(path, ctx, edit(text, rng, edits, rows), analyses)
    return path, text, ctx


@pytest.mark.skipif(generation_utils() is None, reason="no oracle environment with transformers' source")
def test_typing_inside_methods_generate_inlines_on_transformers_generation_utils_gives_a_fresh_checks_findings(
        analyses: list[Analysis], tried: list[bool]) -> None:
    path, text, ctx = edited_generation_utils(typed_in_place, 31, 16, analyses)
    edited = text.replace("cache_implementation=generation_config.cache_implementation,",
                          "cache_implementation=generation_configx.cache_implementation,")
    assert edited != text
    assert_keystrokes_match_fresh_checks(path, ctx, iter([text, edited, text, edited, text]), analyses)
    assert tried.count(True) >= 2  # the benchmark's keystroke: `generate` replayed through its call


@pytest.mark.skipif(generation_utils() is None, reason="no oracle environment with transformers' source")
def test_enter_and_joins_inside_methods_generate_inlines_on_transformers_generation_utils_give_a_fresh_checks_findings(
        analyses: list[Analysis], tried: list[bool]) -> None:
    path, text, ctx = edited_generation_utils(entered_in_place, 37, 12, analyses)
    # The benchmark's Enter (bench/lsp_latency.py UTILS_EDITS) and join: `generate` replayed through the call, moved.
    marker = "cache_implementation=generation_config.cache_implementation,"
    at = text.index(marker) + len("cache_implementation=")
    entered = text[:at] + "\n" + " " * 20 + text[at:]
    typed = text[:at] + "x" + text[at:]
    tried.clear()
    assert_keystrokes_match_fresh_checks(path, ctx, iter([text, typed, text, entered, text, entered, text]), analyses)
    assert tried.count(True) >= 4  # of the 5 checks after the first keystroke (the buffer's first two record)
