"""Opening a folder never runs its code: the server starts isolated, and so does jedi's subprocess.

The workspace holds a module for every name the server, its libraries and jedi's environment subprocess
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
from typing import Any

import pytest
from rawlsp import REPO, RawClient, extension_launch
from shadow_workspace import SAMPLE, imported_names, markers_written, stdlib_and_third_party, write_shadows

HF = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}


def _apply(text: str, edits: list[dict[str, Any]]) -> str:
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))

    def offset(pos: dict[str, int]) -> int:
        return offsets[pos["line"]] + pos["character"]  # ASCII sample: UTF-16 units are characters

    for edit in sorted(edits, key=lambda e: offset(e["range"]["start"]), reverse=True):
        start, end = offset(edit["range"]["start"]), offset(edit["range"]["end"])
        text = text[:start] + edit["newText"] + text[end:]
    return text


def exercise(client: RawClient, workspace: Path, interpreter: str) -> dict[str, Any]:
    """Start-up, lint, hover, completion, code actions, a fix applied and re-linted; what came back."""
    client.initialize(workspace, {"transformersVersion": "5.23.0", "interpreter": interpreter})
    path = workspace / "sample.py"
    uri = client.open(path, SAMPLE)
    published = client.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                            and m["params"]["uri"] == uri and len(m["params"]["diagnostics"]) == 2)
    diagnostics = published["params"]["diagnostics"]
    first = diagnostics[0]
    hover = client.call("textDocument/hover", {"textDocument": {"uri": uri}, "position": first["range"]["start"]})
    line = SAMPLE.splitlines()[3]
    completion = client.call("textDocument/completion", {"textDocument": {"uri": uri}, "position": {
        "line": 3, "character": line.index('"static"') + 1}})
    actions = client.call("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": first["range"],
                                                      "context": {"diagnostics": [first]}})
    preferred = next(a for a in actions["result"] if a.get("isPreferred"))
    fixed = _apply(SAMPLE, preferred["edit"]["changes"][uri])
    mark = len(client.messages)
    client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                             "contentChanges": [{"text": fixed}]})
    after = client.diagnostics(uri, start=mark, version=2)
    return {"diagnostics": diagnostics, "hover": hover["result"], "completion": completion["result"],
            "fix": preferred["title"], "after_fix": after["params"]["diagnostics"]}


def importtime_interpreter(folder: Path, log: Path) -> Path:
    """An analysed interpreter that logs every import (jedi's subprocess, the version probe) to `log`."""
    script = folder / "python-importtime"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -X importtime "$@" 2>>"{log}"\n')
    script.chmod(0o755)
    return script


@pytest.fixture(scope="module")
def measured(tmp_path_factory: pytest.TempPathFactory) -> set[str]:
    """Every top-level module a real session imports: the server's and jedi's subprocess's."""
    root = tmp_path_factory.mktemp("measure")
    workspace = root / "ws"
    workspace.mkdir()
    log = root / "subprocess-imports.log"
    argv, cwd = extension_launch()
    argv = [argv[0], "-X", "importtime", *argv[1:]]
    client = RawClient(argv, cwd, env={**os.environ, **HF})
    try:
        got = exercise(client, workspace, str(importtime_interpreter(root, log)))
    finally:
        client.stop()
    assert got["hover"] and got["completion"] and got["after_fix"] != got["diagnostics"]
    names = imported_names(client.stderr.decode("utf-8", "replace"))
    assert log.exists(), "the analysed interpreter never ran: jedi's subprocess is not exercised"
    sub = imported_names(log.read_text())
    assert {"jedi", "parso", "pygls", "lsprotocol", "hf_cache_lint"} <= names and "jedi" in sub
    return names | sub


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
        assert client.children(), "jedi's environment subprocess did not run: the check would miss it"
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
