"""`check --fix`: apply each finding's preferred fix, re-check until stable, write the file back."""

from __future__ import annotations

import codecs
import io
import tokenize
from collections.abc import Sequence
from dataclasses import dataclass, replace

from hf_cache_lint.cli_support.discovery import SourceFile
from hf_cache_lint.cli_support.notebook_io import Notebook
from hf_cache_lint.engine.context import Context
from hf_cache_lint.engine.findings import Edit, Fix
from hf_cache_lint.engine.text import decode_source
from hf_cache_lint.fixcheck import Recheck, Verifier, file_recheck, fix_pass, notebook_recheck
from hf_cache_lint.settings import Settings

# A fix can enable or reveal another; Ruff loops up to 100 times, a handful is plenty for our rules.
MAX_PASSES = 8


@dataclass(frozen=True)
class FixOutcome:
    """How many fixes were applied to one file, or why it could not be written."""

    fixed: int
    error: str | None = None
    # The file's text before and after (`--diff` prints them; equal when nothing was fixed).
    before: str = ""
    after: str = ""


def newline_of(text: str) -> str:
    """The file's newline style (the first one found), so fixes do not mix styles."""
    for i, c in enumerate(text):
        if c == "\n":
            return "\n"
        if c == "\r":
            return "\r\n" if text[i + 1:i + 2] == "\n" else "\r"
    return "\n"


def with_newline(fix: Fix, newline: str) -> Fix:
    """A fix whose inserted line breaks are the file's own."""
    if newline == "\n" or not any("\n" in e.content for e in fix.edits):
        return fix
    return replace(fix, edits=tuple(Edit(e.span, e.content.replace("\r\n", "\n").replace("\n", newline))
                                    for e in fix.edits))


def fix_cells(cells: Sequence[str], recheck: Recheck, notebook: bool = False, path: str = "",
              unsafe: bool = False) -> tuple[list[str], int]:
    """The cells with preferred fixes applied pass after pass until nothing changes; and how many.

    Each pass checks the text, takes the preferred fixes in order (Errors first) that pass verification
    (fixcheck: the result parses and the finding is gone) and do not conflict with one already taken,
    and applies them together: one `fixcheck.fix_pass`, the round fixAll runs too.
    """
    current = list(cells)
    total = 0
    for _ in range(MAX_PASSES):
        items = recheck(current)
        newlines = [newline_of(c) for c in current]

        def own_newlines(cell: int, fix: Fix, newlines: list[str] = newlines) -> Fix:
            return with_newline(fix, newlines[cell])

        verifier = Verifier(current, recheck, notebook, path)
        new, applied = fix_pass(current, items, verifier.ok, notebook, own_newlines, unsafe)
        if new == current:
            break
        current, total = new, total + len(applied)
    return current, total


def _encoding(data: bytes) -> str:
    if data.startswith(codecs.BOM_UTF8):
        return "utf-8-sig"
    return tokenize.detect_encoding(io.BytesIO(data).readline)[0]


def fix_python(source: SourceFile, settings: Settings, context: Context, unsafe: bool = False,
               dry_run: bool = False) -> FixOutcome:
    data = source.path.read_bytes()
    text = decode_source(data)
    (new,), fixed = fix_cells([text], file_recheck(source.display, settings, context), path=source.display,
                              unsafe=unsafe)
    if fixed and not dry_run:
        source.path.write_bytes(new.encode(_encoding(data)))
    return FixOutcome(fixed, before=text, after=new)


def fix_notebook(source: SourceFile, settings: Settings, context: Context, unsafe: bool = False,
                 dry_run: bool = False) -> FixOutcome:
    """Fix the code cells as one module (cell order), writing back only the changed cells' sources."""
    data = source.path.read_bytes()
    text = decode_source(data)
    nb = Notebook.parse(text)
    cells, total = fix_cells(list(nb.code_sources()), notebook_recheck(source.display, settings, context),
                             notebook=True, path=source.display, unsafe=unsafe)
    new = nb.with_code_sources(cells) if total else text
    if total and not dry_run:
        bom = codecs.BOM_UTF8 if data.startswith(codecs.BOM_UTF8) else b""
        source.path.write_bytes(bom + new.encode("utf-8"))
    return FixOutcome(total, before=text, after=new)


def fix_file(source: SourceFile, settings: Settings, context: Context, unsafe: bool = False,
             dry_run: bool = False) -> FixOutcome:
    """Apply the safe fixes (with `unsafe`, the unsafe ones too) to one file; any failure is reported for the
    file, never raised. `dry_run` (`--diff`): work the new text out, write nothing."""
    try:
        if source.is_notebook:
            return fix_notebook(source, settings, context, unsafe, dry_run)
        return fix_python(source, settings, context, unsafe, dry_run)
    except OSError as exc:
        return FixOutcome(0, f"cannot write fixes: {exc.strerror or exc}")
    except (ValueError, RecursionError) as exc:
        return FixOutcome(0, f"cannot fix: {exc}")
