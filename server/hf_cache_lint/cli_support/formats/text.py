"""`--format text` (default): Ruff-like lines with the source line, an underline, notes and a summary."""

from __future__ import annotations

import unicodedata

from hf_cache_lint.cli_support.report import Located, Place, Report

TAB = 4


def _width(text: str) -> int:
    """Terminal columns `text` takes once its tabs are expanded (wide East Asian characters count two)."""
    expanded = text.expandtabs(TAB)
    return len(expanded) if expanded.isascii() else sum(
        2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in expanded)


def where(filename: str, cell: int | None, line: int, column: int) -> str:
    # 1-based row and column, as editors and Ruff print them; notebooks add the cell first.
    cell_part = f"cell {cell}:" if cell is not None else ""
    return f"{filename}:{cell_part}{line}:{column + 1}"


def _snippet(item: Located) -> list[str]:
    f = item.finding
    if not item.line_text:
        return []
    line, start = item.line_text, f.span.start.column
    end = f.span.end.column if f.span.end.line == f.span.start.line else len(line.rstrip())
    end = max(end, start + 1)
    number = str(f.span.start.line)
    gutter = " " * len(number)
    # Columns count code points; the underline needs display columns (tabs, wide characters).
    before = _width(line[:start])
    caret = " " * before + "^" * max(1, _width(line[:end]) - before)
    return [f"{gutter} |", f"{number} | {line.expandtabs(TAB)}".rstrip(), f"{gutter} | {caret} {f.code}", f"{gutter} |"]


def _note(place: Place) -> str:
    r = place.related
    return f"  = note: {where(place.filename, place.cell, r.span.start.line, r.span.start.column)}: {r.message}"


def format_item(item: Located) -> list[str]:
    f = item.finding
    mark = " [*]" if item.fixable else ""
    lines = [f"{where(item.filename, item.cell, f.span.start.line, f.span.start.column)}: {f.code}{mark} {f.message}"]
    lines.extend(_snippet(item))
    lines.extend(_note(p) for p in item.related)
    preferred = next((fix for fix in f.fixes if fix.preferred), None)
    if preferred is not None:
        lines.append(f"  = help: {preferred.title}")
    return lines


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def summary(report: Report) -> str:
    """The closing line; files that could not be checked are named on stderr and counted here."""
    line = _found(report)
    if report.errors:
        n = len(report.errors)
        line += f" {_plural(n, 'file')} could not be checked." if n != 1 else " 1 file could not be checked."
        if line.startswith("All checks passed!"):
            line = line.replace("All checks passed!", "No findings, but")
    return line


def _found(report: Report) -> str:
    found = len(report.items)
    if report.fixing:
        if found + report.fixed == 0:
            return "All checks passed!"
        return f"Found {_plural(found + report.fixed, 'error')} ({report.fixed} fixed, {found} remaining)."
    if found == 0:
        return "All checks passed!"
    fixable = sum(1 for i in report.items if i.fixable)
    extra = f" ({fixable} fixable with --fix)" if fixable else ""
    return f"Found {_plural(found, 'error')}{extra}."


def render(report: Report) -> str:
    out: list[str] = []
    for item in report.items:
        out.extend(format_item(item))
        out.append("")
    out.append(summary(report))
    return "\n".join(out) + "\n"
