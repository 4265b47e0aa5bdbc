"""A workspace that shadows every module the server imports: each file writes a marker when imported.

The list of names is measured, not written down: a real session (start-up, lint, hover, completion, code
actions, and jedi's environment subprocess of the analysed interpreter) runs with `-X importtime`, and
every module it imports, standard library and third-party, packages and plain modules, gets a shadow.
Used by the stdio test (tests/security/test_shadowed_imports.py) and the real-VS-Code test.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

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
