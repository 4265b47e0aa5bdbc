"""Which files a `check` covers: given files as they are, folders walked in sorted order.

A warm run spends most of its time here (the cache answers the rest in microseconds a file), so the walk does
per file only what it must: one scandir entry, one stat (the cache compares it, the dedup needs its identity)
and a few string joins; the `Path` of a file is made only when something reads `SourceFile.path`.
"""

from __future__ import annotations

import operator
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from hf_cache_lint.cli_support.gitignore import folder_spec, git_root, ignored, repo_specs
from hf_cache_lint.engine.environment.confine import inside
from hf_cache_lint.selection import PathSpec, Selection

if TYPE_CHECKING:
    from hf_cache_lint.engine.base.findings import FileError

SUFFIXES = (".py", ".ipynb")

# Beyond Ruff, and whatever the settings: hidden folders and files (a name starting with ".") are not walked
# into, and a folder holding one of these is a virtual or conda environment (somebody else's code) whatever
# its name.
ENV_MARKERS = frozenset({"pyvenv.cfg", "conda-meta"})

@dataclass(frozen=True, init=False)
class SourceFile:
    """A file to check and the name to print for it (relative like the path it was found under).

    `SourceFile(path, display)` with a Path or a str; `.path` is always a Path (made on first use: a warm run
    never needs most of them).
    """

    where: str
    display: str
    # The file's status when discovery took it (the result cache's first lookup uses it: one stat a file).
    stat: os.stat_result | None = field(default=None, compare=False, repr=False)

    def __init__(self, where: Path | str, display: str, stat: os.stat_result | None = None) -> None:
        # Written into __dict__ as a frozen dataclass's own __init__ does through object.__setattr__, at a
        # third of its cost (discovery makes one per file: ~15 ms of instructions on a 3,000-file tree).
        values = self.__dict__
        if isinstance(where, Path):
            values["path"] = where  # the caller's Path, as given (cached_property's slot)
            where = os.fspath(where)
        values["where"], values["display"], values["stat"] = where, display, stat

    @cached_property
    def path(self) -> Path:
        return Path(self.where)

    @property
    def is_notebook(self) -> bool:
        # = Path.suffix == ".ipynb" (splitext, like Path.suffix, gives a leading-dot name no suffix).
        return os.path.splitext(os.path.basename(self.where))[1] == ".ipynb"


@dataclass(frozen=True)
class Discovery:
    files: tuple[SourceFile, ...]
    errors: tuple[FileError, ...]


def _file_error(path: str, message: str) -> FileError:
    from hf_cache_lint.engine.base.findings import FileError

    return FileError(path, message)


def _prefix(folder: str) -> str:
    """What joins `folder` and a name below it: "" for ".", the folder itself when it ends with a separator."""
    if folder == os.curdir:
        return ""
    return folder if folder.endswith(os.sep) else folder + os.sep


