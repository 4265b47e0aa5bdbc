"""Fixes are verified before they are offered or written, as Ruff does: the fixed text must parse, and
checking it again must no longer report the finding at that place. A fix that fails is dropped and
logged, never applied. Also the one chooser of non-overlapping fixes that `--fix` and fixAll share.

This is orchestration, not analysis: it runs checks, so it sits above engine/ and rules/ (engine/ knows
no rules); the CLI (JSON/SARIF `fixes`, `--fix`) and the language server (code actions, fixAll) call it.

A "source" here is a list of cells: a file is one cell; a notebook's code cells are checked as one
module and its findings (and their fixes) are in the coordinates of one cell.
"""

from __future__ import annotations

import ast
import itertools
import logging
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from pathlib import Path

from hf_cache_lint.engine.context import Context
from hf_cache_lint.engine.findings import CheckResult, Edit, Finding, Fix
from hf_cache_lint.engine.notebook import join_cells, neutralise_magics, read_ipynb, split_findings
from hf_cache_lint.engine.suppress import is_suppressed, suppressions
from hf_cache_lint.engine.text import UndecodableError, apply_edits, decode_source, line_starts
from hf_cache_lint.settings import Settings

log = logging.getLogger("hf_cache_lint")

# cells -> every finding as (cell index, finding in that cell's coordinates)
Recheck = Callable[[Sequence[str]], Sequence[tuple[int, Finding]]]


# checking/ is imported when a check runs, not with this module: the language server imports this at
# start and keeps the engine's import cost off the handshake (lsp/documents.py warm_up).

def file_recheck(path: str, settings: Settings | None, context: Context | None, key: str | None = None) -> Recheck:
    """Check a one-cell source (a .py file) again, as the CLI and the server check it.

    `key`: keep a parse tree under this key and re-parse only what changed (the texts of one document's
    fixes differ by a few characters; parsing is most of a check). The server passes one per document."""

    def recheck(cells: Sequence[str]) -> list[tuple[int, Finding]]:
        from hf_cache_lint.checking.source import check_source

        return [(0, f) for f in check_source(cells[0], path, settings, context, incremental=key or False).findings]

    return recheck


def notebook_recheck(path: str, settings: Settings | None, context: Context | None,
                     key: str | None = None) -> Recheck:
    def recheck(cells: Sequence[str]) -> list[tuple[int, Finding]]:
        from hf_cache_lint.checking.notebooks import check_cells

        return check_cells(cells, path, settings, context, incremental=key or False)

    return recheck


# -- does it parse ------------------------------------------------------------------------------

def python_cell(cell: str) -> bool:
    """Whether a notebook cell is Python: a cell magic (`%%bash`, `%%writefile`) makes it something else."""
    for line in cell.splitlines():
        if line.strip():
            return not line.lstrip().startswith("%%")
    return True


def compiles(text: str, notebook: bool = False) -> bool:
    """CPython's own compiler accepts `text` (a notebook cell: magics as comments, top-level await allowed).

    Compiled to bytecode, not only parsed: `await` or `return` outside a function are compiler errors.
    Compiling runs nothing."""
    flags = 0
    if notebook:
        text = neutralise_magics(text.replace("\r\n", "\n"))
        flags |= ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
    try:
        with warnings.catch_warnings():  # e.g. "invalid escape sequence": not ours to report
            warnings.simplefilter("ignore")
            compile(text, "<fixed>", "exec", flags=flags, dont_inherit=True)
    except (SyntaxError, ValueError, OverflowError, RecursionError, MemoryError):
        return False
    return True


def _parso_errors(text: str) -> list[tuple[str, int]]:
    """(message, offset) of every syntax error parso's error-recovering parser finds."""
    import parso

    grammar = parso.load_grammar()  # type: ignore[attr-defined]
    starts = line_starts(text)
    out = []
    for err in grammar.iter_errors(grammar.parse(text, error_recovery=True)):
        line, column = err.start_pos
        out.append((str(err.message), starts[min(line, len(starts)) - 1] + column))
    return out


