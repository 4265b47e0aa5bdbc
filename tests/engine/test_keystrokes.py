"""Issue 31 item 2: a keystroke re-parses the statement it changed (engine/syntax/splice.py) and re-runs only the
functions whose code or inputs changed (engine/interpreter/replay.py: methods too, runs that write the module's
objects or resolve workspace imports first); after every edit of a random sequence, over the corpus, the examples
and transformers' own generation/utils.py (an oracle environment's copy), the buffer's analysis (every fact kind)
and findings are exactly a fresh check's."""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hf_cache_lint.checking import source
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.interpreter import interp, replay
from hf_cache_lint.engine.output.analysis import Analysis

ROOT = Path(__file__).resolve().parents[2]
ORACLE = Path(os.environ.get("ORACLE_DIR") or ROOT / ".cache" / "oracle")
TOKENS = ["x", " ", "(", ")", ":", '"', "#", ",", "=", "self.", "None", "static", "cache_implementation=",
          "past_key_values=DynamicCache()", "model.generate(", "return ", "\n", "\n    "]
TYPED = ["out = model.generate(past_key_values=cache, cache_implementation=\"static\")",
         "self.generation_config.cache_implementation = \"offloaded\"", "kw = {\"cache_implementation\": MODE}",
         "from transformers import DynamicCache", "cache = DynamicCache()"]


def edit(text: str, rng: random.Random) -> str:
    """A keystroke or a deletion inside a line (most of them), Enter typed inside a line or two lines joined (every
    later line moves), a line added or removed, or a line replaced by another one."""
    lines = text.split("\n")
    i = rng.randrange(len(lines))
    line, kind = lines[i], rng.random()
    if rng.random() < 0.15:
        at = rng.randrange(len(line) + 1)
        if rng.random() < 0.6 or i + 1 == len(lines):  # Enter: the rest of the line indented as an editor does
            indent = line[:len(line) - len(line.lstrip())] + ("    " if line.rstrip().endswith(":") else "")
            lines[i:i + 1] = [line[:at], indent + line[at:].lstrip()]
        else:  # Delete at the end of a line: the next line joins it
            lines[i:i + 2] = [line + lines[i + 1].lstrip()]
    elif kind < 0.5:
        at = rng.randrange(len(line) + 1)
        lines[i] = line[:at] + rng.choice(TOKENS[:-2]) + line[at:]
    elif kind < 0.75:
        at = rng.randrange(len(line) + 1)
        lines[i] = line[:at] + line[at + rng.randrange(1, 8):]
    elif kind < 0.85:
        lines[i] = lines[rng.randrange(len(lines))]
    elif kind < 0.93:
        lines.insert(i, line[:len(line) - len(line.lstrip())] + rng.choice(TYPED))
    else:
        del lines[i]
    return "\n".join(lines)


def typing(text: str, rng: random.Random) -> Iterator[str]:
    """A statement typed character by character at the indentation of a line, as an editor sends it."""
    lines = text.split("\n")
    i = rng.randrange(len(lines))
    indent = lines[i][:len(lines[i]) - len(lines[i].lstrip())]
    typed = rng.choice(TYPED)
    for n in range(len(typed) + 1):
        yield "\n".join([*lines[:i], indent + typed[:n], *lines[i:]])


@pytest.fixture
def analyses(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Analysis]]:
    """The analyses check_source made, in order (compared fact kind by fact kind)."""
    got: list[Analysis] = []
    original = source.analyse

    def keep(*args: Any, **kwargs: Any) -> Analysis:
        a = original(*args, **kwargs)
        got.append(a)
        return a

    monkeypatch.setattr(source, "analyse", keep)
    replay.forget_all()
    yield got
    replay.forget_all()


def facts(a: Analysis) -> tuple[object, ...]:
    return dict(a.facts), a.version_guarded, a.stopped, a.skipped


