"""A workspace that shadows every module the server imports: each file writes a marker when imported.

The list of names is measured, not written down: a real session (start-up, lint, hover, completion, code
actions, and jedi's environment subprocess of the analysed interpreter) runs with `-X importtime`, and
every module it imports, standard library and third-party, packages and plain modules, gets a shadow.
Used by the stdio test (tests/security/test_shadowed_imports.py) and the real-VS-Code test.
"""

from __future__ import annotations

import importlib.util
import os
import re
import sys
from pathlib import Path
from typing import Any

from rawlsp import RawClient, extension_launch

HF = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}

# Never importable from a folder, or not a module name.
_SKIP = {"__main__", "builtins", "sys"}
# Looked up on sys.path by `site` itself: a workspace copy must not run either.
_ALWAYS = ("sitecustomize", "usercustomize")

SAMPLE = '''\
from transformers import AutoModelForCausalLM, DynamicCache

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")
out = model.generate(past_key_values=DynamicCache(), cache_implementation="static")


def run(engine, x):
    return engine.generate(x, past_key_values=DynamicCache(), cache_implementation="static")
'''
# `engine` is a parameter the interpreter cannot see: jedi (the analysed interpreter's subprocess) runs.

_IMPORT_LINE = re.compile(r"^import time:\s+\d+\s+\|\s+\d+\s+\|\s+(\S.*)$")


def imported_names(importtime_logs: str) -> set[str]:
    """Top-level module names in `-X importtime` output."""
    names = set()
    for line in importtime_logs.splitlines():
        m = _IMPORT_LINE.match(line.strip())
        if m:
            names.add(m.group(1).strip().split(".")[0])
    return names


def _is_package(name: str) -> bool:
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return False
    return spec is not None and spec.submodule_search_locations is not None


def write_shadows(workspace: Path, names: set[str], markers: Path) -> list[str]:
    """A module (a package for a real package) per name that creates `markers/<name>` when imported."""
    markers.mkdir(parents=True, exist_ok=True)
    written = []
    for name in sorted((names | set(_ALWAYS)) - _SKIP):
        if not name.isidentifier():
            continue
        # Builtins only (open): a shadow must not import anything itself.
        body = f"open({str(markers / name)!r}, 'w').close()\n"
        if _is_package(name):
            (workspace / name).mkdir(exist_ok=True)
            (workspace / name / "__init__.py").write_text(body)
        else:
            (workspace / f"{name}.py").write_text(body)
        written.append(name)
    return written


def markers_written(markers: Path) -> list[str]:
    return sorted(p.name for p in markers.iterdir()) if markers.exists() else []


def stdlib_and_third_party(names: list[str]) -> tuple[int, int]:
    stdlib = sum(1 for n in names if n in sys.stdlib_module_names)
    return stdlib, len(names) - stdlib


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
    """An analysed interpreter that logs every import (the version probe's) to `log`."""
    script = folder / "python-importtime"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -X importtime "$@" 2>>"{log}"\n')
    script.chmod(0o755)
    return script


def measure_imports(root: Path) -> set[str]:
    """Every top-level module a real session imports: the server's and the version probe's."""
    workspace = root / "ws"
    workspace.mkdir(parents=True)
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
    # The version probe's imports (jedi no longer starts the analysed interpreter: checking/jedi_bridge.py).
    sub = imported_names(log.read_text()) if log.exists() else set()
    assert {"jedi", "parso", "pygls", "lsprotocol", "hf_cache_lint"} <= names
    return names | sub


