"""A workspace cannot make the server run a program.

The analysed interpreter comes from the client's settings or the CLI's --interpreter only: `interpreter`
in pyproject.toml is ignored with a warning. An untrusted workspace (`workspaceTrusted: false` from the
VS Code client) runs no interpreter at all: no version probe, no jedi environment subprocess (jedi infers
in the server's own process), and the status notification says so.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from rawlsp import REPO, RawClient, extension_launch

HF = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}

SAMPLE = '''\
from transformers import AutoModelForCausalLM, DynamicCache

from engines import Engine

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")
out = model.generate(past_key_values=DynamicCache(), cache_implementation="static")


def run(engine: Engine):
    return engine.generate(past_key_values=DynamicCache(), cache_implementation="static")
'''
ENGINES = "class Engine:\n    def generate(self, **kwargs):\n        return kwargs\n"


def marker_interpreter(folder: Path, name: str) -> tuple[Path, Path]:
    """A Python that leaves a marker each time anything runs it."""
    marker = folder / f"{name}.ran"
    script = folder / name
    script.write_text(f'#!/bin/sh\necho "$@" >> "{marker}"\nexec "{sys.executable}" "$@"\n')
    script.chmod(0o755)
    return script, marker


def workspace(tmp_path: Path) -> tuple[Path, Path, Path]:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "sample.py").write_text(SAMPLE)
    (ws / "engines.py").write_text(ENGINES)
    script, marker = marker_interpreter(tmp_path, "pyproject-python")
    (ws / "pyproject.toml").write_text(f'[tool.hf-cache-lint]\ninterpreter = "{script}"\n')
    return ws, script, marker


def session(ws: Path, options: dict[str, object]) -> tuple[RawClient, dict[str, object], list[dict[str, object]]]:
    argv, cwd = extension_launch()
    client = RawClient(argv, cwd, env={**os.environ, **HF})
    client.initialize(ws, options)
    status = client.wait(lambda m: m.get("method") == "hfCacheLint/status")["params"]
    uri = client.open(ws / "sample.py")
    diagnostics = client.diagnostics(uri)["params"]["diagnostics"]
    return client, status, diagnostics


def test_untrusted_workspace_runs_no_interpreter_and_says_so(tmp_path: Path) -> None:
    ws, _, pyproject_marker = workspace(tmp_path)
    user_python, user_marker = marker_interpreter(tmp_path, "user-python")
    client, status, diagnostics = session(ws, {"workspaceTrusted": False, "interpreter": str(user_python),
                                               "transformersVersion": "5.23.0"})
    try:
        assert client.children() == []  # no jedi environment subprocess, nothing else
        warning = client.wait(lambda m: m.get("method") == "window/showMessage")["params"]
    finally:
        assert client.stop() == 0
    assert status == {"transformersVersion": "5.23.0", "versionSource": "setting", "interpreter": None,
                      "restricted": True, "target": "transformers 5.23.0 (the transformersVersion setting)"}
    # Still linted, and jedi (in-process) still sees that `engine` is the workspace's own class.
    assert [(d["code"], d["range"]["start"]["line"]) for d in diagnostics] == [("HFC001", 5)]
    assert "interpreter" in warning["message"] and "ignored" in warning["message"]
    assert not user_marker.exists() and not pyproject_marker.exists()


def test_trusted_workspace_analyses_the_users_interpreter_never_the_pyprojects(tmp_path: Path) -> None:
    """The user's interpreter is the analysed one (the status names it), read from its files, never started: its
    transformers version from its dist-info (engine/environment/environments.py) and jedi's search path from its
    site-packages (checking/jedi_bridge.py); the pyproject's is neither read nor run."""
    ws, _, pyproject_marker = workspace(tmp_path)
    user_python, user_marker = marker_interpreter(tmp_path, "user-python")
    client, status, diagnostics = session(ws, {"interpreter": str(user_python), "transformersVersion": "5.23.0"})
    try:
        assert client.children() == []  # jedi infers in the server's process (checking/jedi_bridge.py), in both modes
    finally:
        assert client.stop() == 0
    assert status["interpreter"] == str(user_python) and status["restricted"] is False
    assert [(d["code"], d["range"]["start"]["line"]) for d in diagnostics] == [("HFC001", 5)]
    assert not user_marker.exists() and not pyproject_marker.exists()


def test_cli_ignores_the_pyproject_interpreter_with_a_warning(tmp_path: Path) -> None:
    ws, _, pyproject_marker = workspace(tmp_path)
    env = {**os.environ, **HF, "PYTHONPATH": str(REPO / "server")}
    result = subprocess.run([sys.executable, "-m", "hf_cache_lint", "check", "--jobs", "1", str(ws)],
                            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 1 and "HFC001" in result.stdout
    assert "warning:" in result.stderr and "`interpreter` in [tool.hf-cache-lint] is ignored" in result.stderr
    assert not pyproject_marker.exists()
