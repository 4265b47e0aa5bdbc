"""Notebooks: cells joined into one module in cell order, findings mapped back per cell."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from hf_cache_lint.engine.base.findings import Edit, Finding, Position, Related, Span


class NotebookError(ValueError):
    """The .ipynb file is not a notebook this tool can read."""


def _integer(digits: str) -> int | float:
    # Python's int() refuses more than 4,300 digits (sys.get_int_max_str_digits) with a ValueError that is no
    # JSONDecodeError: a notebook whose metadata or outputs hold such a number is valid JSON and was an internal
    # error. Only the cells' types and sources are read, so such a number may stand as a float (inf).
    return int(digits) if len(digits) < 4000 else float(digits)


def load_json(text: str) -> object:
    """A notebook's JSON, as json.loads reads it, except that an integer of any length is accepted."""
    return json.loads(text, parse_int=_integer)


def declared_language(doc: object) -> str | None:
    """The language a notebook says its code cells are in (`metadata.language_info.name`, else
    `metadata.kernelspec.language`), lower-cased; None where it says nothing."""
    meta = doc.get("metadata") if isinstance(doc, dict) else None
    if not isinstance(meta, dict):
        return None
    for key, field in (("language_info", "name"), ("kernelspec", "language")):
        section = meta.get(key)
        if isinstance(section, dict) and isinstance(name := section.get(field), str) and name.strip():
            return name.strip().lower()
    return None


def read_ipynb(text: str) -> list[str]:
    """The sources of the code cells of an .ipynb document, in order; none for a notebook whose kernel is not
    Python (an R or Julia notebook's cells may happen to parse as Python, and a fix must never edit them: Ruff
    skips such notebooks too)."""
    try:
        doc = load_json(text)
    except json.JSONDecodeError as exc:
        raise NotebookError(f"invalid notebook JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    cells = doc.get("cells") if isinstance(doc, dict) else None
    if not isinstance(cells, list):
        raise NotebookError("invalid notebook: no 'cells' list")
    if declared_language(doc) not in (None, "python", "python3", "ipython", "ipython3"):
        return []
    out = []
    for cell in cells:
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            src = cell.get("source", "")
            out.append("".join(src) if isinstance(src, list) else str(src))
    return out


# Cell magics whose body IPython runs as Python (`%%time` times it, `%%capture` hides its output); the body
# of any other cell magic (`%%writefile`, `%%bash`, `%%html`, ...) is not Python and is skipped.
_PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "debug", "memit", "mprun"})
# Line magics that run the rest of their line as a Python statement: `%time out = model.generate(...)`.
_PYTHON_LINE_MAGICS = frozenset({"time", "timeit", "prun", "debug", "memit", "mprun"})
_LINE_MAGIC = re.compile(r"^(\s*)%([A-Za-z_]\w*)(\s+)(\S.*)?$")
_ESCAPE = re.compile(r"^(\s*)[%!?]")
_HELP = re.compile(r"^\s*[A-Za-z_][\w.]*\?\??\s*$")
_ASSIGNED = re.compile(r"^(\s*[A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*\s*=\s*)([!%].*)$")


def neutralise_magics(cell: str) -> str:
    """IPython syntax made inert, line by line, each line keeping its length (positions stay put).

    A cell magic's body is skipped unless IPython runs it as Python (`%%time`); a line magic or shell escape
    becomes a comment, except that the Python a magic runs (`%time x = f()`, `x = !ls`) stays analysed.
    """
    if "%" not in cell and "!" not in cell and "?" not in cell:
        return cell
    lines = cell.split("\n")
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is not None and lines[first].lstrip().startswith("%%"):
        name = lines[first].lstrip()[2:].split(maxsplit=1)
        body_is_python = bool(name) and name[0] in _PYTHON_CELL_MAGICS
        lines[first] = _comment(lines[first])
        if not body_is_python:
            return "\n".join(_comment(line) for line in lines)
    out: list[str] = []
    continued = False
    for line in lines:
        # IPython joins a magic's `\`-continued lines before running it: they belong to the magic.
        masked = _comment(line) if continued else _mask_line(line)
        continued = masked != line and masked.lstrip().startswith("#") and line.endswith("\\")
        out.append(masked)
    return "\n".join(out)


def _comment(line: str) -> str:
    stripped = line.lstrip()
    return line if not stripped else line[: len(line) - len(stripped)] + "#" + stripped[1:]


def _mask_line(line: str) -> str:
    m = _LINE_MAGIC.match(line)
    if m and m.group(2) in _PYTHON_LINE_MAGICS and m.group(4) and not m.group(4).startswith("-"):
        # `%time ` -> `_    ;`: same length, and the statement after it keeps its column.
        indent, name, gap = m.group(1), m.group(2), m.group(3)
        return indent + "_" + " " * (len(name) + len(gap) - 1) + ";" + m.group(4)
    if _ESCAPE.match(line):
        return _comment(line)
    m = _ASSIGNED.match(line)
    if m:  # `files = !ls`, `out = %sx ls`: the name is bound to something unknown
        return m.group(1) + "_" + " " * (len(m.group(2)) - 1)
    if _HELP.match(line):  # `model.generate?` asks for help (a `?` ending a string's line is text)
        return _comment(line)
    return line


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
