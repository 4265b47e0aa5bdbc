"""Output formats of `check`: each turns a Report into the text printed on stdout.

FORMATS maps each --format name to its module's `render`, imported when first called: a run loads the one
format it prints (importing this package loads none of them).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hf_cache_lint.cli_support.report import Report


def _render_of(module: str) -> Callable[..., str]:
    def render(report: Report, **options: bool) -> str:
        """`options`: `color` and `quiet`, for the terminal formats (full, concise) that take them."""
        out: str = importlib.import_module(f"{__name__}.{module}").render(report, **options)
        return out

    render.__qualname__ = f"{module}.render"
    return render


FORMATS: dict[str, Callable[..., str]] = {
    "full": _render_of("text"),
    "concise": _render_of("concise"),
    "json": _render_of("json_format"),
    "json-lines": _render_of("json_lines"),
    "sarif": _render_of("sarif"),
    "github": _render_of("github"),
    "gitlab": _render_of("gitlab"),
    "text": _render_of("text"),  # the old name of `full`, kept (the CLI contract in docs/architecture.md)
}
# The formats that print a summary line and may be coloured (the others are for machines).
TERMINAL = frozenset({"full", "text", "concise"})
