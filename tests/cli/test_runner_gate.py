"""The CLI's parent process answers the files the prefilter or the compile gate rule out before any worker
starts (cli_support/runner.py `_clean_before_parse`): it must decide exactly as check_source would, record
what the gate read for the result cache, and leave the pool only the files that need a parse."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import write

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.cli_support import runner
from hf_cache_lint.cli_support.discovery import SourceFile
from hf_cache_lint.engine.context import Context
from hf_cache_lint.engine.findings import CheckResult
from hf_cache_lint.engine.text import decode_source
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
    if runner._clean_before_parse(data, SourceFile(path, display), ctx) is not None:
        assert check_source(decode_source(data), display, context=ctx) == CheckResult(display)


def test_a_gated_file_is_answered_here_with_the_modules_it_read(tmp_path: Path) -> None:
    write(tmp_path / "helpers.py", "from transformers import pipeline\nMAX_LEN = 512\n"
                                   "pipe = pipeline('text-generation', model='gpt2')\n")
    main = write(tmp_path / "main.py", "from helpers import MAX_LEN\nout = model.generate(ids, max_length=MAX_LEN)\n")
    noted = runner._clean_before_parse(main.read_bytes(), SourceFile(main, "main.py"), Context(workspace=tmp_path))
    assert noted is not None and str(tmp_path / "helpers.py") in noted  # a change there is a cache miss


def test_only_files_that_need_a_parse_reach_the_engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sources = [SourceFile(write(tmp_path / "plain.py", "x = 1\n"), "plain.py"),
               SourceFile(write(tmp_path / "gated.py", "out = model.generate_text(prompt, past_key_values=c)\n"),
                          "gated.py"),
               SourceFile(write(tmp_path / "real.py", "out = model.generate(x, past_key_values=((k, v),))\n"),
                          "real.py")]
    seen: list[str] = []
    real_run_job = runner._run_job

    def run_job(source: SourceFile, data: bytes | None, settings: Settings,
                context: Context) -> tuple[CheckResult, tuple[str, ...]]:
        seen.append(source.display)
        return real_run_job(source, data, settings, context)

    monkeypatch.setattr(runner, "_run_job", run_job)
    results = runner.check_files(sources, Settings(), Context(workspace=tmp_path), jobs=1)
    assert seen == ["real.py"]
    assert [bool(r.findings) for r in results] == [False, False, True]
