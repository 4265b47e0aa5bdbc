"""Fixtures of the in-process CLI tests: a project folder that is the cwd, and a capturing `run`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from cli_helpers import Run, pyproject_text, write

from hf_cache_lint.cli import main


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project folder (the cwd, so printed paths are relative) whose pyproject pins TARGET."""
    root = tmp_path / "proj"
    root.mkdir()
    write(root / "pyproject.toml", pyproject_text(""))
    monkeypatch.chdir(root)
    return root


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]) -> Callable[..., Run]:
    def _run(*args: str) -> Run:
        capsys.readouterr()
        code = main(list(args))
        captured = capsys.readouterr()
        return Run(code, captured.out, captured.err)

    return _run
