"""`--output-format json`: one JSON array of findings, the shape docs/architecture.md's CLI contract fixes.

Fields added since (additive): each fix's `applicability` ("safe" | "unsafe", Ruff's), and one item per file
that could not be checked, as Ruff writes its syntax errors: `"code": null`, `"name": "file-error"`, the message,
row 1, column 1, no fixes (before, such files were on stderr only).
"""

from __future__ import annotations

import json
from typing import Any

from hf_cache_lint.cli_support.report import Located, Report
from hf_cache_lint.engine.base.findings import FileError, Position


def point(pos: Position) -> dict[str, int]:
    # The engine's columns are 0-based code points; the contract's are 1-based characters.
    return {"row": pos.line, "column": pos.column + 1}


def finding_json(item: Located) -> dict[str, Any]:
    f = item.finding
    out: dict[str, Any] = {
        "code": f.code,
        "name": f.name,
        "message": f.message,
        "severity": f.severity.value,
        "filename": item.filename,
    }
    if item.cell is not None:
        out["cell"] = item.cell
    out.update({
        "location": point(f.span.start),
        "end_location": point(f.span.end),
        "url": f.url,
        "fixes": [
            {"title": fix.title,
             "applicability": fix.applicability,
             "edits": [{"content": e.content, "location": point(e.span.start), "end_location": point(e.span.end)}
                       for e in fix.edits]}
            for fix in f.fixes
        ],
        "related": [related_json(p.filename, p.cell, p.related.span.start, p.related.span.end, p.related.message)
                    for p in item.related],
    })
    return out


def related_json(filename: str, cell: int | None, start: Position, end: Position, message: str) -> dict[str, Any]:
    out: dict[str, Any] = {"filename": filename}
    if cell is not None:
        out["cell"] = cell
    out.update({"location": point(start), "end_location": point(end), "message": message})
    return out


def error_json(err: FileError) -> dict[str, Any]:
    start = {"row": 1, "column": 1}
    return {"code": None, "name": "file-error", "message": err.message, "severity": "error",
            "filename": err.path, "location": start, "end_location": start, "url": None, "fixes": [],
            "related": []}


def items(report: Report) -> list[dict[str, Any]]:
    """The findings, then the files that could not be checked."""
    return [finding_json(i) for i in report.items] + [error_json(e) for e in report.errors]


def render(report: Report) -> str:
    return json.dumps(items(report), indent=2, ensure_ascii=False) + "\n"
