"""How a fixed text is checked again: as the CLI and the server check it, keeping a parse tree under a key so a
re-check re-parses only what its fixes changed."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from hf_cache_lint.engine.base.findings import Finding
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.settings import Settings

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
        if self.last is not None and 5 * changed(self.last, text) > len(text):
            return False
        self.last = text
        return self.key


def changed(old: str, new: str) -> int:
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


def recheck_key(display: str) -> str:
    """The key under which `verify_result`'s re-checks of a file keep their parse tree. The file's first check
    may parse under it too (checking/files.py `check_data(keep_tree=...)`): the first re-check then re-parses only
    what its fixes changed, not the whole module again (a 40,000-entry dict literal: 0.9 s of 5 s)."""
    return f"{display}#fixcheck"
