"""The built .vsix's bundled server answers the handshake when started exactly as the extension starts it:
the runner Python of an environment with nothing installed, in isolated mode on the .vsix's bundled/serve.py
(client/launch.json, which client/src/server.ts and install_support.extension_launch both read)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
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
    """client/src/server.ts must start the server from client/launch.json, as extension_launch does."""
    source = (REPO / "client" / "src" / "server.ts").read_text(encoding="utf-8")
    assert "import launchSpec from '../launch.json'" in source, "server.ts no longer reads client/launch.json"
    for needed in ("launchSpec.args.map(fill)", "fill(launchSpec.cwd)", "launchSpec.bootstrap"):
        assert needed in source, f"client/src/server.ts no longer has {needed}: update extension_launch"
    assert "PYTHONPATH" not in source.split("function serverOptions", 1)[1].split("\n}\n", 1)[0]
    assert EXTENSION_SERVER_ARGS[0] == "-I" and "{bootstrap}" in EXTENSION_SERVER_ARGS


def floor_python() -> str:
    """The oldest Python the .vsix supports (requires-python >= 3.10): the bundle is resolved for it."""
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    candidates = [shutil.which("python3.10"), *sorted(str(p) for p in pyenv.glob("3.10.*/bin/python3.10"))]
    for found in filter(None, candidates):  # a pyenv shim exists even where it cannot run: try each
        if subprocess.run([found, "-c", "import venv"], capture_output=True).returncode == 0:
            return found
    pytest.skip("no Python 3.10 on this machine")


@pytest.mark.parametrize("runner", ["tests' python", "python3.10"])
def test_vsix_server_handshake(vsix: Path, tmp_path: Path, runner: str) -> None:
    base = sys.executable if runner == "tests' python" else floor_python()
    extension = tmp_path / "installed-extension"
    with zipfile.ZipFile(vsix) as z:
        z.extractall(extension)
    extension /= "extension"  # a .vsix keeps the extension's files under extension/
    # The user's environment has nothing installed: a bare venv (no pip even), whose Python runs the server.
    bare = make_venv(tmp_path / "bare", with_pip=False, base=base)
    probe = subprocess.run([str(bare.python), "-c", "import hf_cache_lint"], env=user_env(),
                           capture_output=True, check=False)
    assert probe.returncode != 0, "the bare environment must not have hf_cache_lint of its own"
    workspace = tmp_path / "ws"
    workspace.mkdir()
    shutil.copy(REPO / "examples" / "same_call.py", workspace / "same_call.py")
    argv, env, cwd = extension_launch(extension, str(bare.python), workspace)
    result = handshake(argv, env, cwd, workspace / "same_call.py", workspace=workspace)
    version = subprocess.run([str(bare.python), "-c", "import sys; print(sys.version.split()[0])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    FIGURES[f"serve handshake, .vsix bundled server on Python {version} (start to HFC001)"] = (
        f"{result['seconds']:.2f}s")
    FIGURES[".vsix"] = f"{vsix.name} {vsix.stat().st_size / 1024:.0f} KiB"
    assert result["init"]["serverInfo"]["name"] == "hf-cache-lint"
    assert "HFC001" in {d["code"] for d in result["diagnostics"]}
    assert result["exit_code"] == 0, result["stderr"]


def test_a_workspace_venv_as_the_runner_runs_none_of_its_site_code(vsix: Path, tmp_path: Path) -> None:
    """The runner may be the analysed interpreter, a workspace `.venv`'s python: started as the extension starts
    it (`-I -S`, client/launch.json), its site-packages `.pth` import lines and `sitecustomize` never run, and the
    bundled server still answers (issue 33: no workspace code runs, in any mode)."""
    extension = tmp_path / "installed-extension"
    with zipfile.ZipFile(vsix) as z:
        z.extractall(extension)
    extension /= "extension"
    workspace = tmp_path / "ws"
    workspace.mkdir()
    venv = make_venv(workspace / ".venv", with_pip=False)
    [purelib] = (workspace / ".venv" / "lib").glob("python3*/site-packages")
    markers = tmp_path / "markers"
    markers.mkdir()
    (purelib / "evil.pth").write_text(f"import os; open({str(markers / 'pth')!r}, 'w')\n")
    (purelib / "sitecustomize.py").write_text(f"open({str(markers / 'sitecustomize')!r}, 'w')\n")
    # The markers fire when `site` runs (the control: without -S they would, as `python -c pass` shows).
    subprocess.run([str(venv.python), "-I", "-c", "pass"], env=user_env(), check=True)
    assert sorted(p.name for p in markers.iterdir()) == ["pth", "sitecustomize"]
    for p in markers.iterdir():
        p.unlink()
    shutil.copy(REPO / "examples" / "same_call.py", workspace / "same_call.py")
    argv, env, cwd = extension_launch(extension, str(venv.python), workspace)
    result = handshake(argv, env, cwd, workspace / "same_call.py", workspace=workspace)
    assert "HFC001" in {d["code"] for d in result["diagnostics"]}
    assert result["exit_code"] == 0, result["stderr"]
    assert list(markers.iterdir()) == []
