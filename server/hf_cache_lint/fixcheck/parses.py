"""Whether a fixed text still parses: CPython's compiler, and where the original did not parse either (a line
being typed), parso's error-recovering parser, so a fix adds no syntax error of its own."""

from __future__ import annotations

import ast
import warnings
from collections.abc import Sequence

from hf_cache_lint.engine.text.notebook import neutralise_magics
from hf_cache_lint.engine.text.text import line_starts
from hf_cache_lint.fixcheck.places import new_ranges


def python_cell(cell: str) -> bool:
    """Whether a notebook cell is Python: a cell magic (`%%bash`, `%%writefile`) makes it something else."""
    for line in cell.splitlines():
        if line.strip():
            return not line.lstrip().startswith("%%")
    return True


def compiles(text: str, notebook: bool = False) -> bool:
    """CPython's own compiler accepts `text` (a notebook cell: magics as comments, top-level await allowed).

    Compiled to bytecode, not only parsed: `await` or `return` outside a function are compiler errors.
    Compiling runs nothing."""
    flags = 0
    if notebook:
        text = neutralise_magics(text.replace("\r\n", "\n"))
        flags |= ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
    try:
        with warnings.catch_warnings():  # e.g. "invalid escape sequence": not ours to report
            warnings.simplefilter("ignore")
            compile(text, "<fixed>", "exec", flags=flags, dont_inherit=True)
    except (SyntaxError, ValueError, OverflowError, RecursionError, MemoryError):
        return False
    return True


def _parso_errors(text: str) -> list[tuple[str, int]]:
    """(message, offset) of every syntax error parso's error-recovering parser finds."""
    import parso

    grammar = parso.load_grammar()  # type: ignore[attr-defined]
    starts = line_starts(text)
    out = []
    for err in grammar.iter_errors(grammar.parse(text, error_recovery=True)):
        line, column = err.start_pos
        out.append((str(err.message), starts[min(line, len(starts)) - 1] + column))
    return out


def still_parses(old: str, new: str, edits: Sequence[tuple[int, int, int]], notebook: bool = False) -> bool:
    """The fixed cell parses; when the original already did not (a line being typed elsewhere), the fix
    must add no syntax error: none inside what it wrote, and no message more often than before."""
    if compiles(new, notebook):
        return True
    if compiles(old, notebook):
        return False
    before = [m for m, _ in _parso_errors(old)]
    for message, at in _parso_errors(new):
        if any(start <= at <= start + length for _, start, length in new_ranges(edits)):
            return False
        if message not in before:
            return False
        before.remove(message)
    return True
