"""ANSI colour for the terminal formats (full, concise): on only when asked (`--color`, a terminal, no NO_COLOR)."""

from __future__ import annotations

from hf_cache_lint.engine.base.findings import Severity

_BOLD, _RED, _YELLOW, _CYAN, _BLUE, _RESET = "\033[1m", "\033[31m", "\033[33m", "\033[36m", "\033[34m", "\033[0m"
_BY_SEVERITY = {Severity.ERROR: _RED, Severity.WARNING: _YELLOW, Severity.INFO: _BLUE, Severity.HINT: _CYAN}


class Paint:
    """Wraps pieces of a line in colour, or leaves them as they are."""

    def __init__(self, on: bool) -> None:
        self.on = on

    def _wrap(self, text: str, *codes: str) -> str:
        return f"{''.join(codes)}{text}{_RESET}" if self.on and text else text

    def path(self, text: str) -> str:
        return self._wrap(text, _BOLD)

    def code(self, code: str, severity: Severity) -> str:
        return self._wrap(code, _BOLD, _BY_SEVERITY.get(severity, _RED))

    def fix(self, text: str) -> str:
        return self._wrap(text, _CYAN)

    def gutter(self, text: str) -> str:
        return self._wrap(text, _BLUE, _BOLD)

    def summary(self, text: str) -> str:
        return self._wrap(text, _BOLD)


def use_color(choice: str, is_tty: bool, environ: dict[str, str]) -> bool:
    """`--color always|never|auto`: auto colours a terminal unless NO_COLOR is set (https://no-color.org: any
    non-empty value); FORCE_COLOR (non-empty) colours even a pipe, as Ruff's own colour crate does."""
    if choice == "always":
        return True
    if choice == "never":
        return False
    if environ.get("NO_COLOR"):
        return False
    if environ.get("FORCE_COLOR"):
        return True
    return is_tty and environ.get("TERM") != "dumb"
