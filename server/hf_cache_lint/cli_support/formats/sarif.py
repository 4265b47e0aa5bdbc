"""`--format sarif`: a SARIF 2.1.0 log (GitHub code scanning and other SARIF viewers)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any
from urllib.parse import quote

from hf_cache_lint import __version__
from hf_cache_lint.cli_support.report import Located, Report
from hf_cache_lint.engine.base.findings import DOCS_BASE, Edit, Severity, Span

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note", Severity.HINT: "note"}


def _uri(path: str) -> dict[str, str]:
    """An absolute path as a file URI (`Path.as_uri`: `file:///C:/x.py` on Windows, where "file://" + path
    was wrong), a relative one relative to %SRCROOT%. Not pygls.uris: only lsp/ imports pygls."""
    if os.path.isabs(path):
        return {"uri": Path(path).as_uri()}
    # surrogateescape: a file name that is not UTF-8 (its bytes kept as surrogates) is percent-encoded byte by byte,
    # as Path.as_uri does, instead of a UnicodeEncodeError that ended the run as an internal error.
    return {"uri": quote(path.replace(os.sep, "/"), errors="surrogateescape"), "uriBaseId": "%SRCROOT%"}


def _region(span: Span) -> dict[str, int]:
    # SARIF lines and columns are 1-based; columnKind below says they count code points, like ours.
    return {"startLine": span.start.line, "startColumn": span.start.column + 1,
            "endLine": span.end.line, "endColumn": span.end.column + 1}


def _location(path: str, span: Span, cell: int | None, file_lines: tuple[int, int] | None = None) -> dict[str, Any]:
    if cell is None:
        return {"physicalLocation": {"artifactLocation": _uri(path), "region": _region(span)}}
    # SARIF knows no notebook cells. The region names the lines of the .ipynb file that hold the cell's lines
    # (report.py file_lines), so a viewer opens the notebook there; the cell and the line and columns in it are
    # properties. Without known file lines, the region is left out rather than pointing at the wrong line.
    loc: dict[str, Any] = {"physicalLocation": {"artifactLocation": _uri(path)}}
    if file_lines is not None:
        loc["physicalLocation"]["region"] = {"startLine": file_lines[0], "endLine": file_lines[1]}
    loc["properties"] = {"cell": cell, "cellRegion": _region(span)}
    return loc


def _replacement(edit: Edit) -> dict[str, Any]:
    return {"deletedRegion": _region(edit.span), "insertedContent": {"text": edit.content}}


def _result(item: Located, rule_index: dict[str, int]) -> dict[str, Any]:
    f = item.finding
    out: dict[str, Any] = {
        "ruleId": f.code,
        "level": LEVELS[f.severity],
        "message": {"text": f.message},
        "locations": [_location(item.filename, f.span, item.cell, item.file_lines)],
    }
    if f.code in rule_index:
        out["ruleIndex"] = rule_index[f.code]
    if item.related:
        out["relatedLocations"] = [
            {"id": i, **_location(p.filename, p.related.span, p.cell), "message": {"text": p.related.message}}
            for i, p in enumerate(item.related, start=1)
        ]
    if f.fixes and item.cell is None:  # a notebook's cell rows are not rows of the .ipynb artifact
        out["fixes"] = [
            {"description": {"text": fix.title},
             "properties": {"applicability": fix.applicability},
             "artifactChanges": [{"artifactLocation": _uri(item.filename),
                                  "replacements": [_replacement(e) for e in fix.edits]}]}
            for fix in f.fixes
        ]
    return out


def _rules() -> list[dict[str, Any]]:
    from hf_cache_lint.rules import ALL_RULES  # the rules load the engine: only for SARIF output

    return [
        {"id": r.code, "name": r.name,
         "shortDescription": {"text": r.summary},
         "fullDescription": {"text": r.summary},
         "help": {"text": r.full_docs(), "markdown": r.full_docs()},
         "helpUri": f"{DOCS_BASE}{r.code}.md",
         "defaultConfiguration": {"level": LEVELS[r.default_severity]}}
        for r in ALL_RULES
    ]


def sarif_log(report: Report) -> dict[str, Any]:
    rules = _rules()
    index = {r["id"]: i for i, r in enumerate(rules)}
    notifications = [
        {"level": "error", "message": {"text": e.message},
         "locations": [{"physicalLocation": {"artifactLocation": _uri(e.path)}}]}
        for e in report.errors
    ] + [
        {"level": "note", "message": {"text": n.message},
         "locations": [{"physicalLocation": {"artifactLocation": _uri(n.path)}}]}
        for n in report.notes
    ]
    cwd = Path.cwd().as_uri().rstrip("/") + "/"
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "hf-cache-lint", "version": __version__, "semanticVersion": __version__,
                                "informationUri": "https://github.com/hf-cache-lint/hf-cache-lint",
                                "rules": rules}},
            "originalUriBaseIds": {"%SRCROOT%": {"uri": cwd}},
            "columnKind": "unicodeCodePoints",
            "invocations": [{"executionSuccessful": True, "toolExecutionNotifications": notifications}],
            "results": [_result(i, index) for i in report.items],
            # Which transformers release(s) the results are for, and where that came from.
            **({"properties": {"transformersTarget": report.target}} if report.target else {}),
        }],
    }


def render(report: Report) -> str:
    return json.dumps(sarif_log(report), indent=2, ensure_ascii=False) + "\n"
