"""The files every editor scenario opens, and what the server must say about them."""

from __future__ import annotations

import json
from pathlib import Path

CONFLICT = """\
from transformers import AutoModelForCausalLM, DynamicCache

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")
out = model.generate(past_key_values=DynamicCache(), cache_implementation="static")
"""

# After the preferred quick fix "Set `cache_implementation=None` in this call".
CONFLICT_FIXED = CONFLICT.replace('cache_implementation="static"', "cache_implementation=None")
# Code actions name the tool and the code first, as ruff-lsp's "Ruff (F401): ..." (the fix's own title is bare).
PREFERRED_FIX = "hf-cache-lint (HFC001): Set `cache_implementation=None` in this call"
OTHER_FIXES = ("hf-cache-lint (HFC001): Remove `past_key_values=`", "hf-cache-lint (HFC001): Ignore HFC001 on this line")

# The target every editor scenario sets (code-server: the `hfCacheLint.transformersVersion` setting; Neovim,
# Emacs and Vim, configured with the README's snippets: the workspace's pyproject.toml): the target when the
# analysed environment has no transformers. 5.23.0 keeps `past_key_values=` current (5.24 deprecates it, HFC006),
# and seeing it in the message proves the settings reached the server.
TARGET_VERSION = "5.23.0"

# The diagnostic covers `past_key_values=DynamicCache()`: 0-based line, 0-based UTF-16 columns.
RANGE = {"start": {"line": 3, "character": 21}, "end": {"line": 3, "character": 51}}
MESSAGE_PARTS = (
    "past_key_values",
    'cache_implementation="static"',
    "ValueError",
    f"transformers {TARGET_VERSION}",
)
HOVER_PARTS = ("HFC001", "cache_implementation")

# The upgrade check (`hfCacheLint.upgradeCheck`): clean for 4.57.6, two findings new on 5.24.0, both from 5.0.0.
UPGRADE = """\
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")
out = model.generate(max_new_tokens=5, use_model_defaults=False, return_dict_in_generate=True)
seq_len = out.past_key_values[0][0].shape[2]
"""
UPGRADE_FROM, UPGRADE_TO = "4.57.6", "5.24.0"
# (code, 1-based row, 1-based column, the release that brings it, a part of the message)
UPGRADE_FINDINGS = (
    ("HFC005", 4, 40, "5.0.0", "['use_model_defaults']"),
    ("HFC009", 5, 11, "5.0.0", "TypeError: 'DynamicCache' object is not subscriptable"),
)

CLEAN = """\
from transformers import AutoModelForCausalLM, DynamicCache

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")
out = model.generate(past_key_values=DynamicCache(), max_new_tokens=20)
"""

NOTEBOOK_CELLS = (
    ("markdown", "# Cache demo"),
    (
        "code",
        "from transformers import AutoModelForCausalLM, DynamicCache\n\n"
        'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")',
    ),
    (
        "code",
        'cache = DynamicCache()\nout = model.generate(past_key_values=cache, cache_implementation="static")',
    ),
)
# The conflict is in the third cell (index 2), second line: `past_key_values=cache`.
NOTEBOOK_CELL_INDEX = 2
NOTEBOOK_RANGE = {"start": {"line": 1, "character": 21}, "end": {"line": 1, "character": 42}}


def notebook_json() -> str:
    cells = []
    for i, (kind, source) in enumerate(NOTEBOOK_CELLS):
        cell: dict[str, object] = {
            "cell_type": kind,
            "id": f"cell-{i}",
            "metadata": {},
            "source": source.splitlines(keepends=True),
        }
        if kind == "code":
            cell.update(execution_count=None, outputs=[])
        cells.append(cell)
    return json.dumps(
        {
            "cells": cells,
            "metadata": {
                "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                "language_info": {"name": "python"},
            },
            "nbformat": 4,
            "nbformat_minor": 5,
        },
        indent=1,
    )


def write_workspace(folder: Path) -> dict[str, Path]:
    """Writes conflict.py, clean.py and demo.ipynb into `folder`; returns their paths by name."""
    folder.mkdir(parents=True, exist_ok=True)
    files = {
        "conflict": folder / "conflict.py",
        "clean": folder / "clean.py",
        "notebook": folder / "demo.ipynb",
    }
    files["conflict"].write_text(CONFLICT, encoding="utf-8")
    files["clean"].write_text(CLEAN, encoding="utf-8")
    files["notebook"].write_text(notebook_json(), encoding="utf-8")
    return files
