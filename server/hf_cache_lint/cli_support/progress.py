"""A progress bar on stderr for long runs, on a terminal only (as Ruff shows none and pre-commit or CI logs must
stay clean): `[#####.........]  1200/3000 files`, redrawn at most ten times a second, erased at the end."""

from __future__ import annotations

import sys
import time
from typing import TextIO

# Below this many files a run is over before a bar would help.
MIN_FILES = 200
WIDTH = 30


class Progress:
    """Counts finished files and draws the bar; `close()` erases it."""

    def __init__(self, total: int, stream: TextIO) -> None:
        self.total, self.stream = total, stream
        self.done = 0
        self.drawn_at = 0.0

    def __call__(self, n: int) -> None:
        self.done += n
        now = time.monotonic()
        if now - self.drawn_at >= 0.1 or self.done >= self.total:
            self.drawn_at = now
            filled = WIDTH * self.done // max(1, self.total)
            self.stream.write(f"\r[{'#' * filled}{'.' * (WIDTH - filled)}] {self.done:>{len(str(self.total))}}"
                              f"/{self.total} files")
            self.stream.flush()

    def close(self) -> None:
        if self.drawn_at:
            self.stream.write("\r" + " " * (WIDTH + 2 * len(str(self.total)) + 12) + "\r")
            self.stream.flush()


def progress_for(total: int, quiet: bool, stream: TextIO | None = None) -> Progress | None:
    """A bar when the run is long and stderr is a terminal (and not --quiet/--silent), else None."""
    stream = stream or sys.stderr
    if quiet or total < MIN_FILES or not stream.isatty():
        return None
    return Progress(total, stream)
