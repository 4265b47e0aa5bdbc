"""Issue 31 item 2: a keystroke re-parses the statement it changed (engine/syntax/splice.py) and re-runs only the
functions whose code or inputs changed (engine/interpreter/replay.py: methods too, runs that write the module's
objects or resolve workspace imports first); after every edit of a random sequence, over the corpus, the examples
and transformers' own generation/utils.py (an oracle environment's copy), the buffer's analysis (every fact kind)
and findings are exactly a fresh check's."""

from __future__ import annotations

import os
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hf_cache_lint.checking import source
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.interpreter import (
    functions,
    interp,
    replay,
    replay_calls,
    replay_records,
    replay_store,
)
from hf_cache_lint.engine.output.analysis import Analysis

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "data"))
# The module tests/lsp/test_lsp_line_shift.py edits through the server, edited here in process.
from shifted_module import TEXT as SHIFTED  # noqa: E402

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
    replay_store.forget_all()
    yield got
    replay_store.forget_all()


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
    through: list[tuple[str, bool]] = []
    run_original, call_original = replay.Replays.replay, replay_calls.replay_call
    through_original = replay.Replays.through

    def run_spy(self: replay.Replays, key: replay_records.RunKey) -> bool:
        ok = run_original(self, key)
        runs.append((key[0][1].split("(")[0], ok))
        return ok

    def through_spy(self: replay.Replays, key: replay_records.RunKey, run: Any) -> bool:
        ok = through_original(self, key, run)
        through.append((key[0][1].split("(")[0], ok))
        return ok

    def call_spy(self: replay.Replays, node: Any, c: replay_records.CallRecord) -> bool:
        ok = call_original(self, node, c)
        calls.append((node.name.value, ok))
        return ok

    monkeypatch.setattr(replay.Replays, "replay", run_spy)
    monkeypatch.setattr(replay_calls, "replay_call", call_spy)
    monkeypatch.setattr(replay.Replays, "through", through_spy)
    path = tmp_path / "runner.py"
    ctx = Context(workspace=tmp_path)
    edited = RUNNER.replace("made = DynamicCache()", "made = DynamicCache()  # typed")
    again = edited.replace("return made", "return  made")
    returned = again.replace("return  made", "return None")
    try:
        for n, text in enumerate([RUNNER, RUNNER, edited, again, again, returned]):
            runs.clear()
            calls.clear()
            through.clear()
            analyses.clear()
            buffer = source.check_source(text, str(path), None, ctx, incremental=True)
            assert buffer == source.check_source(text, str(path), None, ctx, use_gate=False)
            assert facts(analyses[0]) == facts(analyses[1])
            assert [f.code for f in buffer.findings] == (["HFC001"] if n < 5 else ["HFC006"])
            if n in (2, 3, 5):  # `cache` edited: `run` and `other` call it, `config` is not (replayed)
                assert ("def config", True) in runs
                assert ("def run", False) in runs and ("def other", False) in runs
                assert ("cache", True) not in calls
            if n == 2:  # they run again (their calls at the last check were replayed: none was kept where it started)
                assert ("config", True) in calls  # run's call of config, given and reading the same
                assert ("def run", False) in through and ("def other", False) in through
            if n == 3:  # their call of `cache`, run again where it started at the last check, did the same
                assert ("def run", True) in through and ("def other", True) in through
                assert ("config", True) not in calls  # `run` did not run
            if n == 4:  # nothing changed: replayed, with what the trials found kept
                assert ("def run", True) in runs and ("def other", True) in runs
            if n == 5:  # `cache` now returns None: its calls did otherwise, the callers run again
                assert ("def run", False) in through and ("def other", False) in through
                assert ("config", True) in calls  # the calls kept with `run`'s replays at the last two checks
    finally:
        interp.forget(str(path))


INSTANCE = '''from transformers import AutoModelForCausalLM, DynamicCache


class Runner:
    def __init__(self, name):
        self.model = AutoModelForCausalLM.from_pretrained(name)
        self.cache = DynamicCache()
        self.model.generation_config.cache_implementation = "static"

    def first(self, ids):
        return self.model.generate(ids, past_key_values=self.cache)

    def second(self, ids):
        out = self.model.generate(ids, past_key_values=self.cache)
        return out


def unrelated():
    return 1
'''


