"""`--output-format gitlab`: a GitLab Code Quality report (a JSON array; GitLab's `codequality` artifact).

Each issue has `description`, `check_name`, `fingerprint` (stable across runs: the code, file, message and the
issue's rank among identical ones, not its line, so an edit above it does not make it "new"), `severity`
(`major` for errors, `minor` for warnings, `info` below) and `location` (path and 1-based lines; a notebook's
lines are those of the .ipynb file where known, the cell named in the description). Ruff writes the same shape.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from typing import Any

from hf_cache_lint.cli_support.report import Report
from hf_cache_lint.engine.base.findings import Severity

SEVERITY = {Severity.ERROR: "major", Severity.WARNING: "minor", Severity.INFO: "info", Severity.HINT: "info"}


def _fingerprint(*parts: object) -> str:
    # surrogateescape: a file name that is not UTF-8 hashes by its bytes (strict UTF-8 raised: an internal error).
    return hashlib.sha256("\0".join(map(str, parts)).encode("utf-8", "surrogateescape")).hexdigest()[:32]


def render(report: Report) -> str:
    seen: Counter[tuple[str, str, str]] = Counter()
    out: list[dict[str, Any]] = []
    for item in report.items:
        f = item.finding
        key = (f.code, item.filename, f.message)
        seen[key] += 1
        begin, end = item.file_lines or (f.span.start.line, f.span.end.line)
        cell = f" (cell {item.cell}, line {f.span.start.line})" if item.cell is not None else ""
        out.append({"description": f"{f.code} {f.message}{cell}", "check_name": f.code,
                    "fingerprint": _fingerprint(*key, seen[key]), "severity": SEVERITY[f.severity],
                    "location": {"path": item.filename, "lines": {"begin": begin, "end": end}}})
    for err in report.errors:
        out.append({"description": f"could not be checked: {err.message}", "check_name": "file-error",
                    "fingerprint": _fingerprint("file-error", err.path), "severity": "critical",
                    "location": {"path": err.path, "lines": {"begin": 1, "end": 1}}})
    return json.dumps(out, indent=2, ensure_ascii=False) + "\n"
