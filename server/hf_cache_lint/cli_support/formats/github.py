"""`--format github`: GitHub Actions workflow commands that annotate the pull request."""

from __future__ import annotations

from hf_cache_lint.cli_support.report import Report
from hf_cache_lint.engine.base.findings import Severity

LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice", Severity.HINT: "notice"}


def _data(text: str) -> str:
    # The escapes of the GitHub Actions toolkit (`escapeData` / `escapeProperty`).
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _prop(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def render(report: Report) -> str:
    lines = []
    for item in report.items:
        f = item.finding
        if item.cell is None:
            props = (f"file={_prop(item.filename)},line={f.span.start.line},col={f.span.start.column + 1},"
                     f"endLine={f.span.end.line},endColumn={f.span.end.column + 1},"
                     f"title={_prop(f'{f.code} {f.name}')}")
        else:
            # A notebook's cell lines sit on lines of the .ipynb JSON (report.py file_lines): annotate those,
            # with the cell, line and column in the cell in the title (columns in the JSON differ: indentation,
            # quotes and escapes).
            where = f"cell {item.cell}, line {f.span.start.line}, column {f.span.start.column + 1}"
            at = (f"line={item.file_lines[0]},endLine={item.file_lines[1]},"
                  if item.file_lines is not None else "")
            props = f"file={_prop(item.filename)},{at}title={_prop(f'{f.code} {f.name} ({where})')}"
        lines.append(f"::{LEVELS[f.severity]} {props}::{_data(f.message)}")
    for note in report.notes:
        lines.append(f"::notice file={_prop(note.path)},title={_prop('hf-cache-lint')}::{_data(note.message)}")
    for err in report.errors:
        lines.append(f"::error file={_prop(err.path)},title={_prop('hf-cache-lint')}::{_data(err.message)}")
    return "".join(line + "\n" for line in lines)