class _Walker:
    def __init__(self, selection: Selection, base: Path, roots: tuple[str, ...] = ()) -> None:
        self.selection = selection
        self.exclude = selection.exclude
        self.names = selection.names
        self.base = os.path.abspath(base)
        # Where a folder walk may read: the project root and the folders given. A symlinked file leading
        # elsewhere is not checked; symlinked folders are never entered (no loops, no escapes).
        self.roots = (self.base, *roots)
        self.errors: list[FileError] = []
        self.found: list[SourceFile] = []
        self.seen: set[object] = set()

    def rel_to_base(self, absolute: str) -> str:
        rel = absolute[len(self.base) + 1:] if absolute.startswith(self.base + os.sep) else absolute
        return rel.replace(os.sep, "/").lstrip("/")

    def excluded(self, absolute: str, is_dir: bool) -> bool:
        return self.exclude is not None and self.exclude.matches(self.rel_to_base(absolute), is_dir)

    def add(self, where: str, display: str) -> None:
        """Take a file once: its identity (device, inode) finds a file reached twice (a symlink, overlapping
        paths, a hard link) with the one stat the cache needs anyway, where realpath costs an lstat per path
        component."""
        st: os.stat_result | None
        try:
            st = os.stat(where)
            ident: object = (st.st_dev, st.st_ino)
        except OSError:
            st, ident = None, os.path.realpath(where)
        if ident not in self.seen:
            self.seen.add(ident)
            self.found.append(SourceFile(where, display, st))

    def walk(self, folder: str, display: str, absolute: str, top: bool,
             layers: tuple[tuple[str, PathSpec], ...] = (), in_git: bool = False) -> None:
        """Add the files below `folder` (printed as `display`, at `absolute`), in name order, depth first.

        Names below a folder are plain (never "." or ".."), so joining them to the normalised display and
        absolute paths of the folder gives what normpath and abspath of the joined path would. The absolute
        path is only for the excludes (relative to the base). `layers`: the ignore files that apply here,
        outermost first (`in_git`: inside a git work tree, where `.gitignore` counts).
        """
        try:
            with os.scandir(folder) as it:
                entries = sorted(it, key=_NAME)
        except OSError as exc:
            # A given folder is named as given; one found below it by its printed path.
            self.errors.append(_file_error(folder if top else display, f"cannot list folder: {exc.strerror or exc}"))
            return
        if not top and not ENV_MARKERS.isdisjoint(map(_NAME, entries)):
            return
        if self.selection.respect_gitignore:
            spec = folder_spec(absolute, frozenset(map(_NAME, entries)), in_git)
            if spec is not None:
                layers = (*layers, (absolute, spec))
        shown, at = _prefix(display), _prefix(absolute)
        exclude, names = self.exclude, self.names
        for entry in entries:
            name = entry.name
            if name[0] == "." or name in names:
                continue
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
                # The suffix first (a string test), then the file's type: most names are not ours.
                wanted = (not is_dir and name.endswith(SUFFIXES) and entry.is_file()
                          and not (entry.is_symlink() and not inside(entry.path, self.roots)))
            except OSError:
                continue
            if is_dir:
                if ((exclude is None or not self.excluded(at + name, True))
                        and not (layers and ignored(layers, at + name, True))):
                    self.walk(entry.path, shown + name, at + name, False, layers, in_git)
            elif (wanted and (exclude is None or not self.excluded(at + name, False))
                  and not (layers and ignored(layers, at + name, False))):
                self.add(entry.path, shown + name)


_NAME = operator.attrgetter("name")  # a DirEntry's name (in C: the walk sorts and scans every entry by it)


def discover(paths: Sequence[str], selection: Selection | PathSpec | None, base: Path) -> Discovery:
    """The files under `paths` in a stable order (each once), and the paths that do not exist.

    A path named on the command line is checked whatever its suffix or the excludes (as Ruff does), unless
    `force_exclude` (Ruff's `force-exclude`: pre-commit names every staged file, and `exclude` must still
    apply); the excludes and the ignore files apply to what a folder walk finds below a given folder. A walk
    does not enter symlinked folders and skips symlinked files that lead out of the project root and
    the given folders. A PathSpec alone is taken as extra excludes on top of the defaults.
    """
    if not isinstance(selection, Selection):
        selection = Selection(exclude=selection if selection is not None and selection.patterns else None)
    walker = _Walker(selection, base, tuple(os.path.abspath(p) for p in paths if os.path.isdir(p)))
    for given in paths:
        if selection.force_exclude and selection.excludes(walker.rel_to_base(os.path.abspath(given)),
                                                          os.path.isdir(given)):
            continue
        if os.path.isdir(given):
            absolute = os.path.abspath(given)
            root = git_root(absolute) if selection.respect_gitignore else None
            layers = tuple(repo_specs(absolute, root)) if selection.respect_gitignore else ()
            # normpath drops a leading "./" so `check .` prints `a.py`, as Ruff does.
            walker.walk(given, os.path.normpath(given), absolute, True, layers, root is not None)
        elif os.path.exists(given):
            walker.add(given, os.path.normpath(given))
        else:
            walker.errors.append(_file_error(given, "no such file or directory"))
    return Discovery(tuple(walker.found), tuple(walker.errors))
