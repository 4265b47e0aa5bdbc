"""Choosing fixes that can be applied together: the one chooser `--fix` (each pass) and the editor's fixAll share."""

from __future__ import annotations

import bisect
import logging
from collections.abc import Callable, Iterable, Sequence

from hf_cache_lint.engine.base.findings import Edit, Finding, Fix
from hf_cache_lint.engine.text.text import apply_edits
from hf_cache_lint.fixcheck.parses import still_parses
from hf_cache_lint.fixcheck.places import free, located, splice

log = logging.getLogger("hf_cache_lint")


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
        if not all(free(mine, a, b) for a, b in ranges):
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
        placed = located(cells[cell], edits)
        new = apply_edits(cells[cell], edits) if placed is None else splice(cells[cell], placed)
        offs = None if placed is None else [(a, b, len(content)) for a, b, content in placed]
        if len(mine) > 1 and (offs is None or not still_parses(cells[cell], new, offs, notebook)):
            log.warning("fixes in %s do not parse together; applying one", f"cell {cell + 1}" if notebook else "file")
            mine = mine[:1]
            new = apply_edits(cells[cell], mine[0][2].edits)
        out[cell] = new
        applied.extend(mine)
    return out, applied
