"""`--format json`: one JSON array of findings, the shape docs/architecture.md's CLI contract fixes."""

from __future__ import annotations

import json
from typing import Any

from hf_cache_lint.cli_support.report import Located, Report
from hf_cache_lint.engine.findings import Position


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


def render(report: Report) -> str:
    return json.dumps([finding_json(i) for i in report.items], indent=2, ensure_ascii=False) + "\n"
