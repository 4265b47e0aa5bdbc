"""`check --fix`: apply each finding's preferred fix, re-check until stable, write the file back."""

from __future__ import annotations

import codecs
import io
import tokenize
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from hf_cache_lint.cli_support.discovery import SourceFile
from hf_cache_lint.cli_support.notebook_io import Notebook
from hf_cache_lint.engine.base.findings import Edit, Finding, Fix, Severity
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.text.text import apply_edits, decode_source, split_lines
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


Guard = Callable[[Sequence[str], int, Fix], bool]


def fix_cells(cells: Sequence[str], recheck: Recheck, notebook: bool = False, path: str = "",
              guard: Guard | None = None, unsafe: bool = False) -> tuple[list[str], int]:
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

        def accept(cell: int, finding: Finding, fix: Fix, verifier: Verifier = verifier,
                   current: list[str] = current) -> bool:
            return verifier.ok(cell, finding, fix) and (guard is None or guard(current, cell, fix))

        new, applied = fix_pass(current, items, accept, notebook, own_newlines, prime=verifier.prime, unsafe=unsafe)
        if new == current:
            break
        current, total = new, total + len(applied)
    return current, total


def _encoding(data: bytes) -> str:
    if data.startswith(codecs.BOM_UTF8):
        return "utf-8-sig"
    return tokenize.detect_encoding(io.BytesIO(data).readline)[0]


def _recheck(make: Callable[[str, Settings | None, Context | None], Recheck], display: str, settings: Settings,
             context: Context) -> tuple[Recheck, Guard | None]:
    """The file checked again at the target; for a range target, at each of its releases, merged (a fix then
    comes only when it is the same at every release where its finding fails), with a guard that refuses a fix
    writing what some admitted release rejects (`cache=` for a 5.24-only hint, on a range reaching 4.x)."""
    plan = context.plan
    if plan is None or not plan.is_range:
        return make(display, settings, context), None
    from hf_cache_lint.checking.across import merge

    rechecks = [(t, make(display, settings, replace(context, target=t))) for t in plan.releases]
    seen: dict[tuple[str, ...], Sequence[tuple[int, Finding]]] = {}

    def recheck(cells: Sequence[str]) -> Sequence[tuple[int, Finding]]:
        key = tuple(cells)
        if key not in seen:
            seen.clear()  # one text at a time is asked about again (before each of its fixes)
            seen[key] = merge([(t, r(cells)) for t, r in rechecks], plan.admits())
        return seen[key]

    def guard(cells: Sequence[str], cell: int, fix: Fix) -> bool:
        old = cells[cell]
        new = apply_edits(old, fix.edits)
        before = _failing(old, cell, recheck(cells))
        after_cells = list(cells)
        after_cells[cell] = new
        # A failing finding the fix brings, on text the old cell did not hold: the fix wrote it.
        return all(text in old for _, text in _failing(new, cell, merge([(t, r(after_cells)) for t, r in rechecks],
                                                                        plan.admits())) - before)

    return recheck, guard


def _failing(text: str, cell: int, items: Sequence[tuple[int, Finding]]) -> set[tuple[str, str]]:
    """(code, the text under its first line) of each Error or Warning finding in `cell`."""
    lines = split_lines(text)
    out: set[tuple[str, str]] = set()
    for c, f in items:
        if c == cell and f.severity in (Severity.ERROR, Severity.WARNING) and f.span.start.line <= len(lines):
            line = lines[f.span.start.line - 1]
            end = f.span.end.column if f.span.end.line == f.span.start.line else len(line)
            out.add((f.code, line[f.span.start.column:end]))
    return out


def fix_python(source: SourceFile, settings: Settings, context: Context, unsafe: bool = False,
               dry_run: bool = False) -> FixOutcome:
    data = source.path.read_bytes()
    text = decode_source(data)
    recheck, guard = _recheck(file_recheck, source.display, settings, context)
    (new,), fixed = fix_cells([text], recheck, path=source.display, guard=guard, unsafe=unsafe)
    if fixed and not dry_run:
        source.path.write_bytes(new.encode(_encoding(data)))
    return FixOutcome(fixed, before=text, after=new)


def fix_notebook(source: SourceFile, settings: Settings, context: Context, unsafe: bool = False,
                 dry_run: bool = False) -> FixOutcome:
    """Fix the code cells as one module (cell order), writing back only the changed cells' sources."""
    data = source.path.read_bytes()
    text = decode_source(data)
    nb = Notebook.parse(text)
    recheck, guard = _recheck(notebook_recheck, source.display, settings, context)
    cells, total = fix_cells(list(nb.code_sources()), recheck, notebook=True, path=source.display, guard=guard,
                             unsafe=unsafe)
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
