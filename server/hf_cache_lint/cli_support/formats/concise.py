"""`--output-format concise`: one line a finding (Ruff's concise), then the summary."""

from __future__ import annotations

from hf_cache_lint.cli_support.formats.paint import Paint
from hf_cache_lint.cli_support.formats.text import summary, where
from hf_cache_lint.cli_support.report import Located, Report


def line(item: Located, paint: Paint) -> str:
    f = item.finding
    mark = " " + paint.fix("[*]") if item.fixable else ""
    place = where(item.filename, item.cell, f.span.start.line, f.span.start.column)
    return f"{paint.path(place)}: {paint.code(f.code, f.severity)}{mark} {f.message}"


def render(report: Report, color: bool = False, quiet: bool = False) -> str:
    paint = Paint(color)
    out = [line(item, paint) for item in report.items]
    if not quiet:
        out.append(summary(report))
    return "".join(x + "\n" for x in out)
