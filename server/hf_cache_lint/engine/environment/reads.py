"""The one way to read a file the analysed repository controls: bounded, regular, non-blocking, confined.

Used by the analysis (a checkpoint's generation_config.json / config.json, imported workspace modules) and by
the CLI's result cache (the fingerprints of those same files, and its own index) alike, so that no reader of a
dependency does what the analysis refuses. A repository can put anything under a name it controls:

- a FIFO: `open()` blocks until a writer comes, for ever; here the file is stat'ed first and opened with
  O_NONBLOCK (a FIFO opens at once, then fails the regular-file check), so no read waits on one;
- a device or a symlink to one (`/dev/zero` has no end; `/dev/tty` may wait on a terminal): refused, only a
  regular file is read, checked on the path and again on the opened descriptor;
- a huge file: refused from its size before reading, and never more than `limit` + 1 bytes are read even if
  it grows meanwhile;
- a symlink (or `..`) that leads out of the allowed roots: refused when `roots` is given (engine/environment/confine.py).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path

from hf_cache_lint.engine.environment.confine import inside

# O_NONBLOCK: a FIFO (or a device) opens without waiting for a writer; regular files ignore the flag.
# O_NOCTTY: a terminal device never becomes the controlling terminal. Both absent on Windows (0 there).
_FLAGS = (os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
          | getattr(os, "O_BINARY", 0))


def read_bounded(path: str | Path, limit: int, roots: Iterable[str | Path] | None = None) -> bytes | None:
    """The file's bytes, or None when it is absent or unreadable, is not a regular file (a FIFO, a device, a
    folder), is larger than `limit` bytes, or (with `roots`) lies outside them once symlinks are resolved."""
    try:
        if roots is not None and not inside(path, roots):
            return None
        st = os.stat(path)  # before opening: a device or FIFO is never even opened from here
        if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
            return None
        fd = os.open(path, _FLAGS)
    except (OSError, ValueError):  # ValueError: a NUL in the path
        return None
    try:
        st = os.fstat(fd)  # what was opened, should the name have been swapped since the stat
        if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
            return None
        with os.fdopen(fd, "rb", closefd=False) as fh:
            data = fh.read(limit + 1)  # the file may grow after the fstat: never read beyond the cap
    except OSError:
        return None
    finally:
        os.close(fd)
    return data if len(data) <= limit else None


def regular_size(path: str | Path) -> int | None:
    """The size of a regular file (symlinks followed), else None: what `read_bounded` would consider."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return st.st_size if stat.S_ISREG(st.st_mode) else None