def test_the_init_that_sets_up_an_uncalled_methods_instance_is_replayed_unless_what_it_read_changed(
        tmp_path: Path, analyses: list[Analysis], monkeypatch: pytest.MonkeyPatch) -> None:
    """The shared instance the class's uncalled methods run on is set up by its `__init__` (functions.py
    `setup_instance`): that run is replayed as an uncalled function's is, under a key of its own (`__init__` runs
    again as the class's first uncalled method, on that instance); edited, it runs and its new effects reach the
    methods' findings, each a fresh check's."""
    ran: list[str] = []
    original = functions.UserFunctions.run_function

    def spy(self: functions.UserFunctions, node: Any, *args: Any, **kwargs: Any) -> Any:
        ran.append(node.name.value)
        return original(self, node, *args, **kwargs)

    monkeypatch.setattr(functions.UserFunctions, "run_function", spy)
    path = tmp_path / "runner_init.py"
    ctx = Context(workspace=tmp_path)
    other = INSTANCE.replace("return 1", "return 2")
    none = INSTANCE.replace("self.cache = DynamicCache()", "self.cache = None")
    # (A buffer's first check records no run: its second runs everything again.)
    texts = [INSTANCE, other, other.replace("return 2", "return 3"), none, none.replace("return 1", "return 4"),
             INSTANCE, INSTANCE.replace("\n\nclass", "\n\n\nclass"), INSTANCE]
    try:
        for n, text in enumerate(texts):
            ran.clear()
            analyses.clear()
            buffer = source.check_source(text, str(path), None, ctx, incremental=True)
            buffer_ran = list(ran)
            assert buffer == source.check_source(text, str(path), None, ctx, use_gate=False)
            assert facts(analyses[0]) == facts(analyses[1])
            assert [f.code for f in buffer.findings] == (["HFC006"] * 2 if "= None" in text else ["HFC001"] * 2)
            if n in (2, 4, 6, 7):  # an edit in `unrelated`, a line added above and removed: neither `__init__`'s
                assert "__init__" not in buffer_ran  # set-up nor its own run runs again
            if n in (0, 1, 3, 5):  # a first check and the next, `__init__` edited, edited back: its set-up runs
                assert "__init__" in buffer_ran
    finally:
        interp.forget(str(path))


CALLER = '''from transformers import AutoModelForCausalLM, DynamicCache


def config():
    return {"cache_implementation": "static"}


def back(n):
    return run(n - 1)


def run(n):
    note = "a"
    kw = config()
    back(n)
    model = AutoModelForCausalLM.from_pretrained("gpt2")
    return model.generate(**kw, past_key_values=DynamicCache())
'''


def test_the_calls_inside_an_edited_function_are_replayed_unless_they_reach_it(
        tmp_path: Path, analyses: list[Analysis], monkeypatch: pytest.MonkeyPatch) -> None:
    """A call inside a run is recorded with the functions inlined around it by where they stand
    (replay_calls.py `frame`): an edit of `run`'s `def` line makes `run` a new node at the same place, and its
    call of `config`, which reads nothing of `run`, is replayed; `back` calls `run` again (recursion: it reads the
    name `run`, now another node), so it runs again. Every check gives a fresh check's findings and facts."""
    calls: list[tuple[str, bool]] = []
    original = replay_calls.replay_call

    def spy(self: replay.Replays, node: Any, c: replay_records.CallRecord) -> bool:
        ok = original(self, node, c)
        calls.append((node.name.value, ok))
        return ok

    monkeypatch.setattr(replay_calls, "replay_call", spy)
    path = tmp_path / "caller.py"
    ctx = Context(workspace=tmp_path)
    typed = CALLER.replace("def run(n):", "def run(n, extra=None):")  # the `def` re-parsed: a new node
    entered = typed.replace('    note = "a"\n', '    note = (\n        "a")\n')  # then a line more above the calls
    try:
        seen = []
        for text in [CALLER, CALLER, typed, entered]:
            calls.clear()
            analyses.clear()
            buffer = source.check_source(text, str(path), None, ctx, incremental=True)
            assert buffer == source.check_source(text, str(path), None, ctx, use_gate=False)
            assert facts(analyses[0]) == facts(analyses[1])
            assert [f.code for f in buffer.findings] == ["HFC001"]
            seen.append(list(calls))
        for edited in seen[2:]:  # `run`'s `def` edited, then a line added inside it
            assert ("config", True) in edited
            assert ("back", True) not in edited
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


