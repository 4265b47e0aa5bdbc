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
import bisect
import itertools
import logging
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TypeVar

from hf_cache_lint.engine.base.findings import CheckResult, Edit, Finding, Fix, Span
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.output.suppress import Directive, Suppressions, is_suppressed, suppressions
from hf_cache_lint.engine.text.notebook import join_cells, neutralise_magics, read_ipynb, split_findings
from hf_cache_lint.engine.text.text import UndecodableError, apply_edits, decode_source, line_starts
from hf_cache_lint.settings import Settings

log = logging.getLogger("hf_cache_lint")

T = TypeVar("T", int, tuple[int, int])  # an offset, or a (line, column) position

# cells -> every finding as (cell index, finding in that cell's coordinates)
Recheck = Callable[[Sequence[str]], Sequence[tuple[int, Finding]]]


# checking/ is imported when a check runs, not with this module: the language server imports this at
# start and keeps the engine's import cost off the handshake (lsp/documents.py warm_up).

def file_recheck(path: str, settings: Settings | None, context: Context | None, key: str | None = None,
                 kept: str | None = None) -> Recheck:
    """Check a one-cell source (a .py file) again, as the CLI and the server check it.

    `key`: keep a parse tree under this key and re-parse only what changed (the texts of one document's
    fixes differ by a few characters; parsing is most of a check). The server passes one per document.
    `kept`: the text whose tree may be kept under `key` already (the file's first check: `recheck_key`)."""
    keyed = _Keyed(key, kept)

    # Without the gate (engine/screen/gate.py): the text held a finding a moment ago, so the gate's compile and
    # `ast.parse` would only say to go on (a quarter of each re-check of a 200-function module; the verdicts
    # are the same either way: tests/engine/test_gate.py runs every example both ways).
    def recheck(cells: Sequence[str]) -> list[tuple[int, Finding]]:
        from hf_cache_lint.checking.source import check_source

        return [(0, f) for f in check_source(cells[0], path, settings, context, incremental=keyed(cells[0]),
                                             use_gate=False).findings]

    return recheck


def notebook_recheck(path: str, settings: Settings | None, context: Context | None,
                     key: str | None = None) -> Recheck:
    keyed = _Keyed(key)

    def recheck(cells: Sequence[str]) -> list[tuple[int, Finding]]:
        from hf_cache_lint.checking.notebooks import check_cells

        return check_cells(cells, path, settings, context, incremental=keyed("\n".join(cells)))

    return recheck


class _Keyed:
    """Whether a re-check parses under its key (re-parsing what changed since the text last parsed there) or
    afresh: afresh when the change spans more than a fifth of the text (the fixes of a module's every
    finding at once, `Verifier.prime`), where parso's diff parser costs more than a whole parse (a module of
    200 functions: 5.3-5.5 s against 3.9-5.0 s for its CLI check). The kept tree stays that of the last
    keyed text, the one the next diff starts from."""

    def __init__(self, key: str | None, last: str | None = None) -> None:
        self.key = key
        self.last = last  # the text of the tree kept under the key, if any

    def __call__(self, text: str) -> str | bool:
        if not self.key:
            return False
        if self.last is not None and 5 * _changed(self.last, text) > len(text):
            return False
        self.last = text
        return self.key


def _changed(old: str, new: str) -> int:
    """How many characters of `new` lie between its common head and tail with `old` (found by halving:
    each probe one C-level comparison)."""
    most = min(len(old), len(new))
    lo, hi = 0, most
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if new.startswith(old[:mid]):
            lo = mid
        else:
            hi = mid - 1
    head, lo, hi = lo, 0, most - lo
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if new.endswith(old[len(old) - mid:]):
            lo = mid
        else:
            hi = mid - 1
    return len(new) - head - lo


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

def _offsets(text: str, edits: Iterable[Edit], starts: list[int] | None = None) -> list[tuple[int, int, int]] | None:
    """Each edit as (old start, old end, new length) in text offsets, sorted; None if one does not fit.
    `starts`: the text's line starts when the caller has them (many fixes of one text: no copy each)."""
    if starts is None:
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


