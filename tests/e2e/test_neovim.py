"""Neovim 0.7 (vim.lsp.start_client) against `hf-cache-lint serve` from a fresh install: diagnostic, hover, quick fix."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from harness import SCENARIOS, require_executable, run_scenario, server_command, server_env
from samples import (
    CONFLICT_FIXED,
    HOVER_PARTS,
    INIT_OPTIONS,
    MESSAGE_PARTS,
    PREFERRED_FIX,
    RANGE,
    write_workspace,
)


def test_neovim_shows_diagnostic_hover_and_applies_quick_fix(tmp_path: Path, artifacts: Path, user_bin: Path) -> None:
    nvim = require_executable("nvim")
    version = subprocess.run(
        [nvim, "--version"], capture_output=True, text=True, check=True
    ).stdout.splitlines()[0]
    files = write_workspace(tmp_path / "ws")
    result = artifacts / "result.json"
    env = server_env(user_bin) | {
        "HFC_SERVER_CMD": json.dumps(server_command(user_bin)),
        "HFC_FILE": str(files["conflict"]),
        "HFC_ROOT": str(files["conflict"].parent),
        "HFC_FIX_TITLE": PREFERRED_FIX,
        "HFC_INIT_OPTIONS": json.dumps(INIT_OPTIONS),
        "HFC_RESULT": str(result),
        "HFC_TIMEOUT_MS": "60000",
        "XDG_STATE_HOME": str(tmp_path / "state"),  # lsp.log lands here, not in the user's home
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
    }
    argv = [nvim, "--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", f"luafile {SCENARIOS / 'neovim.lua'}"]
    got = run_scenario(argv, result, env, timeout=240, log=artifacts / "nvim.log")

    assert "error" not in got, (version, got)
    (diagnostic,) = got["diagnostics"]
    assert diagnostic["code"] == "HFC001" and diagnostic["source"] == "hf-cache-lint"
    assert diagnostic["severity"] == 1  # vim.diagnostic.severity.ERROR
    assert all(part in diagnostic["message"] for part in MESSAGE_PARTS), diagnostic["message"]
    start, end = RANGE["start"], RANGE["end"]
    assert (diagnostic["lnum"], diagnostic["col"], diagnostic["end_lnum"], diagnostic["end_col"]) == (
        start["line"],
        start["character"],
        end["line"],
        end["character"],
    )
    assert all(part in got["hover"] for part in HOVER_PARTS), got["hover"]
    assert PREFERRED_FIX in got["action_titles"]
    assert got["text_after_fix"] == CONFLICT_FIXED
    assert files["conflict"].read_text() != got["text_after_fix"]  # edited in the buffer, not on disk
    assert got["cleared"], "the diagnostic stayed after the fix"