def still_parses(old: str, new: str, edits: Sequence[tuple[int, int, int]], notebook: bool = False) -> bool:
    """The fixed cell parses; when the original already did not (a line being typed elsewhere), the fix
    must add no syntax error: none inside what it wrote, and no message more often than before."""
    if compiles(new, notebook):
        return True
    if compiles(old, notebook):
        return False
    before = [m for m, _ in _parso_errors(old)]
    for message, at in _parso_errors(new):
        if any(start <= at <= start + length for _, start, length in _new_ranges(edits)):
            return False
        if message not in before:
            return False
        before.remove(message)
    return True


# -- positions through the edits ----------------------------------------------------------------

def _offsets(text: str, edits: Iterable[Edit]) -> list[tuple[int, int, int]] | None:
    """Each edit as (old start, old end, new length) in text offsets, sorted; None if one does not fit."""
    starts = line_starts(text)
    out = []
    for e in edits:
        a, b = e.span.start, e.span.end
        if not (1 <= a.line <= len(starts) and 1 <= b.line <= len(starts)) or a > b:
            return None
        offs = []
        for p in (a, b):
            line_end = starts[p.line] if p.line < len(starts) else len(text)
            body = text[starts[p.line - 1]:line_end].rstrip("\r\n")
            if not 0 <= p.column <= len(body):
                return None
            offs.append(starts[p.line - 1] + p.column)
        out.append((offs[0], offs[1], len(e.content)))
    out.sort()
    if any(x[1] > y[0] for x, y in itertools.pairwise(out)):
        return None  # a fix whose own edits overlap
    return out


