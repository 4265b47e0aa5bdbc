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


def _render_of(module: str) -> Callable[[Report], str]:
    def render(report: Report) -> str:
        out: str = importlib.import_module(f"{__name__}.{module}").render(report)
        return out

    render.__qualname__ = f"{module}.render"
    return render


FORMATS: dict[str, Callable[[Report], str]] = {
    "text": _render_of("text"),
    "json": _render_of("json_format"),
    "sarif": _render_of("sarif"),
    "github": _render_of("github"),
}
