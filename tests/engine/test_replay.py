"""Replays of uncalled functions' runs (engine/interpreter/replay.py): a check of a buffer that replays what the
last check recorded gives exactly the analysis of a check without replays, and replays only what read the
same as last time (docs/architecture.md, "The interpreter": Speed)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.interpreter import interp, replay, replay_store
from hf_cache_lint.engine.output.analysis import Analysis
from hf_cache_lint.engine.syntax.nodes import end_pos

HEAD = '''from transformers import AutoModelForCausalLM, AutoTokenizer, DynamicCache

MODE = "static"
tokenizer = AutoTokenizer.from_pretrained("gpt2")
model = AutoModelForCausalLM.from_pretrained("gpt2")
'''
ANSWER = '''

def answer_{i}(prompt: str) -> str:
    inputs = tokenizer(prompt, return_tensors="pt")
    cache = DynamicCache()
    out = model.generate(**inputs, past_key_values=cache, cache_implementation={ci})
    return tokenizer.decode(out[0])
'''


def script(n: int = 6, ci: str = '"static"') -> str:
    return HEAD + "".join(ANSWER.format(i=i, ci=ci if i == 2 else "None") for i in range(n))


@pytest.fixture
def replays(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[bool]]:
    """Each replay attempt's outcome, in order (the recorded runs are forgotten before and after)."""
    replay_store.forget_all()
    outcomes: list[bool] = []
    original = replay.Replays.replay

    def spy(self: replay.Replays, key: tuple[tuple[int, int], str]) -> bool:
        ok = original(self, key)
        outcomes.append(ok)
        return ok

    monkeypatch.setattr(replay.Replays, "replay", spy)
    yield outcomes
    replay_store.forget_all()


def facts(a: Analysis) -> tuple[object, ...]:
    return a.calls, a.ci_values, a.removed_api, a.version_guarded, a.stopped, a.skipped


def fresh(text: str, path: str, ctx: Context) -> Analysis:
    """The analysis without replays (a tree of its own, not the buffer's: nothing is replayed for it)."""
    return interp.analyse(text, path, ctx, tree=interp.parse(text))


def buffer(text: str, path: str, ctx: Context) -> Analysis:
    return interp.analyse(text, path, ctx, incremental=True)


def test_a_keystroke_replays_the_unchanged_functions_and_gives_the_same_analysis(
        tmp_path: Path, replays: list[bool]) -> None:
    ctx, path = Context(workspace=tmp_path), str(tmp_path / "buffer.py")
    text = script()
    buffer(text, path, ctx)  # the first check of a path records nothing
    buffer(text, path, ctx)  # the second records
    assert True not in replays
    replays.clear()
    edited = text.replace('cache_implementation="static"', 'cache_implementation="staticx"')
    got = buffer(edited, path, ctx)
    # answer_2 was edited: run again; the five others replayed.
    assert replays.count(True) == 5 and replays.count(False) == 1
    assert facts(got) == facts(fresh(edited, path, ctx))
    assert [c.value for c in got.ci_values] == ["staticx"]


def test_a_changed_global_is_read_again(tmp_path: Path, replays: list[bool]) -> None:
    ctx, path = Context(workspace=tmp_path), str(tmp_path / "buffer.py")
    text = script(3, "MODE")
    for _ in range(2):
        buffer(text, path, ctx)
    replays.clear()
    edited = text.replace('MODE = "static"', 'MODE = "bogus!"')
    got = buffer(edited, path, ctx)
    assert False in replays  # answer_2 reads MODE
    assert facts(got) == facts(fresh(edited, path, ctx))
    ci = [c.cache_implementation for c in got.calls if c.cache_implementation is not None]
    assert [c.value for c in ci] == ["bogus!"]


def test_an_edited_helper_is_run_again_by_its_caller(tmp_path: Path, replays: list[bool]) -> None:
    ctx, path = Context(workspace=tmp_path), str(tmp_path / "buffer.py")
    text = HEAD + '''

def helper():
    return "static"


def run(prompt):
    return model.generate(cache_implementation=helper())
'''
    for _ in range(2):
        buffer(text, path, ctx)
    replays.clear()
    # `run` runs uncalled (its inlined helper's body changed: run again); `helper`, which `run` calls, runs there
    # and not on its own (eighth session, cacheclass29g: a function's callers run first).
    edited = text.replace('return "static"', 'return "offloaded"')
    got = buffer(edited, path, ctx)
    assert replays == [False]
    assert facts(got) == facts(fresh(edited, path, ctx))
    assert [c.cache_implementation.value for c in got.calls if c.cache_implementation] == ["offloaded"]


