"""Where the analysis may read: inside the workspace folders (and the analysed file's own folder) and the
Hugging Face cache, never through a symlink or `..` that leads elsewhere (the reads themselves: engine/environment/reads.py).

Paths are compared after `os.path.realpath` (symlinks followed, `..` folded), which never raises on a
symlink loop (`Path.resolve` raises RuntimeError on 3.10-3.12): a loop is simply a path that is not there.
`~` is never expanded: `from_pretrained("~/x")` means a folder named `~` to transformers as well.
"""

from __future__ import annotations

import os
from collections.abc import Hashable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

# Inside `settled()`: each path's canonical form, found once (None: outside, every call asks the file system).
_SETTLED: dict[str, str] | None = None
# Inside `settled()`: answers computed from files that stand still for the run (`run_memo`), else None.
_RUN_MEMO: dict[Hashable, object] | None = None


@contextmanager
def settled() -> Iterator[None]:
    """Within it, `real` asks the file system once per path: for a run over files that do not move while it
    runs (the CLI's check; a forked worker keeps what its parent found). The language server never enters it:
    a symlink changed between two edits is seen at the next. An import's lookup resolves the importing
    module's folder and every root again and again (~0.1 s of the gate's CPU on transformers' tree, 942
    lookups of 840 imports)."""
    global _SETTLED, _RUN_MEMO
    if _SETTLED is not None:  # already inside one (the --upgrade-to runs): the same answers
        yield
        return
    _SETTLED, _RUN_MEMO = {}, {}
    try:
        yield
    finally:
        _SETTLED, _RUN_MEMO = None, None


def run_memo() -> dict[Hashable, object] | None:
    """Inside `settled()`, a dict for answers that depend only on files the run reads (they stand still for it),
    keyed by what else they depend on; outside it (the language server), None: ask the file system again."""
    return _RUN_MEMO


def real(path: str | Path) -> str:
    """The canonical absolute path (symlinks and `..` resolved); for a loop, what realpath leaves."""
    memo = _SETTLED
    key = os.fspath(path) if memo is not None else ""
    if memo is not None:
        found = memo.get(key)
        if found is not None:
            return found
    try:
        found = os.path.realpath(path)
    except (OSError, ValueError, RuntimeError):  # RuntimeError: a loop on some Python versions
        found = os.path.abspath(path)
    if memo is not None:
        memo[key] = found
    return found


def inside(path: str | Path, roots: Iterable[str | Path]) -> bool:
    """Whether `path`, symlinks resolved, lies in one of `roots` (themselves resolved)."""
    target = real(path)
    for root in roots:
        base = real(root)
        if target == base or target.startswith(base.rstrip(os.sep) + os.sep):
            return True
    return False

