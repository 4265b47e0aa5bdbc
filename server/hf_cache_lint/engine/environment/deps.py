"""What a check consulted outside its own text, so a result cache can key on it.

The engine notes every path it probes or reads on behalf of the module being checked (workspace
modules an import resolves to, a checkpoint's folder, its generation_config.json and config.json).
A caller that wants the list runs the check inside `recording()`; everyone else pays one ContextVar
read per note. A path is noted whether or not it exists: a file that appears later changes the result
as surely as one that changes.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

# Noted when the result depends on more than can be listed (jedi's inference over installed packages):
# a cache must then not keep the result at all.
VOLATILE = "<volatile>"

_NOTED: ContextVar[set[str] | None] = ContextVar("hf_cache_lint_deps", default=None)


def note(path: Path | str) -> None:
    """Record that the running check's result may depend on `path` (its content, or its absence)."""
    noted = _NOTED.get()
    if noted is not None:
        noted.add(str(path))


def note_all(paths: Iterable[str]) -> None:
    """`note` each of `paths` (a memoised answer's, noted again where it is reused)."""
    noted = _NOTED.get()
    if noted is not None:
        noted.update(paths)


def note_volatile() -> None:
    note(VOLATILE)


@contextmanager
def recording() -> Iterator[set[str]]:
    """Collect the paths noted by the checks run inside the block."""
    noted: set[str] = set()
    outer = _NOTED.get()
    token = _NOTED.set(noted)
    try:
        yield noted
    finally:
        _NOTED.reset(token)
        if outer is not None:  # a recording inside another (a replay's, in a cached check): both get them
            outer.update(noted)


Stamp = tuple[int, int, int, int] | None


def stamp(path: str) -> Stamp:
    """What tells a noted path's state apart later: its kind, identity, size and mtime (None: absent)."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return st.st_mode, st.st_ino, st.st_size, st.st_mtime_ns
