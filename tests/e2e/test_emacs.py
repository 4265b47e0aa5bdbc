"""Emacs 28 + eglot 1.9 against `hf-cache-lint serve` from a fresh install, configured with the README's eglot
snippet: diagnostic, hover, quick fix."""

from __future__ import annotations

from pathlib import Path

from harness import SCENARIOS, require_executable, run_scenario, server_env
from samples import (
    CONFLICT_FIXED,
    HOVER_PARTS,
    MESSAGE_PARTS,
    PREFERRED_FIX,
    RANGE,
    TARGET_VERSION,
    write_workspace,
)
from snippets import EGLOT, PYPROJECT, write_snippet

ELPA = Path("/usr/share/emacs/site-lisp/elpa")


def test_emacs_eglot_shows_diagnostic_hover_and_applies_quick_fix(tmp_path: Path, artifacts: Path, user_bin: Path) -> None:
    emacs = require_executable("emacs")
    if not list(ELPA.glob("eglot-*")):
        require_executable("eglot (elpa-eglot)")
    files = write_workspace(tmp_path / "ws")
    (tmp_path / "ws" / "pyproject.toml").write_text(PYPROJECT.format(version=TARGET_VERSION))
    snippet = write_snippet(EGLOT, tmp_path / "config" / "hf-cache-lint.el")
    result = artifacts / "result.json"
    # `hf-cache-lint` is found on PATH, as the snippet says: the fresh venv's bin first (server_env).
    env = server_env(user_bin) | {
        "HFC_SNIPPET": str(snippet),
        "HFC_FILE": str(files["conflict"]),
        "HFC_ROOT": str(files["conflict"].parent),
        "HFC_FIX_TITLE": PREFERRED_FIX,
        "HFC_RESULT": str(result),
        "HFC_TIMEOUT_S": "60",
        "HOME": str(tmp_path / "home"),  # no user init, no ~/.emacs.d writes
    }
    argv = [emacs, "--batch", "-Q", "-l", str(SCENARIOS / "emacs.el")]
    got = run_scenario(argv, result, env, timeout=240, log=artifacts / "emacs.log")

    assert "error" not in got, got
    assert got["mode"] == "python-mode" and got["server"] is True and got["command"] == ["hf-cache-lint", "serve"]
    (diagnostic,) = got["diagnostics"]
    assert diagnostic["type"] == "eglot-error"
    assert all(part in diagnostic["message"] for part in MESSAGE_PARTS), diagnostic["message"]
    start, end = RANGE["start"], RANGE["end"]
    assert (
        diagnostic["start_line"],
        diagnostic["start_col"],
        diagnostic["end_line"],
        diagnostic["end_col"],
    ) == (start["line"], start["character"], end["line"], end["character"])
    assert all(part in got["hover"] for part in HOVER_PARTS), got["hover"]
    assert PREFERRED_FIX in got["action_titles"]
    assert (
        "hf-cache-lint: Fix all auto-fixable problems" not in got["action_titles"]
    )  # kind filter: quickfix only
    assert got["text_after_fix"] == CONFLICT_FIXED
    assert got["cleared"] is True, "the diagnostic stayed after the fix"