def _located(text: str, edits: Sequence[Edit], starts: list[int] | None = None) -> tuple[tuple[int, int, str], ...] | None:
    """The edits as (start, end, content) offsets sorted by place (`_splice`'s input), or None when they do not
    fit the text or overlap (`_offsets`). Insertions at one point end up as `apply_edits` puts them (the later
    one first)."""
    if starts is None:
        starts = line_starts(text)
    if _offsets(text, edits, starts) is None:
        return None
    placed = sorted(((starts[e.span.start.line - 1] + e.span.start.column,
                      starts[e.span.end.line - 1] + e.span.end.column, -i, e.content) for i, e in enumerate(edits)))
    return tuple((a, b, content) for a, b, _, content in placed)


def _splice(text: str, edits: Sequence[tuple[int, int, str]]) -> str:
    """`text` with (start, end, content) edits, sorted and not overlapping, applied in one pass (apply_edits
    copies the whole text once per edit: quadratic for the hundreds of fixes of a large module)."""
    pieces: list[str] = []
    at = 0
    for a, b, content in edits:
        pieces += (text[at:a], content)
        at = b
    pieces.append(text[at:])
    return "".join(pieces)


def _new_ranges(edits: Sequence[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    """(old start, new start, new length) of each edit."""
    out, delta = [], 0
    for a, b, n in edits:
        out.append((a, a + delta, n))
        delta += n - (b - a)
    return out


class _Moved:
    """Positions of a fixed text taken back to the original: which finding of a re-check is one of before.

    Line starts are worked out once per text, and each position is found by bisection among the edits, so
    matching the findings of a re-check of many fixes at once stays linear (give or take a log)."""

    def __init__(self, old: str, new: str, edits: Sequence[tuple[int, int, int]]) -> None:
        self.old_starts, self.new_starts = line_starts(old), line_starts(new)
        self.edits = edits
        self.ends: list[int] = []  # new-text end of each edit's new text (non-decreasing)
        self.deltas: list[int] = []  # new minus old offset before each edit
        delta = 0
        for a, b, n in edits:
            self.deltas.append(delta)
            self.ends.append(a + delta + n)
            delta += n - (b - a)
        self.delta = delta

    def back(self, q: int) -> tuple[int, int]:
        """A new-text offset as the old-text offsets it may stand for: itself shifted back, or the whole
        old range of the edit whose new text holds it (its ends included; the first such edit)."""
        i = bisect.bisect_left(self.ends, q)
        if i == len(self.edits):
            return q - self.delta, q - self.delta
        a, b, _ = self.edits[i]
        if q < a + self.deltas[i]:
            return q - self.deltas[i], q - self.deltas[i]
        return a, b

    @staticmethod
    def _off(starts: list[int], line: int, column: int) -> int:
        return starts[min(line, len(starts)) - 1] + column

    def old_span(self, f: Finding) -> tuple[int, int]:
        return (self._off(self.old_starts, f.span.start.line, f.span.start.column),
                self._off(self.old_starts, f.span.end.line, f.span.end.column))

    def places(self, found: Iterable[Finding]) -> _Places:
        """Where the findings of the fixed text stand in the original."""
        places = _Places()
        for now in found:
            lo, hi = self.back(self._off(self.new_starts, now.span.start.line, now.span.start.column))
            lo2, hi2 = self.back(self._off(self.new_starts, now.span.end.line, now.span.end.column))
            if lo == hi and lo2 == hi2:
                places.points.add((now.code, lo, lo2))
            else:
                places.ranges.setdefault(now.code, []).append((lo, hi, lo2, hi2))
        return places


class _Places:
    """Findings of a fixed text in the original's offsets: a point where outside every edit, a range where
    inside one."""

    def __init__(self) -> None:
        self.points: set[tuple[str, int, int]] = set()
        self.ranges: dict[str, list[tuple[int, int, int, int]]] = {}

    def holds(self, code: str, start: int, end: int) -> bool:
        """Whether a finding of `code` at [start, end) of the original is reported again."""
        return (code, start, end) in self.points or any(
            lo <= start <= hi and lo2 <= end <= hi2 for lo, hi, lo2, hi2 in self.ranges.get(code, ()))


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
        self.rechecks = 0  # checks of a fixed text run, for the same
        self._starts: dict[int, list[int]] = {}

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

    # -- many fixes at once --------------------------------------------------------------------------

    def prime(self, candidates: Iterable[tuple[int, Finding, Fix]]) -> None:
        """Verify many fixes with a few checks instead of one each; `problem` then answers from memory.

        Verifying each fix alone re-checks the whole source once per fix: on a module of n functions with a
        finding each, n checks of a module of size n. Here the fixes are sorted into batches in which no two
        edits of a cell overlap or touch (`conflicts`) and no finding has two fixes, each batch is applied
        at once, and the fixed text must parse and one check of it must no longer report any of the batch's
        findings where it was. A fix whose finding is still reported there is verified again alone; a
        batch whose text does not parse is halved until the fixes that break it are alone; a batch whose
        check fails falls back to each fix alone. Fixes that only add an ignore comment for their finding's
        line need no check, only their batch's parse (`_problem`'s shortcut). Fixes that fail a cheap test
        (edits that do not fit, changing nothing) are left to `problem`, which answers them without a check.
        So a module's fixes cost about as many checks as its findings have alternative fixes (three for
        HFC001's), whatever the number of findings.

        The answer for a fix found in a batch is the one its batch gave: the fix's own edits plus other
        findings' fixes that touch none of them. The language server's quick fixes for a range still verify
        each fix alone (`problem`): there are a few, and one check of a large module is the cost either way.
        """
        to_check: list[_Item] = []
        to_parse: list[_Item] = []  # ignore comments: parse only
        seen: set[tuple[int, Finding, Fix]] = set()
        for cell, finding, fix in candidates:
            key = (cell, finding, fix)
            if key in self._answers or key in seen or not 0 <= cell < len(self.cells):
                continue
            seen.add(key)
            old = self.cells[cell]
            starts = self._starts.get(cell)
            if starts is None:
                starts = self._starts[cell] = line_starts(old)
            edits = _located(old, fix.edits, starts)
            if edits is None or all(old[a:b] == content for a, b, content in edits):
                continue
            item = _Item(cell, finding, fix, edits)
            if self.notebook and not python_cell(_splice(old, edits)):
                continue
            (to_parse if self._silenced(item, starts) else to_check).append(item)
        for batch in _batched(to_check):
            self._verify_batch(batch, check=True)
        for batch in _batched(to_parse, one_fix_per_finding=False):
            self._verify_batch(batch, check=False)

    def _silenced(self, item: _Item, starts: list[int]) -> bool:
        """`_problem`'s shortcut for one fix, without building the fixed text: edits within lines only that
        add an ignore comment covering the finding's lines (comments are read line by line)."""
        if not all(e.span.start.line == e.span.end.line and "\n" not in e.content and "\r" not in e.content
                   for e in item.fix.edits):
            return False
        old = self.cells[item.cell]
        lines = {item.finding.span.start.line, item.finding.span.end.line}
        before: dict[int, tuple[Directive, ...]] = {}
        after: dict[int, tuple[Directive, ...]] = {}
        for line in lines:
            if not 1 <= line <= len(starts):
                return False
            begin = starts[line - 1]
            text = old[begin:starts[line] if line < len(starts) else len(old)].rstrip("\r\n")
            mine = [(a - begin, b - begin, content) for a, b, content in item.edits
                    if begin <= a and b <= begin + len(text)]
            for table, body in ((before, text), (after, _splice(text, mine))):
                found = suppressions(body)  # this line alone: its directives are its line 1's (or file-wide)
                if found:
                    table[line] = (*found.file, *found.lines.get(1, ()))
        return is_suppressed(item.finding, Suppressions(after)) and not is_suppressed(item.finding, Suppressions(before))

    def _verify_batch(self, batch: list[_Item], check: bool) -> None:
        if len(batch) == 1:
            self.problem(batch[0].cell, batch[0].finding, batch[0].fix)
            return
        cells = list(self.cells)
        mine: dict[int, list[tuple[int, int, str]]] = {}
        for item in batch:
            mine.setdefault(item.cell, []).extend(item.edits)
        moved: dict[int, _Moved] = {}
        try:
            for cell, listed in mine.items():
                # each shared edit once (`_batched`); stable, so a fix's own insertions at one point keep their order
                edits = sorted(dict.fromkeys(listed), key=lambda e: e[:2])
                old = self.cells[cell]
                cells[cell] = new = _splice(old, edits)
                offs = [(a, b, len(content)) for a, b, content in edits]
                if not still_parses(old, new, offs, self.notebook):
                    raise _Split
                moved[cell] = _Moved(old, new, offs)
            if check:
                self.rechecks += 1
                found: dict[int, list[Finding]] = {}
                for c, now in self.recheck(cells):
                    found.setdefault(c, []).append(now)
                places = {cell: m.places(found.get(cell, ())) for cell, m in moved.items()}
        except _Split:  # halves until the fixes that do not parse are alone
            half = len(batch) // 2
            self._verify_batch(batch[:half], check)
            self._verify_batch(batch[half:], check)
            return
        except Exception:  # a failing check (even RecursionError): each fix's own check says what failed
            log.debug("checking a batch of %d fixes failed", len(batch), exc_info=True)
            for item in batch:
                self.problem(item.cell, item.finding, item.fix)
            return
        for item in batch:
            key = (item.cell, item.finding, item.fix)
            if key in self._answers:
                continue
            if check and places[item.cell].holds(item.finding.code, *moved[item.cell].old_span(item.finding)):
                self.problem(item.cell, item.finding, item.fix)  # alone: another fix may have brought it back
            else:
                self.checked += 1
                self._answers[key] = None

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
        self.rechecks += 1
        moved = _Moved(old, new, edits)
        if moved.places(now for c, now in self.recheck(cells) if c == cell).holds(finding.code, *moved.old_span(finding)):
            return "the finding is still reported after the fix"
        return None

    def keep(self, cell: int, finding: Finding, *, preferred_only: bool = False) -> Finding:
        """`finding` with only its verified fixes (with `preferred_only`, the others are not verified but dropped)."""
        fixes = tuple(f for f in finding.fixes if (f.preferred or not preferred_only) and self.ok(cell, finding, f))
        return finding if len(fixes) == len(finding.fixes) else replace(finding, fixes=fixes)


class _Split(Exception):
    """A batch of fixes does not parse together: verify its halves."""


@dataclass(frozen=True)
class _Item:
    """A fix to verify, with its edits as sorted (start, end, content) offsets of its cell."""

    cell: int
    finding: Finding
    fix: Fix
    edits: tuple[tuple[int, int, str], ...]


def _batched(items: Sequence[_Item], one_fix_per_finding: bool = True) -> list[list[_Item]]:
    """Items in first-fit batches in which no two edits of a cell overlap or touch and (unless told
    otherwise) no finding has two fixes. Each batch keeps its edits' ranges sorted per cell, so placing an
    item costs a bisection per batch tried: the batches are few (about the most fixes a finding has)."""
    batches: list[list[_Item]] = []
    ranges: list[dict[int, list[tuple[int, int]]]] = []
    shared: list[set[tuple[int, int, int, str]]] = []  # (cell, start, end, content) of each edit taken
    # (cell, code, span) of each finding with a fix in the batch: what `_Places.holds` tells findings apart by (a
    # Finding's own hash would walk all its fields, fixes and story included)
    owners: list[set[tuple[int, str, Span]]] = []
    for item in items:
        for index, taken in enumerate(ranges):
            if one_fix_per_finding and (item.cell, item.finding.code, item.finding.span) in owners[index]:
                continue
            spans = taken.setdefault(item.cell, [])
            # The same edit in two fixes (the import several fixes add) is made once: it does not conflict.
            if all((item.cell, *e) in shared[index] or _free(spans, e[0], e[1]) for e in item.edits):
                break
        else:
            index = len(batches)
            batches.append([])
            ranges.append({item.cell: []})
            shared.append(set())
            owners.append(set())
        batches[index].append(item)
        owners[index].add((item.cell, item.finding.code, item.finding.span))
        spans = ranges[index].setdefault(item.cell, [])
        for e in item.edits:
            if (item.cell, *e) not in shared[index]:
                shared[index].add((item.cell, *e))
                bisect.insort(spans, (e[0], e[1]))
    return batches


def _free(spans: list[tuple[T, T]], a: T, b: T) -> bool:
    """Whether [a, b] neither overlaps nor touches any of `spans` (sorted, disjoint, not touching)."""
    i = bisect.bisect_left(spans, (a, b))
    if i < len(spans) and spans[i][0] <= b:
        return False
    return not (i > 0 and spans[i - 1][1] >= a)


def verified(cells: Sequence[str], items: Sequence[tuple[int, Finding]], recheck: Recheck,
             notebook: bool = False, path: str = "") -> list[tuple[int, Finding]]:
    """`items` with every fix that fails verification dropped."""
    verifier = Verifier(cells, recheck, notebook, path)
    verifier.prime((c, f, fix) for c, f in items for fix in f.fixes)
    return [(c, verifier.keep(c, f)) for c, f in items]


def recheck_key(display: str) -> str:
    """The key under which `verify_result`'s re-checks of a file keep their parse tree. The file's first check
    may parse under it too (checking/files.py `check_data(keep_tree=...)`): the first re-check then re-parses only
    what its fixes changed, not the whole module again (a 40,000-entry dict literal: 0.9 s of 5 s)."""
    return f"{display}#fixcheck"


def verify_result(result: CheckResult, path: Path, settings: Settings | None, context: Context | None) -> CheckResult:
    """A CLI result (from checking.files.check_file) with only the fixes that pass verification. Drops the tree
    kept under `recheck_key(result.path)` when done, whether or not a fix was verified."""
    key = recheck_key(result.path)
    try:
        return _verify_result(result, path, settings, context, key)
    finally:
        from hf_cache_lint.engine.interpreter.interp import forget

        forget(key)


def _verify_result(result: CheckResult, path: Path, settings: Settings | None, context: Context | None,
                   key: str) -> CheckResult:
    if result.error is not None or not any(f.fixes for f in result.findings):
        return result
    # The re-checks keep a parse tree of their own and re-parse only what changed since the last (a large
    # module's fixes are mostly a few keywords apart: parsing was two thirds of each re-check).
    try:
        text = decode_source(path.read_bytes())
        if path.suffix == ".ipynb":
            cells = read_ipynb(text)
            joined = join_cells(cells)
            items = split_findings(result.findings, joined)
            recheck = notebook_recheck(result.path, settings, context, key)
            notebook = True
        else:
            cells, items, notebook = [text], [(0, f) for f in result.findings], False
            recheck = file_recheck(result.path, settings, context, key, kept=text)
    except (OSError, UndecodableError, ValueError):  # it changed under us: offer no fix rather than a wrong one
        return replace(result, findings=tuple(replace(f, fixes=()) for f in result.findings))
    verifier = Verifier(cells, recheck, notebook, result.path)
    verifier.prime((cell, moved, fix) for cell, moved in items for fix in moved.fixes)
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
    both choose with this.

    The taken edits are kept sorted per cell (they neither overlap nor touch), so each candidate costs a
    bisection per edit, not a comparison with every fix taken before it."""
    taken: list[tuple[int, Finding, Fix]] = []
    spans: dict[int, list[tuple[tuple[int, int], tuple[int, int]]]] = {}
    for cell, finding, fix in candidates:
        if not fix.edits:
            continue
        mine = spans.setdefault(cell, [])
        ranges = [((e.span.start.line, e.span.start.column), (e.span.end.line, e.span.end.column))
                  for e in fix.edits]
        if not all(_free(mine, a, b) for a, b in ranges):
            continue
        if accept(cell, finding, fix):
            taken.append((cell, finding, fix))
            for r in ranges:
                bisect.insort(mine, r)
    return taken


def preferred(items: Iterable[tuple[int, Finding]], unsafe: bool = False) -> list[tuple[int, Finding, Fix]]:
    """Each finding's preferred fix, in finding order (Errors first, as `--fix` should settle them first); a
    fix marked unsafe only with `unsafe` (`--unsafe-fixes`; fixAll never)."""
    rank = {"error": 0, "warning": 1, "info": 2, "hint": 3}
    ordered = sorted(items, key=lambda it: rank.get(it[1].severity.value, 4))
    return [(c, f, fix) for c, f in ordered for fix in f.fixes if fix.preferred and (unsafe or fix.safe)]


def fix_pass(cells: Sequence[str], items: Iterable[tuple[int, Finding]], accept: Callable[[int, Finding, Fix], bool],
             notebook: bool = False, adapt: Callable[[int, Fix], Fix] | None = None,
             prime: Callable[[Sequence[tuple[int, Finding, Fix]]], None] | None = None, unsafe: bool = False,
             ) -> tuple[list[str], list[tuple[int, Finding, Fix]]]:
    """One round of fixing: `--fix` runs one per pass, fixAll one per request, so both pick the same edits.

    Each finding's preferred fix (Errors first; `adapt` may rewrite it, e.g. into the file's newline style)
    is taken when it conflicts with no fix taken before it (touching edits conflict: `conflicts`) and
    `accept` verifies it; the taken fixes are applied together (`apply_chosen`). Returns the new cells and
    the fixes applied. `prime` (a `Verifier.prime`) verifies the candidates together first; `unsafe` takes
    the unsafe fixes too (`--unsafe-fixes`)."""
    candidates = preferred(items, unsafe)
    if adapt is not None:
        candidates = [(c, f, adapt(c, x)) for c, f, x in candidates]
    if prime is not None:
        prime(candidates)
    return apply_chosen(cells, choose(candidates, accept), notebook)


def apply_chosen(cells: Sequence[str], chosen: Sequence[tuple[int, Finding, Fix]],
                 notebook: bool = False) -> tuple[list[str], list[tuple[int, Finding, Fix]]]:
    """The cells with the chosen fixes applied, and the fixes that were. Each fix was verified alone; if
    a cell's combination does not parse, only that cell's first fix is applied."""
    out = list(cells)
    applied: list[tuple[int, Finding, Fix]] = []
    by_cell: dict[int, list[tuple[int, Finding, Fix]]] = {}
    for x in chosen:
        by_cell.setdefault(x[0], []).append(x)
    for cell, mine in sorted(by_cell.items()):
        edits = [e for _, _, fix in mine for e in fix.edits]
        located = _located(cells[cell], edits)
        new = apply_edits(cells[cell], edits) if located is None else _splice(cells[cell], located)
        offs = None if located is None else [(a, b, len(content)) for a, b, content in located]
        if len(mine) > 1 and (offs is None or not still_parses(cells[cell], new, offs, notebook)):
            log.warning("fixes in %s do not parse together; applying one", f"cell {cell + 1}" if notebook else "file")
            mine = mine[:1]
            new = apply_edits(cells[cell], mine[0][2].edits)
        out[cell] = new
        applied.extend(mine)
    return out, applied