def assert_keystrokes_match_fresh_checks(path: Path, ctx: Context, texts: Iterator[str],
                                         analyses: list[Analysis]) -> int:
    """Each text checked as the buffer (incremental) and afresh: the same findings and facts. Returns the count."""
    n = 0
    try:
        for text in texts:
            analyses.clear()
            buffer = source.check_source(text, str(path), None, ctx, incremental=True)
            fresh = source.check_source(text, str(path), None, ctx, use_gate=False)
            assert buffer == fresh, f"edit {n}: the buffer's findings are not a fresh check's"
            if len(analyses) == 2:  # both passed the screen
                assert facts(analyses[0]) == facts(analyses[1]), f"edit {n}: the buffer's facts differ"
            n += 1
    finally:
        interp.forget(str(path))
    return n


def sequence(text: str, rng: random.Random, edits: int) -> Iterator[str]:
    yield text
    while edits > 0:
        if rng.random() < 0.1:
            for typed in typing(text, rng):
                text = typed
                edits -= 1
                yield text
        else:
            text = edit(text, rng)
            edits -= 1
            yield text


def small_files() -> list[Path]:
    return sorted((ROOT / "tests" / "data" / "corpus").rglob("*.py")) + sorted((ROOT / "examples").rglob("*.py"))


@pytest.mark.parametrize("path", small_files(), ids=lambda p: p.name)
def test_every_keystroke_on_the_corpus_and_examples_gives_a_fresh_checks_findings(
        path: Path, analyses: list[Analysis]) -> None:
    rng = random.Random(path.name)
    ctx = Context(workspace=path.parent)
    n = assert_keystrokes_match_fresh_checks(path, ctx, sequence(path.read_text(), rng, 60), analyses)
    assert n > 60


def generation_utils() -> Path | None:
    """5.24.0's (4,533 lines), else the newest release's the oracle has (by version: as text, tf-5.4.0 sorts last)."""
    found = {p.parts[-4].removeprefix("tf-"): p for p in ORACLE.glob("tf-*/transformers/generation/utils.py")}
    if "5.24.0" in found:
        return found["5.24.0"]
    newest = max(found, key=lambda v: tuple(int(x) for x in v.split(".") if x.isdigit()), default=None)
    return found[newest] if newest is not None else None


@pytest.mark.skipif(generation_utils() is None, reason="no oracle environment with transformers' source")
def test_keystrokes_on_transformers_generation_utils_give_a_fresh_checks_findings(
        analyses: list[Analysis], monkeypatch: pytest.MonkeyPatch) -> None:
    path = generation_utils()
    assert path is not None
    replayed: list[bool] = []
    original = replay.Replays.replay

    def spy(self: replay.Replays, key: tuple[tuple[int, int], str]) -> bool:
        ok = original(self, key)
        replayed.append(ok)
        return ok

    monkeypatch.setattr(replay.Replays, "replay", spy)
    rng = random.Random(31)
    # Its package is the workspace: its relative imports resolve (runs that resolve them first are replayed).
    ctx = Context(workspace=path.parent.parent)
    text = path.read_text()
    assert_keystrokes_match_fresh_checks(path, ctx, sequence(text, rng, 14), analyses)
    # Most methods were replayed, not run again (a keystroke re-runs what it changed).
    assert replayed.count(True) > 5 * replayed.count(False)


RUNNER = '''from transformers import AutoModelForCausalLM, DynamicCache


class Runner:
    def __init__(self):
        self.model = AutoModelForCausalLM.from_pretrained("gpt2")

    def config(self):
        return {"cache_implementation": "static"}

    def cache(self):
        made = DynamicCache()
        return made

    def run(self, prompt):
        kw = self.config()
        return self.model.generate(**kw, past_key_values=self.cache())

    def other(self):
        return self.cache()
'''


