"""`# hf-cache-lint: ignore[CODE, ...]` and bare `# hf-cache-lint: ignore` comments."""

from __future__ import annotations

import re

from hf_cache_lint.engine.findings import Finding
from hf_cache_lint.engine.text import split_lines

_PRAGMA = re.compile(r"#\s*hf-cache-lint:\s*ignore(?:\[(?P<codes>[A-Za-z0-9_,\s]*)\])?")

ALL = frozenset({"*"})


def suppressions(text: str) -> dict[int, frozenset[str]]:
    """1-based line -> codes suppressed on it (`{"*"}` for all). Only real comments count."""
    out: dict[int, frozenset[str]] = {}
    if "hf-cache-lint" not in text:
        return out
    for i, line in enumerate(split_lines(text), start=1):  # Python's lines: a \\f does not end one
        if "#" not in line:
            continue
        m = _PRAGMA.search(line)
        if not m or _in_string(line, m.start()):
            continue
        codes = m.group("codes")
        out[i] = ALL if codes is None else frozenset(c.strip().upper() for c in codes.split(",") if c.strip())
    return out


def _in_string(line: str, index: int) -> bool:
    """Whether `index` sits inside a quoted string of this line (a good-enough tokenizer-free check)."""
    quote: str | None = None
    for ch in line[:index]:
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
    return quote is not None


def is_suppressed(finding: Finding, table: dict[int, frozenset[str]]) -> bool:
    for line in {finding.span.start.line, finding.span.end.line}:
        codes = table.get(line)
        if codes is not None and (codes is ALL or "*" in codes or finding.code in codes):
            return True
    return False


def ignore_comment(line_text: str, code: str) -> tuple[int, str]:
    """Where to put an ignore comment for `code` on a line, and what to insert (column, text)."""
    m = _PRAGMA.search(line_text)
    if m and m.group("codes") is not None:
        end = m.end("codes")
        existing = m.group("codes").strip()
        return end, (", " if existing else "") + code
    stripped = line_text.rstrip()
    return len(stripped), f"  # hf-cache-lint: ignore[{code}]"
