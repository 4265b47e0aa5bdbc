"""Which files a `check` covers: given files as they are, folders walked in sorted order."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from hf_cache_lint.cli_support.gitignore import PathSpec
from hf_cache_lint.engine.confine import inside
from hf_cache_lint.engine.findings import FileError

SUFFIXES = (".py", ".ipynb")

# Folders never worth walking into (hidden folders, i.e. names starting with ".", are skipped too).
SKIP_DIRS = frozenset({"__pycache__", "node_modules", "site-packages", "__pypackages__", "venv"})
# A folder holding one of these is a virtual or conda environment: somebody else's code.
ENV_MARKERS = ("pyvenv.cfg", "conda-meta")


@dataclass(frozen=True)
class SourceFile:
    """A file to check and the name to print for it (relative like the path it was found under)."""

    path: Path
    display: str
    # The file's status when discovery took it (the result cache's first lookup uses it: one stat a file).
    stat: os.stat_result | None = field(default=None, compare=False, repr=False)

    @property
    def is_notebook(self) -> bool:
        return self.path.suffix == ".ipynb"


@dataclass(frozen=True)
class Discovery:
    files: tuple[SourceFile, ...]
    errors: tuple[FileError, ...]


def _display(given: str, rel: str) -> str:
    # normpath drops a leading "./" so `check .` prints `a.py`, as Ruff does.
    return os.path.normpath(os.path.join(given, rel)) if rel else given


class _Walker:
    def __init__(self, exclude: PathSpec, base: Path, roots: tuple[str, ...] = ()) -> None:
        self.exclude = exclude
        self.base = os.path.abspath(base)
        # Where a folder walk may read: the project root and the folders given. A symlinked file leading
        # elsewhere is not checked; symlinked folders are never entered (no loops, no escapes).
        self.roots = (self.base, *roots)
        self.errors: list[FileError] = []

    def rel_to_base(self, path: str) -> str:
        absolute = os.path.abspath(path)
        rel = os.path.relpath(absolute, self.base) if absolute.startswith(self.base + os.sep) else absolute
        return rel.replace(os.sep, "/").lstrip("/")

    def excluded(self, path: str, is_dir: bool) -> bool:
        return bool(self.exclude.patterns) and self.exclude.matches(self.rel_to_base(path), is_dir)

    def walk(self, root: str, given: str, rel: str = "") -> Iterator[SourceFile]:
        try:
            with os.scandir(root) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            self.errors.append(FileError(_display(given, rel), f"cannot list folder: {exc.strerror or exc}"))
            return
        names = {e.name for e in entries}
        if rel and any(m in names for m in ENV_MARKERS):
            return
        for entry in entries:
            name = entry.name
            if name.startswith("."):
                continue
            child_rel = f"{rel}/{name}" if rel else name
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
                is_file = not is_dir and entry.is_file()
                if is_file and entry.is_symlink() and not inside(entry.path, self.roots):
                    continue
            except OSError:
                continue
            if is_dir:
                if name not in SKIP_DIRS and not self.excluded(entry.path, True):
                    yield from self.walk(entry.path, given, child_rel)
            elif is_file and name.endswith(SUFFIXES) and not self.excluded(entry.path, False):
                yield SourceFile(Path(entry.path), _display(given, child_rel))


def discover(paths: Sequence[str], exclude: PathSpec, base: Path) -> Discovery:
    """The files under `paths` in a stable order (each once), and the paths that do not exist.

    A file named on the command line is checked whatever its suffix or the excludes (as Ruff does);
    the skip lists and `exclude` patterns apply to what a folder walk finds below a given folder. A walk
    does not enter symlinked folders and skips symlinked files that lead out of the project root and
    the given folders.
    """
    walker = _Walker(exclude, base, tuple(os.path.abspath(p) for p in paths if os.path.isdir(p)))
    seen: set[object] = set()
    files: list[SourceFile] = []
    for given in paths:
        candidates: Iterator[SourceFile] | tuple[SourceFile, ...]
        if os.path.isdir(given):
            candidates = walker.walk(given, given)
        elif os.path.exists(given):
            candidates = (SourceFile(Path(given), os.path.normpath(given)),)
        else:
            walker.errors.append(FileError(given, "no such file or directory"))
            continue
        for f in candidates:
            # The file's identity (device, inode) finds a file reached twice (a symlink, overlapping
            # paths) with one stat, where realpath costs an lstat per path component.
            st: os.stat_result | None
            try:
                st = os.stat(f.path)
                key: object = (st.st_dev, st.st_ino)
            except OSError:
                st, key = None, os.path.realpath(f.path)
            if key not in seen:
                seen.add(key)
                files.append(SourceFile(f.path, f.display, st))
    return Discovery(tuple(files), tuple(walker.errors))
