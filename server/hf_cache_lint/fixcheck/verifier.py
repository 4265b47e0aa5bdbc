"""Verification: a fix is offered or written only when the fixed text parses and checking it again no longer
reports its finding there; many fixes are verified together in a few checks (`Verifier.prime`)."""

from __future__ import annotations

import bisect
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from hf_cache_lint.engine.base.findings import Finding, Fix, Span
from hf_cache_lint.engine.output.suppress import Directive, Suppressions, is_suppressed, suppressions
from hf_cache_lint.engine.text.text import apply_edits, line_starts
from hf_cache_lint.fixcheck.parses import python_cell, still_parses
from hf_cache_lint.fixcheck.places import Moved, free, located, offsets, splice
from hf_cache_lint.fixcheck.rechecks import Recheck

log = logging.getLogger("hf_cache_lint")


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
            edits = located(old, fix.edits, starts)
            if edits is None or all(old[a:b] == content for a, b, content in edits):
                continue
            item = _Item(cell, finding, fix, edits)
            if self.notebook and not python_cell(splice(old, edits)):
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
            for table, body in ((before, text), (after, splice(text, mine))):
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
        moved: dict[int, Moved] = {}
        try:
            for cell, listed in mine.items():
                # each shared edit once (`_batched`); stable, so a fix's own insertions at one point keep their order
                edits = sorted(dict.fromkeys(listed), key=lambda e: e[:2])
                old = self.cells[cell]
                cells[cell] = new = splice(old, edits)
                offs = [(a, b, len(content)) for a, b, content in edits]
                if not still_parses(old, new, offs, self.notebook):
                    raise _Split
                moved[cell] = Moved(old, new, offs)
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
        edits = offsets(old, fix.edits)
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
        moved = Moved(old, new, edits)
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
    # (cell, code, span) of each finding with a fix in the batch: what `Places.holds` tells findings apart by (a
    # Finding's own hash would walk all its fields, fixes and story included)
    owners: list[set[tuple[int, str, Span]]] = []
    for item in items:
        for index, taken in enumerate(ranges):
            if one_fix_per_finding and (item.cell, item.finding.code, item.finding.span) in owners[index]:
                continue
            spans = taken.setdefault(item.cell, [])
            # The same edit in two fixes (the import several fixes add) is made once: it does not conflict.
            if all((item.cell, *e) in shared[index] or free(spans, e[0], e[1]) for e in item.edits):
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



def verified(cells: Sequence[str], items: Sequence[tuple[int, Finding]], recheck: Recheck,
             notebook: bool = False, path: str = "") -> list[tuple[int, Finding]]:
    """`items` with every fix that fails verification dropped."""
    verifier = Verifier(cells, recheck, notebook, path)
    verifier.prime((c, f, fix) for c, f in items for fix in f.fixes)
    return [(c, verifier.keep(c, f)) for c, f in items]
