"""The built .vsix's bundled server answers the handshake when started exactly as the extension starts it:
the runner Python of an environment with nothing installed, PYTHONPATH = the .vsix's bundled/tool and
bundled/libs (install_support.extension_launch mirrors client/src/server.ts)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest
from install_support import (
    EXTENSION_SERVER_ARGS,
    FIGURES,
    REPO,
    extension_launch,
    make_venv,
    missing,
    user_env,
)
from stdio_lsp import handshake


@pytest.fixture(scope="session")
def vsix() -> Path:
    """HFC_VSIX, else the .vsix the test command built in the repo root (scripts/build-vsix.sh)."""
    version = json.loads((REPO / "package.json").read_text())["version"]
    path = Path(os.environ.get("HFC_VSIX", REPO / f"hf-cache-lint-{version}.vsix"))
    if not path.is_file():
        missing(f"no .vsix at {path}", "scripts/build-vsix.sh")
    return path


def test_launch_mirrors_the_extension() -> None:
    """install_support.extension_launch must start the server the way client/src/server.ts does."""
    source = (REPO / "client" / "src" / "server.ts").read_text(encoding="utf-8")
    match = re.search(r"const run = \{ command: interpreters\.runner, args: \[([^\]]*)\]", source)
    assert match, "client/src/server.ts changed how it starts the server: update tests/install/install_support.py"
    args = [a.strip().strip("'\"") for a in match.group(1).split(",") if a.strip()]
    assert args == EXTENSION_SERVER_ARGS, "update extension_launch in tests/install/install_support.py"
    for needed in ("'bundled', 'tool'", "'bundled', 'libs'", "PYTHONUTF8: '1'", "PYTHONUNBUFFERED: '1'"):
        assert needed in source, f"client/src/server.ts no longer has {needed}: update extension_launch"


def test_vsix_server_handshake(vsix: Path, tmp_path: Path) -> None:
    extension = tmp_path / "installed-extension"
    with zipfile.ZipFile(vsix) as z:
        z.extractall(extension)
    extension /= "extension"  # a .vsix keeps the extension's files under extension/
    # The user's environment has nothing installed: a bare venv (no pip even), whose Python runs the server.
    bare = make_venv(tmp_path / "bare", with_pip=False)
    probe = subprocess.run([str(bare.python), "-c", "import hf_cache_lint"], env=user_env(),
                           capture_output=True, check=False)
    assert probe.returncode != 0, "the bare environment must not have hf_cache_lint of its own"
    workspace = tmp_path / "ws"
    workspace.mkdir()
    shutil.copy(REPO / "examples" / "same_call.py", workspace / "same_call.py")
    argv, env, cwd = extension_launch(extension, str(bare.python), workspace)
    result = handshake(argv, env, cwd, workspace / "same_call.py")
    FIGURES["serve handshake, .vsix bundled server (start to HFC001)"] = f"{result['seconds']:.2f}s"
    FIGURES[".vsix"] = f"{vsix.name} {vsix.stat().st_size / 1024:.0f} KiB"
    assert result["init"]["serverInfo"]["name"] == "hf-cache-lint"
    assert "HFC001" in {d["code"] for d in result["diagnostics"]}
    assert result["exit_code"] == 0, result["stderr"]