def test_a_run_that_read_a_function_a_line_moved_is_replayed_moved(
        tmp_path: Path, analyses: list[Analysis], monkeypatch: pytest.MonkeyPatch) -> None:
    """`user` reads `helper`, defined below it. Enter typed in `middle`, between them, moves `helper`'s node (the
    same object, engine/syntax/splice.py) and not `user`: the parser's line map says where `helper` now stands,
    so `user`'s run is replayed with what it recorded moved (engine/interpreter/shift.py), and the findings are
    a fresh check's. After two line-count changes with no check between them (a parse alone), no single map
    says where lines went: `user` runs again."""
    runs: list[tuple[str, bool]] = []
    original = replay.Replays.replay

    def spy(self: replay.Replays, key: replay_records.RunKey) -> bool:
        ok = original(self, key)
        runs.append((key[0][1].split("(")[0], ok))
        return ok

    monkeypatch.setattr(replay.Replays, "replay", spy)
    path = tmp_path / "moved.py"
    ctx = Context(workspace=tmp_path)
    entered = MOVED.replace("    x = 1\n", "    x = (\n        1)\n")  # Enter in `middle`: spliced, a line more
    typed = entered.replace('"gpt2"', '"gpt3"')
    twice = typed.replace("    x = (\n", "    x = (\n\n\n")
    try:
        seen = []
        for text in [MOVED, MOVED, MOVED, entered, typed, None, twice]:  # a path checked once records nothing
            if text is None:  # two lines more, parsed with no check: the next check sees two line-count changes
                interp.parse(typed.replace("    x = (\n", "    x = (\n\n"), str(path))
                continue
            runs.clear()
            analyses.clear()
            buffer = source.check_source(text, str(path), None, ctx, incremental=True)
            assert buffer == source.check_source(text, str(path), None, ctx, use_gate=False)
            assert facts(analyses[0]) == facts(analyses[1])
            seen.append(list(runs))
            assert [f.code for f in buffer.findings] == ["HFC001"]
        assert ("def user", True) in seen[2]  # nothing changed: replayed
        assert ("def user", True) in seen[3]  # `helper` moved a line down: replayed, moved by the line map
        assert ("def user", True) in seen[4]  # `helper` edited in place, the line count kept: replayed
        assert ("def user", False) in seen[5]  # two line-count changes since the last check: run again
    finally:
        interp.forget(str(path))




def _places(result: object) -> list[tuple[int, ...]]:
    """Every line a result's findings name: the finding's, its fixes' edits', its related places'."""
    out = []
    for f in result.findings:  # type: ignore[attr-defined]
        out.append((f.span.start.line, f.span.end.line, *(e.span.start.line for fx in f.fixes for e in fx.edits),
                    *(r.span.start.line for r in f.related if r.path is None)))
    return out


def test_lines_added_or_removed_above_functions_move_their_replayed_findings_and_fixes(
        tmp_path: Path, analyses: list[Analysis], monkeypatch: pytest.MonkeyPatch) -> None:
    """Enter, a join, a pasted block and a deleted one in `first`: `second` and `Answers.third`, below, are
    replayed, not run again, and their findings (with their fixes' edits, related places and hover stories) are a
    fresh check's: every line they name moved by the lines added or removed."""
    runs: list[tuple[str, bool, bool]] = []
    original = replay.Replays.replay

    def spy(self: replay.Replays, key: replay_records.RunKey) -> bool:
        ok = original(self, key)
        runs.append((key[0][1].split("(")[0], ok, self.shift is not None))
        return ok

    monkeypatch.setattr(replay.Replays, "replay", spy)
    path = tmp_path / "shifted.py"
    ctx = Context(workspace=tmp_path)
    line = '    inputs = tokenizer(prompt, return_tensors="pt")\n    return inputs\n'
    entered = SHIFTED.replace(line, '    inputs = tokenizer(prompt,\n                       return_tensors="pt")\n'
                              '    return inputs\n', 1)
    pasted = entered.replace("    return inputs\n", "    a = 1\n    b = 2\n    c = 3\n    return inputs\n", 1)
    steps = [(SHIFTED, 0), (SHIFTED, 0), (entered, 1), (SHIFTED, -1), (pasted, 4), (entered, -3), (SHIFTED, -1)]
    try:
        before: list[tuple[int, ...]] | None = None
        for n, (text, delta) in enumerate(steps):
            runs.clear()
            analyses.clear()
            buffer = source.check_source(text, str(path), None, ctx, incremental=True)
            assert buffer == source.check_source(text, str(path), None, ctx, use_gate=False), f"step {n}"
            assert facts(analyses[0]) == facts(analyses[1]), f"step {n}"
            assert [f.code for f in buffer.findings] == ["HFC001", "HFC001"]
            assert all(f.story and f.fixes for f in buffer.findings)
            places = _places(buffer)
            if before is not None:
                assert places == [tuple(x + delta for x in p) for p in before], f"step {n}"
            before = places
            if delta:  # the functions below the edit replayed, their results moved by the line map
                assert ("def second", True, True) in runs and ("def third", True, True) in runs, f"step {n}"
    finally:
        interp.forget(str(path))


