"""Notebooks: cells joined into one module in cell order, findings mapped back per cell."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from hf_cache_lint.engine.findings import Edit, Finding, Position, Related, Span

_MAGIC = re.compile(r"^(\s*)([%!?])")


class NotebookError(ValueError):
    """The .ipynb file is not a notebook this tool can read."""


def read_ipynb(text: str) -> list[str]:
    """The sources of the code cells of an .ipynb document, in order."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise NotebookError(f"invalid notebook JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    cells = doc.get("cells") if isinstance(doc, dict) else None
    if not isinstance(cells, list):
        raise NotebookError("invalid notebook: no 'cells' list")
    out = []
    for cell in cells:
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            src = cell.get("source", "")
            out.append("".join(src) if isinstance(src, list) else str(src))
    return out


def neutralise_magics(cell: str) -> str:
    """Turn IPython magics and shell escapes into comments of the same length (columns stay put)."""
    if "%" not in cell and "!" not in cell and "?" not in cell:
        return cell
    return "\n".join(_MAGIC.sub(r"\1#", line) for line in cell.split("\n"))


@dataclass(frozen=True)
class Joined:
    """Cells joined as one module; `first_lines[i]` is the 1-based line where cell i starts."""

    text: str
    first_lines: tuple[int, ...]

    def locate(self, line: int) -> tuple[int, int]:
        """Module line -> (cell index, 1-based line in that cell)."""
        cell = 0
        for i, first in enumerate(self.first_lines):
            if first <= line:
                cell = i
        return cell, line - self.first_lines[cell] + 1


def join_cells(cells: Sequence[str]) -> Joined:
    parts, firsts, line = [], [], 1
    for cell in cells:
        body = neutralise_magics(cell.replace("\r\n", "\n"))
        firsts.append(line)
        parts.append(body if body.endswith("\n") else body + "\n")
        line += parts[-1].count("\n")
    return Joined("".join(parts), tuple(firsts))


_AT_LINE = re.compile(r"\bat line (\d+)")


def relabel(message: str, joined: Joined) -> str:
    """Module line numbers in a message, said as notebook places ("at cell 3, line 2")."""

    def sub(m: re.Match[str]) -> str:
        cell, line = joined.locate(int(m.group(1)))
        return f"at cell {cell + 1}, line {line}"

    return _AT_LINE.sub(sub, message)


def _move(span: Span, joined: Joined) -> tuple[int, Span]:
    cell, start_line = joined.locate(span.start.line)
    end_cell, end_line = joined.locate(span.end.line)
    if end_cell != cell:  # a range never crosses cells; clamp defensively
        end_line, end_col = start_line, span.start.column
    else:
        end_col = span.end.column
    return cell, Span(Position(start_line, span.start.column), Position(end_line, end_col))


def split_findings(findings: Sequence[Finding], joined: Joined) -> list[tuple[int, Finding]]:
    """Map module findings to (cell index, finding in cell coordinates).

    Fix edits and related locations are moved too; an edit or related place in another cell keeps
    the cell index in `Related.path` as "cell:N" so adapters can point at the right cell.
    """
    out = []
    for f in findings:
        cell, span = _move(f.span, joined)
        fixes = []
        for fix in f.fixes:
            edits = []
            for e in fix.edits:
                ecell, espan = _move(e.span, joined)
                if ecell != cell:
                    break  # a fix spanning cells cannot be applied to one cell
                edits.append(Edit(espan, e.content))
            else:
                fixes.append(replace(fix, edits=tuple(edits)))
        related = []
        for r in f.related:
            if r.path is None:
                rcell, rspan = _move(r.span, joined)
                related.append(Related(rspan, r.message, None if rcell == cell else f"cell:{rcell}"))
            else:
                related.append(r)
        out.append((cell, replace(f, span=span, fixes=tuple(fixes), related=tuple(related),
                                  message=relabel(f.message, joined))))
    return out