def _new_ranges(edits: Sequence[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    """(old start, new start, new length) of each edit."""
    out, delta = [], 0
    for a, b, n in edits:
        out.append((a, a + delta, n))
        delta += n - (b - a)
    return out


def _back(edits: Sequence[tuple[int, int, int]], q: int) -> tuple[int, int]:
    """A new-text offset as the old-text offsets it may stand for: itself shifted back, or the whole
    old range of the edit whose new text holds it (its ends included)."""
    delta = 0
    for a, b, n in edits:
        start = a + delta
        if q < start:
            return q - delta, q - delta
        if q <= start + n:
            return a, b
        delta += n - (b - a)
    return q - delta, q - delta


def _same_place(old: str, new: str, edits: Sequence[tuple[int, int, int]], was: Finding, now: Finding) -> bool:
    """Whether `now` (a finding in the fixed text) is `was` (one in the original) again."""
    if now.code != was.code:
        return False
    so, sn = line_starts(old), line_starts(new)

    def off(starts: list[int], line: int, column: int) -> int:
        return starts[min(line, len(starts)) - 1] + column

    lo, hi = _back(edits, off(sn, now.span.start.line, now.span.start.column))
    lo2, hi2 = _back(edits, off(sn, now.span.end.line, now.span.end.column))
    start, end = off(so, was.span.start.line, was.span.start.column), off(so, was.span.end.line, was.span.end.column)
    return lo <= start <= hi and lo2 <= end <= hi2


# -- verification ---------------------------------------------------------------------------------

class Verifier:
    """Verifies fixes on one source (a snapshot of its cells), remembering each answer.

    Build one per document version: the language server keeps it until the text changes, so a code
    action request verifies only fixes it has not verified before.
    """

    def __init__(self, cells: Sequence[str], recheck: Recheck, notebook: bool = False, path: str = "") -> None:
        self.cells = tuple(cells)
        self.recheck = recheck
        self.notebook = notebook
        self.path = path
        self._answers: dict[tuple[int, Finding, Fix], str | None] = {}
        self.checked = 0  # fixes verified (not answered from memory), for tests and benchmarks

    def problem(self, cell: int, finding: Finding, fix: Fix) -> str | None:
        """Why this fix must not be applied, or None when it is safe."""
        key = (cell, finding, fix)
        if key not in self._answers:
            self.checked += 1
            try:
                self._answers[key] = self._problem(cell, finding, fix)
            except (RecursionError, MemoryError):
                self._answers[key] = "the fixed text is too deeply nested to check"
            except Exception as exc:  # a failing re-check must not take the file's findings down with it
                log.debug("verifying %r failed", fix.title, exc_info=True)
                self._answers[key] = f"it could not be verified ({type(exc).__name__}: {exc})"
            reason = self._answers[key]
            if reason is not None:
                where = f"{self.path}:{finding.span.start.line}" + (f" (cell {cell + 1})" if self.notebook else "")
                log.warning("dropped fix %r of %s at %s: %s", fix.title, finding.code, where, reason)
        return self._answers[key]

    def ok(self, cell: int, finding: Finding, fix: Fix) -> bool:
        return self.problem(cell, finding, fix) is None

    def _problem(self, cell: int, finding: Finding, fix: Fix) -> str | None:
        if not 0 <= cell < len(self.cells):
            return "its cell is gone"
        old = self.cells[cell]
        edits = _offsets(old, fix.edits)
        if edits is None:
            return "its edits do not fit the text"
        new = apply_edits(old, fix.edits)
        if new == old:
            return "it changes nothing"
        if self.notebook and not python_cell(new):
            return "the cell is not Python"
        if not still_parses(old, new, edits, self.notebook):
            return "the fixed code does not parse"
        # An ignore comment: the check drops any finding of this code on that line, no need to run it.
        same_lines = all(e.span.start.line == e.span.end.line and "\n" not in e.content and "\r" not in e.content
                         for e in fix.edits)
        if same_lines and is_suppressed(finding, suppressions(new)) and not is_suppressed(finding, suppressions(old)):
            return None
        cells = list(self.cells)
        cells[cell] = new
        for c, now in self.recheck(cells):
            if c == cell and _same_place(old, new, edits, finding, now):
                return "the finding is still reported after the fix"
        return None

    def keep(self, cell: int, finding: Finding, *, preferred_only: bool = False) -> Finding:
        """`finding` with only its verified fixes (with `preferred_only`, the others are not verified but dropped)."""
        fixes = tuple(f for f in finding.fixes if (f.preferred or not preferred_only) and self.ok(cell, finding, f))
        return finding if len(fixes) == len(finding.fixes) else replace(finding, fixes=fixes)


def verified(cells: Sequence[str], items: Sequence[tuple[int, Finding]], recheck: Recheck,
             notebook: bool = False, path: str = "") -> list[tuple[int, Finding]]:
    """`items` with every fix that fails verification dropped."""
    verifier = Verifier(cells, recheck, notebook, path)
    return [(c, verifier.keep(c, f)) for c, f in items]


def verify_result(result: CheckResult, path: Path, settings: Settings | None, context: Context | None) -> CheckResult:
    """A CLI result (from checking.files.check_file) with only the fixes that pass verification."""
    if result.error is not None or not any(f.fixes for f in result.findings):
        return result
    try:
        text = decode_source(path.read_bytes())
        if path.suffix == ".ipynb":
            cells = read_ipynb(text)
            joined = join_cells(cells)
            items = split_findings(result.findings, joined)
            recheck = notebook_recheck(result.path, settings, context)
            notebook = True
        else:
            cells, items, notebook = [text], [(0, f) for f in result.findings], False
            recheck = file_recheck(result.path, settings, context)
    except (OSError, UndecodableError, ValueError):  # it changed under us: offer no fix rather than a wrong one
        return replace(result, findings=tuple(replace(f, fixes=()) for f in result.findings))
    verifier = Verifier(cells, recheck, notebook, result.path)
    findings = []
    for f, (cell, moved) in zip(result.findings, items, strict=True):
        ok = {x.title for x in verifier.keep(cell, moved).fixes}
        findings.append(replace(f, fixes=tuple(x for x in f.fixes if x.title in ok)))
    return replace(result, findings=tuple(findings))


# -- choosing fixes that can be applied together ------------------------------------------------

def conflicts(a: Edit, b: Edit) -> bool:
    """Whether two edits overlap or touch.

    Touching counts: two insertions at one point, or an insertion where a replacement ends, combine in
    an order neither fix was verified with (`f(a` + `, x=None` + `)`-side edits); only edits with text
    between them are applied together. The later fix waits for the next `--fix` pass (or fixAll run).
    """
    return a.span.start <= b.span.end and b.span.start <= a.span.end


def choose(candidates: Iterable[tuple[int, Finding, Fix]],
           accept: Callable[[int, Finding, Fix], bool] = lambda c, f, x: True) -> list[tuple[int, Finding, Fix]]:
    """In order, the fixes whose edits conflict with none already taken in their cell and that `accept`
    (verification, asked only for fixes that would be taken). The CLI's `--fix` and the server's fixAll
    both choose with this."""
    taken: list[tuple[int, Finding, Fix]] = []
    for cell, finding, fix in candidates:
        if not fix.edits:
            continue
        if any(c == cell and conflicts(e, t) for c, _, other in taken for e in fix.edits for t in other.edits):
            continue
        if accept(cell, finding, fix):
            taken.append((cell, finding, fix))
    return taken


def preferred(items: Iterable[tuple[int, Finding]], unsafe: bool = False) -> list[tuple[int, Finding, Fix]]:
    """Each finding's preferred fix, in finding order (Errors first, as `--fix` should settle them first); a
    fix marked unsafe only with `unsafe` (`--unsafe-fixes`; fixAll never)."""
    rank = {"error": 0, "warning": 1, "info": 2, "hint": 3}
    ordered = sorted(items, key=lambda it: rank.get(it[1].severity.value, 4))
    return [(c, f, fix) for c, f in ordered for fix in f.fixes if fix.preferred and (unsafe or fix.safe)]


def fix_pass(cells: Sequence[str], items: Iterable[tuple[int, Finding]], accept: Callable[[int, Finding, Fix], bool],
             notebook: bool = False, adapt: Callable[[int, Fix], Fix] | None = None, unsafe: bool = False,
             ) -> tuple[list[str], list[tuple[int, Finding, Fix]]]:
    """One round of fixing: `--fix` runs one per pass, fixAll one per request, so both pick the same edits.

    Each finding's preferred fix (Errors first; `adapt` may rewrite it, e.g. into the file's newline style)
    is taken when it conflicts with no fix taken before it (touching edits conflict: `conflicts`) and
    `accept` verifies it; the taken fixes are applied together (`apply_chosen`). Returns the new cells and
    the fixes applied."""
    candidates = preferred(items, unsafe)
    if adapt is not None:
        candidates = [(c, f, adapt(c, x)) for c, f, x in candidates]
    return apply_chosen(cells, choose(candidates, accept), notebook)


def apply_chosen(cells: Sequence[str], chosen: Sequence[tuple[int, Finding, Fix]],
                 notebook: bool = False) -> tuple[list[str], list[tuple[int, Finding, Fix]]]:
    """The cells with the chosen fixes applied, and the fixes that were. Each fix was verified alone; if
    a cell's combination does not parse, only that cell's first fix is applied."""
    out = list(cells)
    applied: list[tuple[int, Finding, Fix]] = []
    for cell in sorted({c for c, _, _ in chosen}):
        mine = [x for x in chosen if x[0] == cell]
        edits = [e for _, _, fix in mine for e in fix.edits]
        new = apply_edits(cells[cell], edits)
        offs = _offsets(cells[cell], edits)
        if len(mine) > 1 and (offs is None or not still_parses(cells[cell], new, offs, notebook)):
            log.warning("fixes in %s do not parse together; applying one", f"cell {cell + 1}" if notebook else "file")
            mine = mine[:1]
            new = apply_edits(cells[cell], mine[0][2].edits)
        out[cell] = new
        applied.extend(mine)
    return out, applied

