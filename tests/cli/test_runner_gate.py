"""The CLI asks the one screen (checking/screening.py over engine/screen/screen.py: the prefilter, then the compile gate)
of each file before the engine (cli_support/runner.py `_gate`): it must decide exactly as check_source would, record what the gate read for the result cache, leave
the engine only the files that need a parse, and not have the engine ask the gate again."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from types import MappingProxyType

import pytest
from cli_helpers import write

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.cli_support import runner
from hf_cache_lint.cli_support.discovery import SourceFile
from hf_cache_lint.engine.base.findings import CheckResult
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.facts import Source
from hf_cache_lint.engine.text.text import decode_source
from hf_cache_lint.settings import Settings

REPO = Path(__file__).resolve().parents[2]


def _corpus() -> list[Path]:
    return [p for d in (REPO / "tests" / "data" / "corpus", REPO / "examples") if d.is_dir()
            for p in sorted(d.rglob("*.py"))]


@pytest.mark.parametrize("path", _corpus(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_what_the_parent_rules_out_check_source_finds_clean(path: Path) -> None:
    data = path.read_bytes()
    display = path.name
    ctx = Context(workspace=path.parent)
    gated = runner._gate(data, SourceFile(path, display), Settings(), ctx)
    assert gated is not None  # every corpus file is a .py file that decodes: the gate is asked to the end
    if gated.clean:
        assert check_source(decode_source(data), display, context=ctx) == CheckResult(display)
    else:  # what the engine then checks without a second gate is what check_source finds
        text = decode_source(data)
        assert check_source(text, display, context=ctx, use_gate=False) == check_source(text, display, context=ctx)


def test_a_gated_file_is_answered_here_with_the_modules_it_read(tmp_path: Path) -> None:
    write(tmp_path / "helpers.py", "from transformers import pipeline\nMAX_LEN = 512\n"
                                   "pipe = pipeline('text-generation', model='gpt2')\n")
    main = write(tmp_path / "main.py", "from helpers import MAX_LEN\nout = model.generate(ids, max_length=MAX_LEN)\n")
    gated = runner._gate(main.read_bytes(), SourceFile(main, "main.py"), Settings(), Context(workspace=tmp_path))
    assert gated is not None and gated.clean
    assert str(tmp_path / "helpers.py") in gated.noted  # a change there is a cache miss


def test_a_file_the_gate_passes_is_gated_once_and_keeps_what_the_gate_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # helpers.py lends a loaded model: only that sends main.py on (the gate reads helpers.py to know); the engine
    # must not ask the gate again, and the cache entry must still depend on every file the gate read.
    write(tmp_path / "helpers.py", "from transformers import AutoModelForCausalLM\n"
                                   "model = AutoModelForCausalLM.from_pretrained('gpt2')\n")
    main = write(tmp_path / "main.py", "from helpers import model\nout = model.generate(ids)\n")
    from hf_cache_lint.engine.screen import gate

    asked: list[str] = []
    real = gate.cannot_hold_finding

    def counting(text: str, path: str, context: Context, keyword_matters: Callable[[str], bool],
                 removed_api: bool = False, kind_names: frozenset[str] = frozenset(),
                 sourced: Mapping[Source, frozenset[str]] = MappingProxyType({})) -> bool:
        asked.append(path)
        return real(text, path, context, keyword_matters, removed_api, kind_names, sourced)

    monkeypatch.setattr(gate, "cannot_hold_finding", counting)  # as the one screen (engine/screen/screen.py) imports it
    ctx = Context(workspace=tmp_path)
    gated = runner._gate(main.read_bytes(), SourceFile(main, "main.py"), Settings(), ctx)
    assert gated is not None and not gated.clean and str(tmp_path / "helpers.py") in gated.noted
    outcome = runner._pipeline(SourceFile(main, "main.py"), Settings(), ctx, None, False)
    assert asked == ["main.py", "main.py"]  # once by _gate above, once in the pipeline: never by the engine
    assert set(gated.noted) <= set(outcome.noted)
    monkeypatch.undo()
    assert outcome.result == check_source(main.read_text(), "main.py", context=ctx)


def test_only_files_that_need_a_parse_reach_the_engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sources = [SourceFile(write(tmp_path / "plain.py", "x = 1\n"), "plain.py"),
               # A word no rule reads, passed to a method that is no generate. (A cache keyword to any call is no
               # longer gated out: the call may be a model's forward, where HFC002 reads a tuple cache.)
               SourceFile(write(tmp_path / "gated.py", "out = model.generate_text(prompt, max_new_tokens=c)\n"),
                          "gated.py"),
               SourceFile(write(tmp_path / "real.py", "out = model.generate(x, past_key_values=((k, v),))\n"),
                          "real.py")]
    seen: list[str] = []
    real_run_job = runner._run_job

    def run_job(source: SourceFile, data: bytes | None, settings: Settings, context: Context,
                gated: runner.Gated | None = None) -> tuple[CheckResult, tuple[str, ...]]:
        seen.append(source.display)
        return real_run_job(source, data, settings, context, gated)

    monkeypatch.setattr(runner, "_run_job", run_job)
    results = runner.check_files(sources, Settings(), Context(workspace=tmp_path), jobs=1)
    assert seen == ["real.py"]
    assert [bool(r.findings) for r in results] == [False, False, True]


def test_a_run_finds_each_realpath_once_and_leaves_nothing_behind(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    # check_files runs inside engine/environment/confine.py's settled(): a symlink's target is looked up once for the run,
    # while outside a run (the language server) every call asks the file system again.
    from hf_cache_lint.engine.environment import confine

    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "a")
    with confine.settled():
        assert confine.real(link) == str(tmp_path / "a")
        link.unlink()
        link.symlink_to(tmp_path / "b")
        assert confine.real(link) == str(tmp_path / "a")  # settled for the run
    assert confine.real(link) == str(tmp_path / "b")  # outside it: asked again

    seen: list[bool] = []
    real_pipeline = runner._pipeline

    def pipeline(*args: object) -> runner.Outcome:
        seen.append(confine._SETTLED is not None)
        return real_pipeline(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(runner, "_pipeline", pipeline)
    runner.check_files([SourceFile(write(tmp_path / "m.py", "model.generate(x)\n"), "m.py")], Settings(),
                       Context(workspace=tmp_path), jobs=1)
    assert seen == [True] and confine._SETTLED is None