def test_a_function_redefined_under_the_same_name_is_not_the_one_recorded(tmp_path: Path, replays: list[bool]) -> None:
    ctx, path = Context(workspace=tmp_path), str(tmp_path / "buffer.py")
    first = HEAD + '''

def helper():
    return "static"


def run(prompt):
    return model.generate(cache_implementation=helper())
'''
    for _ in range(2):
        buffer(first, path, ctx)
    replays.clear()
    # The same `run` at the same place, but `helper` is now another function (values compare functions by
    # name only: the replay must compare the node too).
    second = first + '''

def helper():
    return "offloaded"
'''
    got = buffer(second, path, ctx)
    # `run` first (it calls the new helper: run again), then the first helper, which no function calls now and
    # which ran only inside `run` before (its callers run first: nothing recorded of it alone).
    assert replays == [False, False]
    assert facts(got) == facts(fresh(second, path, ctx))


def test_a_function_that_changes_a_global_object_is_never_replayed(tmp_path: Path, replays: list[bool]) -> None:
    ctx, path = Context(workspace=tmp_path), str(tmp_path / "buffer.py")
    text = HEAD + '''

def configure():
    model.generation_config.cache_implementation = "static"


def run(prompt):
    return model.generate(max_new_tokens=4)
'''
    for _ in range(2):
        buffer(text, path, ctx)
    replays.clear()
    edited = text.replace('cache_implementation = "static"', 'cache_implementation = "offloaded"')
    got = buffer(edited, path, ctx)
    # `configure` was not recorded (it writes the model's config); `run` read that config: run again.
    assert replays == [False, False]
    assert facts(got) == facts(fresh(edited, path, ctx))
    assert [c.cache_implementation.value for c in got.calls if c.cache_implementation] == ["offloaded"]


def test_random_edits_give_the_analysis_without_replays(tmp_path: Path, replays: list[bool]) -> None:
    rng = random.Random(14)
    ctx, path = Context(workspace=tmp_path), str(tmp_path / "buffer.py")
    text = script(8, "MODE") + '''

def helper(kw):
    kw["cache_implementation"] = MODE
    return kw


def wrapped(prompt):
    kw = helper({})
    if prompt:
        return model.generate(**kw)
    return model.generate(past_key_values=DynamicCache(), **kw)
'''
    for _ in range(60):
        at = rng.randrange(len(text))
        text = text[:at] + rng.choice(["x", "", '"', "\n", " ", "(", "MODE", "static"]) + text[at + rng.randrange(2):]
        assert facts(buffer(text, path, ctx)) == facts(fresh(text, path, ctx))
    assert True in replays


def test_a_run_between_two_replays_is_seen_by_the_second(tmp_path: Path, replays: list[bool]) -> None:
    """The replays of one check share what they found of the module's objects (the first compares them, the
    others find the answer) until something runs: here `configure`, edited to give the model another config,
    runs between `reader_a` (replayed: it ran before, as last time) and `reader_b`, which reads the model."""
    ctx, path = Context(workspace=tmp_path), str(tmp_path / "buffer.py")
    reader = '''

def reader_{x}(prompt):
    return model.generate(max_new_tokens=4)
'''
    text = "from transformers import GenerationConfig\n" + HEAD + reader.format(x="a") + '''

def configure():
    value = GenerationConfig(cache_implementation="offloaded")
''' + reader.format(x="b")
    for _ in range(2):
        buffer(text, path, ctx)
    replays.clear()
    edited = text.replace("    value = ", "    model.generation_config = ")
    got = buffer(edited, path, ctx)
    assert replays == [True, False, False]  # reader_a; configure (edited); reader_b (its config was written)
    assert facts(got) == facts(fresh(edited, path, ctx))
    assert [c.cache_implementation.value for c in got.calls if c.cache_implementation] == ["offloaded"]


