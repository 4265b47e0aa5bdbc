"""Opening a folder never runs its code: the server starts isolated, and jedi infers inside it.

The workspace holds a module for every name the server, its libraries and the version probe
import during a real session (measured with `-X importtime`), each writing a marker when imported. The
server is started exactly as the VS Code extension starts it (client/launch.json), but with the workspace
as working directory and `PYTHONPATH=.` (worse than the extension's own launch: cwd is the extension's
folder): lint, hover, completion and code actions run and no marker appears. The same workspace started
the old way (`python -m hf_cache_lint serve` in the folder) writes markers, so the check can fail.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from rawlsp import REPO, RawClient, extension_launch
from shadow_workspace import (
    HF,
    SAMPLE,
    exercise,
    markers_written,
    measure_imports,
    stdlib_and_third_party,
    write_shadows,
)


@pytest.fixture(scope="module")
def measured(tmp_path_factory: pytest.TempPathFactory) -> set[str]:
    return measure_imports(tmp_path_factory.mktemp("measure"))


def test_no_workspace_module_runs_while_the_server_works(tmp_path: Path, measured: set[str]) -> None:
    workspace, markers = tmp_path / "ws", tmp_path / "markers"
    workspace.mkdir()
    shadows = write_shadows(workspace, measured, markers)
    stdlib, third = stdlib_and_third_party(shadows)
    assert stdlib > 100 and third > 10, (stdlib, third)
    argv, _ = extension_launch()
    env = {**os.environ, **HF, "PYTHONPATH": "."}  # a relative PYTHONPATH would resolve into the workspace
    client = RawClient(argv, workspace, env=env)
    try:
        got = exercise(client, workspace, sys.executable)
        assert client.children() == []  # jedi infers in the server's process (checking/jedi_bridge.py)
    finally:
        code = client.stop()
    print(f"shadowed {len(shadows)} modules ({stdlib} stdlib, {third} third-party); markers: "
          f"{markers_written(markers)}")
    assert got["diagnostics"][0]["code"] == "HFC001" and got["hover"] and got["completion"]
    assert len(got["after_fix"]) == 1  # the fixed call is clean; the other call keeps its finding
    assert code == 0
    assert markers_written(markers) == []


def test_the_cli_console_script_runs_no_workspace_module(tmp_path: Path, measured: set[str]) -> None:
    script = shutil.which("hf-cache-lint")
    if script is None:
        pytest.skip("hf-cache-lint is not installed as a console script")
    workspace, markers = tmp_path / "ws", tmp_path / "markers"
    workspace.mkdir()
    write_shadows(workspace, measured, markers)
    (workspace / "sample.py").write_text(SAMPLE)
    env = {**os.environ, **HF, "PYTHONPATH": str(REPO / "server")}
    result = subprocess.run([script, "check", "--interpreter", sys.executable, "--jobs", "2", "."],
                            cwd=workspace, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 1 and "HFC001" in result.stdout, result.stderr
    assert markers_written(markers) == []


def test_started_as_python_m_in_the_workspace_the_shadows_do_run(tmp_path: Path, measured: set[str]) -> None:
    """The control: the launch the extension used to have imports the workspace's modules."""
    workspace, markers = tmp_path / "ws", tmp_path / "markers"
    workspace.mkdir()
    write_shadows(workspace, measured, markers)
    env = {**os.environ, **HF, "PYTHONPATH": str(REPO / "server")}
    proc = subprocess.run([sys.executable, "-m", "hf_cache_lint", "serve"], cwd=workspace, env=env,
                          input=b"", capture_output=True, timeout=120)
    assert proc.returncode is not None
    assert len(markers_written(markers)) > 0
