"""`--format github`: GitHub Actions workflow commands that annotate the pull request."""

from __future__ import annotations

from hf_cache_lint.cli_support.report import Report
from hf_cache_lint.engine.findings import Severity

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
            # Lines of a notebook's JSON are not the cell's lines: annotate the file, say where in the title.
            where = f"cell {item.cell}, line {f.span.start.line}, column {f.span.start.column + 1}"
            props = f"file={_prop(item.filename)},title={_prop(f'{f.code} {f.name} ({where})')}"
        lines.append(f"::{LEVELS[f.severity]} {props}::{_data(f.message)}")
    for note in report.notes:
        lines.append(f"::notice file={_prop(note.path)},title={_prop('hf-cache-lint')}::{_data(note.message)}")
    for err in report.errors:
        lines.append(f"::error file={_prop(err.path)},title={_prop('hf-cache-lint')}::{_data(err.message)}")
    return "".join(line + "\n" for line in lines)
