"""`--output-format json-lines`: each item of the JSON format as one line (Ruff's json-lines), for streaming."""

from __future__ import annotations

import json

from hf_cache_lint.cli_support.formats.json_format import items
from hf_cache_lint.cli_support.report import Report


def render(report: Report) -> str:
    return "".join(json.dumps(item, ensure_ascii=False) + "\n" for item in items(report))