def test_random_edits_between_readers_of_changed_objects_give_the_analysis_without_replays(
        tmp_path: Path, replays: list[bool]) -> None:
    """What the replays of a check found of a recorded value is kept with the module's object it was found for
    (replay.py `_same_as`): runs between the readers, edited at random, write the model's config or leave it, set up
    a class's shared instance, or change nothing; each reader then reads what stands now, as a fresh check does."""
    rng = random.Random(31)
    ctx, path = Context(workspace=tmp_path), str(tmp_path / "buffer.py")
    reader = '''

def reader_{x}(prompt):
    return model.generate(max_new_tokens=4{kw})
'''
    writer = '''

def configure_{x}():
    value = GenerationConfig(cache_implementation="offloaded")
'''
    holder = '''

class Holder_{x}:
    def __init__(self):
        self.cache = DynamicCache()
        value = GenerationConfig(cache_implementation="static")

    def run(self, prompt):
        return model.generate(past_key_values=self.cache, max_new_tokens=4)
'''
    parts = [reader.format(x=i, kw=", cache_implementation=MODE" if i % 3 == 0 else "") for i in range(6)]
    parts[1:1] = [writer.format(x=1)]
    parts[4:4] = [holder.format(x=2), writer.format(x=3)]
    text = "from transformers import GenerationConfig\n" + HEAD + "".join(parts)
    swaps = [("    value = ", "    model.generation_config = "), ('"offloaded"', '"static"'), ('"static"', '"offloaded"'),
             ("MODE = \"static\"", "MODE = \"offloaded\""), ("DynamicCache()", "None"), ("None", "DynamicCache()")]
    buffer(text, path, ctx)
    for _ in range(40):
        old, new = rng.choice(swaps)
        if rng.random() < 0.5:
            old, new = new, old
        spots = [i for i in range(len(text)) if text.startswith(old, i)]
        if spots:
            at = rng.choice(spots)
            text = text[:at] + new + text[at + len(old):]
        assert facts(buffer(text, path, ctx)) == facts(fresh(text, path, ctx))
    assert True in replays and False in replays


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_a_keys_end_is_parsos_end_pos_for_every_node(newline: str) -> None:
    """Source.key and every span find a node's end themselves (nodes.end_pos): the same as parso's end_pos, whatever the last
    leaf is (a newline, a string over several lines, an error leaf, the end of a text without a newline)."""
    text = script(3) + '''

def doc():
    """a docstring
    over lines"""


class C:
    def m(self, x=(1,
                   2)):
        return f"{x}"  # a comment
def broken(:
    s = """unterminated
'''
    text = text.replace("\n", newline)
    for t in (text, text.rstrip(), text + "x = '''tail"):
        stack = [interp.parse(t)]
        while stack:
            node = stack.pop()
            assert end_pos(node) == node.end_pos, node
            stack.extend(getattr(node, "children", ()))


def test_a_replay_of_a_run_that_added_a_fact_adds_it_again(tmp_path: Path, replays: list[bool]) -> None:
    """`local_config` leaves a pending `cache_implementation` in the module-wide facts (its run is recorded:
    the config is its own); its replay puts the facts as the run left them, so `reader`, recorded after it,
    finds them as it read them and is replayed too."""
    ctx, path = Context(workspace=tmp_path), str(tmp_path / "buffer.py")
    text = "from transformers import GenerationConfig\n" + HEAD + '''

def local_config():
    cfg = GenerationConfig()
    cfg.cache_implementation = "static"


def reader(prompt):
    return model.generate(max_new_tokens=4)


def edited(prompt):
    return model.generate(max_new_tokens=8)
'''
    for _ in range(2):
        buffer(text, path, ctx)
    doc = replay_store.document(path)
    assert doc is not None and [r.changes_facts for r in doc.runs.values()] == [True, False, False]
    replays.clear()
    changed = text.replace("max_new_tokens=8", "max_new_tokens=9")
    got = buffer(changed, path, ctx)
    assert replays == [True, True, False]
    assert facts(got) == facts(fresh(changed, path, ctx))


def test_a_replayed_call_gives_back_what_it_stored_on_the_callers_output(tmp_path: Path, replays: list[bool]) -> None:
    """`rebuild(out)` stores a tuple on the output its caller holds (functions.py `inline`, Session.written): the
    caller, run again after an edit, replays that call from its record and its name still holds the output with
    the tuple stored, so its index is no cache's (as in the analysis without replays)."""
    from hf_cache_lint.engine.facts import cache_use

    ctx, path = Context(workspace=tmp_path), str(tmp_path / "buffer.py")
    text = HEAD + '''

def rebuild(outputs):
    outputs.past_key_values = tuple((layer.keys, layer.values) for layer in outputs.past_key_values.layers)


def step(ids):
    out = model(ids, use_cache=True)
    rebuild(out)
    width = 1
    return out.past_key_values[0][0].shape[width]
'''
    for _ in range(2):
        buffer(text, path, ctx)
    changed = text.replace("width = 1", "width = 2")
    got = buffer(changed, path, ctx)
    want = fresh(changed, path, ctx)
    assert got.of(cache_use.KIND) == want.of(cache_use.KIND)
    assert not [u for u in want.of(cache_use.KIND) if u.op == "subscript"]
