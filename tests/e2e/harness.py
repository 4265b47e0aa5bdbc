"""Helpers for the real-editor tests: tools (missing -> fail under CI, skip elsewhere), the server, runs."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "install"))  # install_support: a fresh install, a user's environment
from install_support import user_env  # noqa: E402

TOOLS = Path(os.environ.get("HFC_TOOLS", REPO / ".cache" / "tools"))
ARTIFACTS = REPO / "tests" / "e2e" / "artifacts"
SCENARIOS = Path(__file__).resolve().parent / "scenarios"


def missing(what: str) -> NoReturn:
    """A tool is not installed: a failure under CI (setup must install it), a skip on a developer machine."""
    message = f"{what} is not installed: run scripts/setup-editors.sh"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def require_executable(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        missing(name)
    return found


def server_env(bin_dir: Path) -> dict[str, str]:
    """A user's shell after activating the venv of a fresh install (conftest.py `user_bin`): its bin first on
    PATH, so the README snippets' `hf-cache-lint serve` is what a user has, not the repository's sources; none
    of the test run's Python paths."""
    return user_env(bin_dir=bin_dir)


def run_scenario(argv: Sequence[str], result: Path, env: dict[str, str], timeout: float, log: Path) -> Any:
    """Runs an editor in batch mode; returns the JSON it wrote to `result` (the editor's own exit code is
    not trusted: batch editors exit 0 after script errors, so a missing result file is the failure signal)."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("w", encoding="utf-8") as out:
        proc = subprocess.run(
            list(argv),
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            timeout=timeout,
            check=False,
        )
    assert result.exists(), (
        f"{argv[0]} wrote no result (exit {proc.returncode}); log:\n"
        + log.read_text(encoding="utf-8", errors="replace")[-4000:]
    )
    return json.loads(result.read_text(encoding="utf-8"))
