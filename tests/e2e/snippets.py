"""The editor configurations the README documents, read from the README itself: the tests run what users copy."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from harness import REPO

README = REPO / "README.md"
_FENCED = re.compile(r"^```(?P<lang>[\w-]*)\n(?P<body>.*?)^```$", re.M | re.S)

NEOVIM_010 = "hf-cache-lint for Neovim 0.10+"
NEOVIM_07 = "hf-cache-lint for Neovim 0.7"
EGLOT = "hf-cache-lint for Emacs eglot"
ALE = "hf-cache-lint for Vim ALE"
ON_SAVE = "source.fixAll.hf-cache-lint"

# The target version the snippet runs use, set the way a user sets it with no editor settings at all: the
# project's pyproject.toml (seeing it in the message proves the server read the project the editor gave it).
PYPROJECT = '[tool.hf-cache-lint]\ntransformers-version = "{version}"\n'


def readme_block(containing: str) -> str:
    """The one fenced code block of the README whose text contains `containing`."""
    found = [m["body"] for m in _FENCED.finditer(README.read_text(encoding="utf-8")) if containing in m["body"]]
    assert len(found) == 1, f"{len(found)} README code blocks contain {containing!r} (want exactly one)"
    return found[0]


def write_snippet(containing: str, dest: Path) -> Path:
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(readme_block(containing), encoding="utf-8")
    return dest


def on_save_settings() -> Any:
    """The README's `editor.codeActionsOnSave` block, parsed (it is JSON: settings.json takes it as written)."""
    return json.loads(readme_block(ON_SAVE))
