"""`check --fix`: apply each finding's preferred fix, re-check until stable, write the file back."""

from __future__ import annotations

import codecs
import io
import tokenize
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from hf_cache_lint.cli_support.discovery import SourceFile
from hf_cache_lint.cli_support.notebook_io import Notebook
from hf_cache_lint.engine.api import check_cells, check_source
from hf_cache_lint.engine.context import Context
from hf_cache_lint.engine.findings import Edit, Finding
from hf_cache_lint.engine.text import apply_edits, decode_source
from hf_cache_lint.settings import Settings

# A fix can enable or reveal another; Ruff loops up to 100 times, a handful is plenty for our rules.
MAX_PASSES = 8


@dataclass(frozen=True)
class FixOutcome:
    """How many fixes were applied to one file, or why it could not be written."""

    fixed: int
    error: str | None = None


def newline_of(text: str) -> str:
    """The file's newline style (the first one found), so fixes do not mix styles."""
    for i, c in enumerate(text):
        if c == "\n":
            return "\n"
        if c == "\r":
            return "\r\n" if text[i + 1:i + 2] == "\n" else "\r"
    return "\n"


def _overlaps(a: Edit, b: Edit) -> bool:
    if a.span.start == a.span.end and b.span.start == b.span.end:
        return a.span.start == b.span.start  # two insertions at one point: order would be a guess
    return (a.span.start < b.span.end and b.span.start < a.span.end) or a.span == b.span


def choose_edits(findings: Iterable[Finding], newline: str) -> tuple[list[Edit], int]:
    """The preferred fixes' edits that do not overlap (the rest wait for the next pass), and how many fixes."""
    chosen: list[Edit] = []
    count = 0
    for f in findings:
        fix = next((x for x in f.fixes if x.preferred), None)
        if fix is None or not fix.edits:
            continue
        edits = [Edit(e.span, e.content.replace("\r\n", "\n").replace("\n", newline)) for e in fix.edits]
        if any(_overlaps(e, c) for e in edits for c in chosen):
            continue
        chosen.extend(edits)
        count += 1
    return chosen, count


def fix_text(text: str, check: Callable[[str], Sequence[Finding]]) -> tuple[str, int]:
    """`text` with preferred fixes applied pass after pass until nothing changes; and the count."""
    total = 0
    newline = newline_of(text)
    for _ in range(MAX_PASSES):
        edits, count = choose_edits(check(text), newline)
        if not edits:
            break
        new = apply_edits(text, edits)
        if new == text:
            break
        text, total = new, total + count
    return text, total


def _encoding(data: bytes) -> str:
    if data.startswith(codecs.BOM_UTF8):
        return "utf-8-sig"
    return tokenize.detect_encoding(io.BytesIO(data).readline)[0]


def fix_python(source: SourceFile, settings: Settings, context: Context) -> FixOutcome:
    data = source.path.read_bytes()
    text = decode_source(data)
    new, fixed = fix_text(text, lambda t: check_source(t, source.display, settings, context).findings)
    if fixed:
        source.path.write_bytes(new.encode(_encoding(data)))
    return FixOutcome(fixed)


def fix_notebook(source: SourceFile, settings: Settings, context: Context) -> FixOutcome:
    """Fix the code cells as one module (cell order), writing back only their sources."""
    nb = Notebook.parse(decode_source(source.path.read_bytes()))
    cells = list(nb.code_sources())
    total = 0
    for _ in range(MAX_PASSES):
        per_cell: dict[int, list[Finding]] = {}
        for index, finding in check_cells(cells, source.display, settings, context):
            per_cell.setdefault(index, []).append(finding)
        changed = 0
        for index, findings in per_cell.items():
            edits, count = choose_edits(findings, newline_of(cells[index]))
            new = apply_edits(cells[index], edits) if edits else cells[index]
            if new != cells[index]:
                cells[index], changed = new, changed + count
        if not changed:
            break
        total += changed
    if total:
        source.path.write_bytes(nb.with_code_sources(cells).encode("utf-8"))
    return FixOutcome(total)


def fix_file(source: SourceFile, settings: Settings, context: Context) -> FixOutcome:
    """Apply fixes to one file; any failure is reported for the file, never raised."""
    try:
        if source.is_notebook:
            return fix_notebook(source, settings, context)
        return fix_python(source, settings, context)
    except OSError as exc:
        return FixOutcome(0, f"cannot write fixes: {exc.strerror or exc}")
    except (ValueError, RecursionError) as exc:
        return FixOutcome(0, f"cannot fix: {exc}")