def test_an_edited_method_reruns_its_callers_whose_other_calls_are_replayed(
        tmp_path: Path, analyses: list[Analysis], monkeypatch: pytest.MonkeyPatch) -> None:
    runs: list[tuple[str, bool]] = []
    calls: list[tuple[str, bool]] = []
    run_original, call_original = replay.Replays.replay, replay.Replays._replay_call

    def run_spy(self: replay.Replays, key: replay.RunKey) -> bool:
        ok = run_original(self, key)
        runs.append((key[0][1].split("(")[0], ok))
        return ok

    def call_spy(self: replay.Replays, node: Any, c: replay.CallRecord) -> bool:
        ok = call_original(self, node, c)
        calls.append((node.name.value, ok))
        return ok

    monkeypatch.setattr(replay.Replays, "replay", run_spy)
    monkeypatch.setattr(replay.Replays, "_replay_call", call_spy)
    path = tmp_path / "runner.py"
    ctx = Context(workspace=tmp_path)
    edited = RUNNER.replace("made = DynamicCache()", "made = DynamicCache()  # typed")
    again = edited.replace("return made", "return  made")
    try:
        for n, text in enumerate([RUNNER, RUNNER, edited, again]):
            runs.clear()
            calls.clear()
            analyses.clear()
            buffer = source.check_source(text, str(path), None, ctx, incremental=True)
            assert buffer == source.check_source(text, str(path), None, ctx, use_gate=False)
            assert facts(analyses[0]) == facts(analyses[1])
            assert [f.code for f in buffer.findings] == ["HFC001"]
            if n >= 2:  # `cache` edited: `run` and `other` call it (run again), `config` is not (replayed)
                assert ("def config", True) in runs
                assert ("def run", False) in runs and ("def other", False) in runs
                assert ("config", True) in calls  # run's call of config, given and reading the same
                assert ("cache", True) not in calls
    finally:
        interp.forget(str(path))


MOVED = '''from transformers import AutoModelForCausalLM, DynamicCache


def user():
    return helper


def middle():
    x = 1
    return x


def helper():
    model = AutoModelForCausalLM.from_pretrained("gpt2")
    return model.generate(past_key_values=DynamicCache(), cache_implementation="static")
'''


def test_a_run_that_read_a_function_a_line_moved_is_not_replayed(
        tmp_path: Path, analyses: list[Analysis], monkeypatch: pytest.MonkeyPatch) -> None:
    """`user` reads `helper`, defined below it. Enter typed in `middle`, between them, moves `helper`'s node (the
    same object, engine/syntax/splice.py) and not `user`: its run is not replayed (what it recorded of `helper`
    may name where it stood); an edit that keeps the line count replays it."""
    runs: list[tuple[str, bool]] = []
    original = replay.Replays.replay

    def spy(self: replay.Replays, key: replay.RunKey) -> bool:
        ok = original(self, key)
        runs.append((key[0][1].split("(")[0], ok))
        return ok

    monkeypatch.setattr(replay.Replays, "replay", spy)
    path = tmp_path / "moved.py"
    ctx = Context(workspace=tmp_path)
    entered = MOVED.replace("    x = 1\n", "    x = (\n        1)\n")  # Enter in `middle`: spliced, a line more
    typed = entered.replace('"gpt2"', '"gpt3"')
    try:
        seen = []
        for text in [MOVED, MOVED, MOVED, entered, typed]:  # a path checked once records nothing
            runs.clear()
            analyses.clear()
            buffer = source.check_source(text, str(path), None, ctx, incremental=True)
            assert buffer == source.check_source(text, str(path), None, ctx, use_gate=False)
            assert facts(analyses[0]) == facts(analyses[1])
            seen.append(list(runs))
            assert [f.code for f in buffer.findings] == ["HFC001"]
        assert ("def user", True) in seen[2]  # nothing changed: replayed
        assert ("def user", False) in seen[3]  # `helper` moved a line down: run again
        assert ("def user", True) in seen[4]  # `helper` edited in place, the line count kept: replayed
    finally:
        interp.forget(str(path))
