"""`--output-format full` (default; `text` is its old name): Ruff-like lines with the source line, an underline,
notes and a summary."""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Sequence

from hf_cache_lint.cli_support.formats.paint import Paint
from hf_cache_lint.cli_support.report import Located, Place, Report
from hf_cache_lint.engine.base.findings import Severity

TAB = 4
PLAIN = Paint(False)


def _width(text: str) -> int:
    """Terminal columns `text` takes once its tabs are expanded (wide East Asian characters count two)."""
    expanded = text.expandtabs(TAB)
    return len(expanded) if expanded.isascii() else sum(
        2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in expanded)


def where(filename: str, cell: int | None, line: int, column: int) -> str:
    # 1-based row and column, as editors and Ruff print them; notebooks add the cell first.
    cell_part = f"cell {cell}:" if cell is not None else ""
    return f"{filename}:{cell_part}{line}:{column + 1}"


def _snippet(item: Located, paint: Paint = PLAIN) -> list[str]:
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
    bar = paint.gutter(f"{gutter} |")
    return [bar, f"{paint.gutter(f'{number} |')} {line.expandtabs(TAB)}".rstrip(),
            f"{bar} {paint.code(caret + ' ' + f.code, f.severity)}", bar]


def _note(place: Place) -> str:
    r = place.related
    return f"  = note: {where(place.filename, place.cell, r.span.start.line, r.span.start.column)}: {r.message}"


def format_item(item: Located, paint: Paint = PLAIN) -> list[str]:
    f = item.finding
    mark = " " + paint.fix("[*]") if item.fixable else ""
    place = where(item.filename, item.cell, f.span.start.line, f.span.start.column)
    lines = [f"{paint.path(place)}: {paint.code(f.code, f.severity)}{mark} {f.message}"]
    lines.extend(_snippet(item, paint))
    lines.extend(_note(p) for p in item.related)
    preferred = next((fix for fix in f.fixes if fix.preferred), None)
    if preferred is not None:
        unsafe = "" if preferred.safe else " (unsafe fix: --unsafe-fixes applies it)"
        lines.append(f"  = help: {preferred.title}{unsafe}")
    return lines


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


# How each severity is counted in the summary, in this order ("Found 2 errors and 1 warning.").
_WORDS = ((Severity.ERROR, "error"), (Severity.WARNING, "warning"), (Severity.INFO, "info finding"),
          (Severity.HINT, "hint"))


def _and(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"


def counts(items: Sequence[Located]) -> str:
    """`2 errors and 1 warning`, `1 error, 1 warning and 3 hints`: each severity that occurs, counted."""
    by = Counter(i.finding.severity for i in items)
    return _and([_plural(by[sev], word) for sev, word in _WORDS if by[sev]])


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
        left = f": {counts(report.items)}" if found else ""
        return f"Found {_plural(found + report.fixed, 'finding')} ({report.fixed} fixed, {found} remaining{left})."
    if found == 0:
        return "All checks passed!"
    fixable = sum(1 for i in report.items if i.fixable)
    hidden = sum(1 for i in report.items if i.unsafe_fixable)
    parts = ([f"{fixable} fixable with --fix"] if fixable else []) + (
        [f"{hidden} more with --unsafe-fixes"] if hidden else [])
    extra = f" ({', '.join(parts)})" if parts else ""
    return f"Found {counts(report.items)}{extra}."


def render(report: Report, color: bool = False, quiet: bool = False) -> str:
    """The findings, each with its snippet; then the summary line unless `quiet` (Ruff's --quiet)."""
    paint = Paint(color)
    out: list[str] = []
    for item in report.items:
        out.extend(format_item(item, paint))
        out.append("")
    if quiet:
        return "\n".join(out[:-1]) + "\n" if out else ""
    if report.target:  # which transformers the findings are for, and why (engine/environment/target_plan.py)
        out.append(f"Target: {report.target}")
    out.append(paint.summary(summary(report)))
    return "\n".join(out) + "\n"
