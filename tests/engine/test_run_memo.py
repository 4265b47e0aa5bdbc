"""Answers kept for a run over files that stand still (engine/environment/confine.py `settled`, `run_memo`): the
gate's workspace-import questions (engine/screen/lent_values.py `asked`, workspace.py `resolve`) are answered once
per run, a kept answer notes again every path the first asking noted (a result cache keys on them, deps.py), and
outside a run (the language server) every question is asked afresh.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hf_cache_lint.checking import screening
from hf_cache_lint.checking.screening import screen
from hf_cache_lint.engine.environment import confine, deps, workspace
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.screen import gate, lent_values
from hf_cache_lint.engine.screen.lent_values import CALLABLE_MAKERS, FACT_MAKERS, OBJECT_MAKERS, Makers
from hf_cache_lint.engine.text.text import decode_source
from hf_cache_lint.settings import Settings

REPO = Path(__file__).resolve().parents[2]
ORACLE = Path(os.environ.get("ORACLE_DIR", REPO / ".cache" / "oracle"))

LOADED = 'from transformers import AutoModelForCausalLM\nmodel = AutoModelForCausalLM.from_pretrained("gpt2")\n'


def _workspace(tmp_path: Path) -> Path:
    (tmp_path / "lib.py").write_text(LOADED)
    (tmp_path / "plain.py").write_text('settings = {"lr": 1}\n')
    # A cycle: each lends what the other binds, one of them also a loaded model (their text says a word of
    # workspace.FACT_WORDS, else neither is looked into); a chain the gate itself never resolves.
    (tmp_path / "ping.py").write_text("from pong import b\nfrom transformers import DynamicCache\na = [b]\n")
    (tmp_path / "pong.py").write_text("from ping import a\nfrom lib import model\nb = [a, model]\n")
    (tmp_path / "far.py").write_text("from near import c  # a pipeline's\nd = c\n")
    (tmp_path / "near.py").write_text("from plain import settings  # from_pretrained\nc = settings\n")
    return tmp_path


def _ask(ws: Path, text: str, makers: Makers) -> tuple[bool, set[str]]:
    with deps.recording() as noted:
        answer = gate._imports_workspace_value(text, str(ws / "user.py"), Context(workspace=ws), makers)
    return answer, noted


IMPORTS = ["from lib import model\n", "from plain import settings\n", "from ping import a\n", "from pong import b\n",
           "from lib import model\nfrom plain import settings\n", "from missing import x\n",
           "from far import d\n"]


@pytest.mark.parametrize("makers", [OBJECT_MAKERS, FACT_MAKERS, CALLABLE_MAKERS], ids=["object", "fact", "callable"])
def test_a_kept_answer_is_the_fresh_one_and_notes_the_same_paths(tmp_path: Path, makers: Makers) -> None:
    ws = _workspace(tmp_path)
    fresh = [_ask(ws, t, makers) for t in IMPORTS]
    assert fresh[0][0] is (makers is not CALLABLE_MAKERS) and fresh[1][0] is False  # the cases are not all alike
    with confine.settled():
        first = [_ask(ws, t, makers) for t in IMPORTS]
        again = [_ask(ws, t, makers) for t in reversed(IMPORTS)][::-1]  # kept answers, asked in another order
    assert first == fresh and again == fresh
    assert str(ws / "near.py") in fresh[-1][1] and str(ws / "plain.py") in fresh[-1][1]  # noted beyond the gate's


def test_a_run_asks_each_question_once_and_outside_a_run_every_time(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    ws = _workspace(tmp_path)
    lookups: list[tuple[str, ...]] = []
    questions: list[str] = []
    real_lookup, real_lends = workspace._lookup, lent_values.lends

    def lookup(parts: list[str], *args: tuple[Path, ...]) -> tuple[Path | None, tuple[Path, ...]]:
        lookups.append(tuple(parts))
        return real_lookup(parts, *args)

    def lends(path: Path, name: str, *args: object) -> bool:
        questions.append(name)
        return real_lends(path, name, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(workspace, "_lookup", lookup)
    monkeypatch.setattr(lent_values, "lends", lends)
    with confine.settled():
        for _ in range(3):
            assert _ask(ws, "from lib import model\n", OBJECT_MAKERS)[0]
    assert lookups == [("lib",)] and questions == ["model"]
    assert confine.run_memo("lends") is None  # nothing is kept past the run
    lookups.clear()
    questions.clear()
    for _ in range(2):
        assert _ask(ws, "from lib import model\n", OBJECT_MAKERS)[0]
    assert lookups == [("lib",)] * 2 and questions == ["model"] * 2
    # Outside a run, an edit is seen at the next question (the language server between two keystrokes).
    (ws / "lib.py").write_text("model = None\n")
    assert not _ask(ws, "from lib import model\n", OBJECT_MAKERS)[0]


def test_the_screen_asks_the_rules_once_per_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[str, ...]] = []
    real = screening._needs.__wrapped__

    def needs(codes: tuple[str, ...]) -> screening.Needs:
        calls.append(codes)
        return real(codes)

    monkeypatch.setattr(screening, "_needs", needs)
    monkeypatch.setattr(screening, "_LAST", None)
    every, one = Settings(), Settings(select=("HFC001",))
    assert screening.needs_of(every) is screening.needs_of(every)
    assert len(calls) == 1
    only = screening.needs_of(one)
    assert len(calls) == 2 and calls[1] == ("HFC001",) and only.kinds <= screening.needs_of(every).kinds
    assert only.kinds != screening.needs_of(every).kinds  # a new settings object is asked again


@pytest.mark.skipif(not (ORACLE / "tf-5.24.0" / "transformers" / "models" / "llama").is_dir(),
                    reason="the oracle's transformers 5.24.0 tree is not installed")
def test_a_run_over_real_packages_screens_and_notes_as_file_by_file() -> None:
    # A few of transformers' model packages with their shared modules as the workspace: the same sibling imports
    # (`from ...cache_utils import`, `from .configuration_x import`) are asked by many modules.
    tree = ORACLE / "tf-5.24.0" / "transformers"
    files = [p for d in ("llama", "gpt2", "mistral", "qwen2", "gemma2", "whisper", "t5", "bart")
             for p in sorted((tree / "models" / d).glob("*.py"))] + sorted(tree.glob("*.py"))[:40]
    texts = [(str(p), decode_source(p.read_bytes())) for p in files]
    context, settings = Context(workspace=tree), Settings()

    def run() -> list[tuple[str, bool, frozenset[str]]]:
        out = []
        for path, text in texts:
            with deps.recording() as noted:
                passed = screen(text, path, settings, context)
            out.append((path, passed, frozenset(noted)))
        return out

    fresh = run()
    with confine.settled():
        kept = run()
    assert kept == fresh
    assert any(passed for _, passed, _ in fresh) and any(not passed for _, passed, _ in fresh)
    assert sum(len(noted) > 1 for _, _, noted in fresh) > 10  # modules whose imports were looked up
