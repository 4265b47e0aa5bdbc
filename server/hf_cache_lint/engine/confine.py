"""Where the analysis may read: inside the workspace folders (and the analysed file's own folder) and the
Hugging Face cache, never through a symlink or `..` that leads elsewhere, and never more than a cap.

Paths are compared after `os.path.realpath` (symlinks followed, `..` folded), which never raises on a
symlink loop (`Path.resolve` raises RuntimeError on 3.10-3.12): a loop is simply a path that is not there.
`~` is never expanded: `from_pretrained("~/x")` means a folder named `~` to transformers as well.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path


def real(path: str | Path) -> str:
    """The canonical absolute path (symlinks and `..` resolved); for a loop, what realpath leaves."""
    try:
        return os.path.realpath(path)
    except (OSError, ValueError, RuntimeError):  # RuntimeError: a loop on some Python versions
        return os.path.abspath(path)


def inside(path: str | Path, roots: Iterable[str | Path]) -> bool:
    """Whether `path`, symlinks resolved, lies in one of `roots` (themselves resolved)."""
    target = real(path)
    for root in roots:
        base = real(root)
        if target == base or target.startswith(base.rstrip(os.sep) + os.sep):
            return True
    return False


def read_capped(path: str | Path, limit: int) -> bytes | None:
    """The file's bytes, or None when it cannot be read, is not a regular file (a FIFO, /dev/zero) or is
    larger than `limit` bytes (read no further than that)."""
    try:
        with open(path, "rb") as f:
            if not os.path.isfile(f.name) or os.fstat(f.fileno()).st_size > limit:
                return None
            data = f.read(limit + 1)
    except OSError:
        return None
    return data if len(data) <= limit else None
