"""Constants and helpers of the CLI tests (a module of its own so test files can import it)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hf_cache_lint.engine.base.findings import Edit, Position, Span

# The conflict every CLI test leans on (HFC001, an Error): line 4, `past_key_values=DynamicCache()`
# spans 1-based columns 22..52 (end exclusive).
CONFLICT = (
    "from transformers import AutoModelForCausalLM, DynamicCache\n"
    "\n"
    'model = AutoModelForCausalLM.from_pretrained("x")\n'
    'out = model.generate(past_key_values=DynamicCache(), cache_implementation="static")\n'
)
CONFLICT_FIXED = CONFLICT.replace('cache_implementation="static"', "cache_implementation=None")
CONFLICT_ROW, CONFLICT_COL, CONFLICT_END_COL = 4, 22, 52
CLEAN = (
    "from transformers import AutoModelForCausalLM, DynamicCache\n"
    "\n"
    'model = AutoModelForCausalLM.from_pretrained("x")\n'
    "out = model.generate(past_key_values=DynamicCache())\n"
)
PREFERRED_TITLE = "Set `cache_implementation=None` in this call"

# The tests pin the target version: from 5.24 `past_key_values=` itself is a deprecation (HFC006, the
# `cache=` rename; off by default in the CLI, and hidden under CONFLICT's Error when asked for).
TARGET = "5.23.0"
# The line the text format prints above its summary: which transformers the run checked against, and why.
TARGET_LINE = f"Target: transformers {TARGET} (transformers-version in pyproject.toml [tool.hf-cache-lint])\n"


def pyproject_text(table: str) -> str:
    """A pyproject.toml whose [tool.hf-cache-lint] holds `table` (TARGET unless it sets a version)."""
    pin = "" if "version" in table else f'transformers-version = "{TARGET}"\n'
    return f'[project]\nname = "demo"\n\n[tool.hf-cache-lint]\n{pin}{table}\n'


@dataclass(frozen=True)
class Run:
    """What one `main([...])` call returned and printed."""

    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_bytes(text.encode("utf-8"))
    return path


def notebook(*cells: tuple[str, str], indent: int = 1) -> str:
    """An nbformat-4 document with (cell_type, source) cells, written the way nbformat writes it."""
    doc = {
        "cells": [
            {"cell_type": kind, "metadata": {}, "source": src.splitlines(keepends=True),
             **({"execution_count": None, "outputs": []} if kind == "code" else {})}
            for kind, src in cells
        ],
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    return json.dumps(doc, indent=indent, ensure_ascii=False) + "\n"


def edits_from_json(edits: list[dict[str, Any]]) -> list[Edit]:
    """JSON edits (1-based columns) back into engine edits (0-based), to apply them in tests."""
    return [Edit(Span(Position(e["location"]["row"], e["location"]["column"] - 1),
                      Position(e["end_location"]["row"], e["end_location"]["column"] - 1)), e["content"])
            for e in edits]


RunFn = Callable[..., Run]
"""The `run` fixture: `run("check", "x.py")` calls main() in-process and captures its output."""
