"""Vim 9 + ALE against `hf-cache-lint serve` from a fresh install, with the README's ALE linter snippet:
diagnostic, hover, quick fix."""

from __future__ import annotations

from pathlib import Path

from harness import SCENARIOS, missing, require_executable, run_scenario, server_env
from samples import (
    CONFLICT_FIXED,
    HOVER_PARTS,
    MESSAGE_PARTS,
    PREFERRED_FIX,
    RANGE,
    TARGET_VERSION,
    write_workspace,
)
from snippets import ALE as ALE_SNIPPET
from snippets import PYPROJECT, write_snippet

ALE = Path("/usr/share/vim-ale/plugin/ale.vim")


def test_vim_ale_shows_diagnostic_hover_and_applies_quick_fix(tmp_path: Path, artifacts: Path, user_bin: Path) -> None:
    vim = require_executable("vim")
    if not ALE.exists():
        missing("ALE (vim-ale)")
    files = write_workspace(tmp_path / "ws")
    # The project marker ALE needs to start a language server (README), and the target version.
    (tmp_path / "ws" / "pyproject.toml").write_text(PYPROJECT.format(version=TARGET_VERSION))
    vimfiles = tmp_path / "vimfiles"  # as ~/.vim: the snippet goes where the README says
    write_snippet(ALE_SNIPPET, vimfiles / "ale_linters" / "python" / "hf_cache_lint.vim")
    result = artifacts / "result.json"
    # `hf-cache-lint` is found on PATH, as the snippet says: the fresh venv's bin first (server_env).
    env = server_env(user_bin) | {
        "HFC_RTP": str(vimfiles),
        "HFC_FILE": str(files["conflict"]),
        "HFC_FIX_TITLE": PREFERRED_FIX,
        "HFC_RESULT": str(result),
        "HFC_TIMEOUT_MS": "60000",
        "HOME": str(tmp_path / "home"),
    }
    argv = [vim, "-N", "-u", "NONE", "-i", "NONE", "-n", "-es", "-S", str(SCENARIOS / "vim.vim")]
    got = run_scenario(argv, result, env, timeout=240, log=artifacts / "vim.log")

    assert "error" not in got, got
    (diagnostic,) = got["diagnostics"]
    assert diagnostic["code"] == "HFC001" and diagnostic["type"] == "E"
    assert all(part in diagnostic["text"] for part in MESSAGE_PARTS), diagnostic["text"]
    # ALE: 1-based lines and columns, end column inclusive.
    start, end = RANGE["start"], RANGE["end"]
    assert (diagnostic["lnum"], diagnostic["col"], diagnostic["end_lnum"], diagnostic["end_col"]) == (
        start["line"] + 1,
        start["character"] + 1,
        end["line"] + 1,
        end["character"],
    )
    assert all(part in got["hover"] for part in HOVER_PARTS), got["hover"]
    assert PREFERRED_FIX in got["action_prompt"]
    assert got["text_after_fix"] == CONFLICT_FIXED
    assert got["cleared"] is True, "the diagnostic stayed after the fix"