def line_edit(text: str, rng: random.Random) -> str:
    """An edit that adds or removes lines: Enter inside a line, two lines joined, a block of lines pasted elsewhere
    (a copy: the same code twice) or deleted."""
    lines = text.split("\n")
    if len(lines) < 3:
        return text + "\n\n" + SCRIPT  # all deleted: a module again
    i = rng.randrange(len(lines) - 1)
    line, kind = lines[i], rng.random()
    if kind < 0.35:
        at = rng.randrange(len(line) + 1)
        indent = line[:len(line) - len(line.lstrip())] + ("    " if line.rstrip().endswith(":") else "")
        lines[i:i + 1] = [line[:at], indent + line[at:].lstrip()]
    elif kind < 0.6:
        lines[i:i + 2] = [line + lines[i + 1].lstrip()]
    elif kind < 0.8:
        block = lines[i:i + rng.randrange(1, 6)]
        at = rng.randrange(len(lines))
        lines[at:at] = block
    else:
        del lines[i:i + rng.randrange(1, 4)]
    return "\n".join(lines)


SCRIPT = '''from transformers import AutoModelForCausalLM, AutoTokenizer, DynamicCache

tokenizer = AutoTokenizer.from_pretrained("gpt2")
model = AutoModelForCausalLM.from_pretrained("gpt2")
''' + "".join(f'''

def answer_{i}(prompt: str) -> str:
    inputs = tokenizer(prompt, return_tensors="pt")
    cache = DynamicCache()
    out = model.generate(**inputs, past_key_values=cache, cache_implementation={'"static"' if i % 3 == 0 else None})
    return tokenizer.decode(out[0])
''' for i in range(12))


@pytest.fixture
def shifted(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Each replay tried under a line map (a check after lines were added or removed): whether it was made."""
    outcomes: list[bool] = []
    original = replay.Replays.replay

    def spy(self: replay.Replays, key: replay_records.RunKey) -> bool:
        ok = original(self, key)
        if self.shift is not None:
            outcomes.append(ok)
        return ok

    monkeypatch.setattr(replay.Replays, "replay", spy)
    return outcomes


def line_sequence(text: str, rng: random.Random, edits: int) -> Iterator[str]:
    """Line-adding and line-removing edits, with a keystroke now and then (a check after one keeps the line count)."""
    yield text
    yield text  # the second check records the runs the first edit may replay
    for _ in range(edits):
        text = line_edit(text, rng) if rng.random() < 0.8 else edit(text, rng)
        yield text


@pytest.mark.parametrize("seed", range(4))
def test_random_line_shifts_across_functions_give_a_fresh_checks_findings(
        seed: int, tmp_path: Path, analyses: list[Analysis], shifted: list[bool]) -> None:
    """Enter, joins, pasted and deleted blocks anywhere in a module of twelve generate functions: after each, the
    buffer's findings and facts are a fresh check's, and most functions below the edit were replayed with their
    results moved."""
    rng = random.Random(seed)
    path = tmp_path / "answers.py"
    ctx = Context(workspace=tmp_path)
    assert assert_keystrokes_match_fresh_checks(path, ctx, line_sequence(SCRIPT, rng, 40), analyses) == 42
    assert shifted.count(True) > 2 * shifted.count(False)


@pytest.mark.skipif(generation_utils() is None, reason="no oracle environment with transformers' source")
def test_random_line_shifts_on_transformers_generation_utils_give_a_fresh_checks_findings(
        analyses: list[Analysis], shifted: list[bool]) -> None:
    path = generation_utils()
    assert path is not None
    rng = random.Random(131)
    ctx = Context(workspace=path.parent.parent)
    assert_keystrokes_match_fresh_checks(path, ctx, line_sequence(path.read_text(), rng, 8), analyses)
    assert shifted.count(True) > 5 * shifted.count(False)


def test_a_forgotten_buffer_forgets_its_runs(tmp_path: Path, analyses: list[Analysis]) -> None:
    """Closing a buffer (interp.forget) drops its kept tree, whose count of line-count changes then starts again, and
    the runs its last check recorded with it: a count one higher no longer says that one line map lies between."""
    path = tmp_path / "answers.py"
    ctx = Context(workspace=tmp_path)
    for _ in range(2):
        source.check_source(SCRIPT, str(path), None, ctx, incremental=True)
    assert replay_store.document(str(path)) is not None and replay_store.document(str(path)).runs  # type: ignore[union-attr]
    interp.forget(str(path))
    assert replay_store.document(str(path)) is None
