"""Which files a run takes and which settings one file gets from its path, shared by the front ends (the CLI's
walk and per-file-ignores, and the language server for each open document), so a file is treated alike in the
terminal, in pre-commit and in the editor.

Patterns are gitignore lines matched with `pathspec` (its GitIgnoreSpec follows git's own rules), relative to
the project root, each folder above a file included, as Ruff matches `exclude`, `extend-exclude` and
`per-file-ignores`. A top-level module beside settings.py, not part of checking/: a warm CLI run, which the
result cache answers, reads the excludes but must not load the checking layer (tests/cli/test_cache.py).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from hf_cache_lint.settings import Settings

if TYPE_CHECKING:
    # Imported when a PathSpec is first made, not with this module: pathspec 1.x on Python < 3.13 imports
    # typing_extensions, which imports asyncio (~55 ms of CPU), and a walk with only the default excludes and
    # no ignore file never needs it (the default names are decided with a set).
    import pathspec


@dataclass(frozen=True)
class PathSpec:
    """An ordered list of gitignore lines; the last one that matches decides (as in git)."""

    lines: tuple[str, ...] = ()
    spec: pathspec.GitIgnoreSpec | None = field(default=None, compare=False, repr=False)
    # All patterns as one regex, to rule out in one search a path no line matches (most of them): pathspec
    # asks each pattern in turn, ~45 us a path, which doubled a 3,000-file walk under a one-line .gitignore.
    quick: re.Pattern[str] | None = field(default=None, compare=False, repr=False)

    @staticmethod
    def of(lines: Iterable[str]) -> PathSpec:
        import pathspec

        kept = tuple(lines)
        spec = pathspec.GitIgnoreSpec.from_lines(kept)
        return PathSpec(kept, spec, _any_of(spec))

    @property
    def patterns(self) -> bool:
        """Whether any line is a pattern (not blank, not a comment)."""
        return self.spec is not None and any(p.include is not None for p in self.spec.patterns)

    def decides(self, relpath: str, is_dir: bool) -> bool | None:
        """True: `relpath` itself is excluded; False: re-included by a `!` line; None: no line matches it."""
        path = relpath + "/" if is_dir else relpath
        if self.spec is None or (self.quick is not None and self.quick.search(path) is None):
            return None
        result = self.spec.check_file(path)
        if is_dir and result.index is not None and str(self.spec.patterns[result.index].pattern).endswith("/**"):
            # git: `docs/**` matches what is inside docs/, not docs/ itself (a later `!docs/keep.py` can then
            # re-include a file); pathspec matches the folder's own `docs/` too. The walk goes in and decides
            # file by file.
            return None
        return result.include

    def matches(self, relpath: str, is_dir: bool) -> bool:
        """Whether `relpath` (POSIX, relative to the base, no leading `./`) itself is excluded."""
        return self.decides(relpath, is_dir) is True

    def excludes(self, relpath: str, is_dir: bool) -> bool:
        """Whether `relpath` or any directory above it is excluded (git cannot re-include below one)."""
        parts = relpath.split("/")
        for i in range(1, len(parts)):
            if self.matches("/".join(parts[:i]), True):
                return True
        return self.matches(relpath, is_dir)


def _any_of(spec: pathspec.GitIgnoreSpec) -> re.Pattern[str] | None:
    """One regex that matches where any of the spec's patterns does (None: cannot be built; ask each)."""
    try:
        parts = [str(p.regex.pattern) for p in spec.patterns if p.include is not None and p.regex is not None]
        # Each pattern names its directory group alike (`ps_d`): one regex cannot hold a name twice.
        return re.compile("|".join(f"(?:{re.sub(r'[(][?]P<[a-z_]+>', '(?:', part)})" for part in parts))
    except (AttributeError, TypeError, re.error):
        return None


# Ruff's default `exclude` (crates/ruff_workspace/src/settings.rs, FilePattern defaults), and this tool's
# own `__pycache__` and result cache. `exclude` replaces the list, `extend-exclude` adds to it, as in Ruff.
DEFAULT_EXCLUDE = (".bzr", ".direnv", ".eggs", ".git", ".git-rewrite", ".hg", ".ipynb_checkpoints", ".mypy_cache",
                   ".nox", ".pants.d", ".pyenv", ".pytest_cache", ".pytype", ".ruff_cache", ".svn", ".tox", ".venv",
                   ".vscode", "__pypackages__", "_build", "buck-out", "build", "dist", "node_modules",
                   "site-packages", "venv", "__pycache__", ".hf_cache_lint_cache")
_GLOB = frozenset("/*?[]!\\#")


def _plain(pattern: str) -> bool:
    """A bare name (`build`, `.venv`): it excludes any file or folder so named, which a set lookup decides as
    pathspec would (the walk meets each name once, below folders it entered), at a fraction of the cost."""
    return bool(pattern) and pattern == pattern.strip() and _GLOB.isdisjoint(pattern)


@dataclass(frozen=True)
class Selection:
    """Which files a walk takes: the exclude patterns (names apart, see `_plain`), the ignore files, and
    whether the excludes also apply to paths named on the command line (`force-exclude`, for pre-commit)."""

    names: frozenset[str] = frozenset(DEFAULT_EXCLUDE)
    exclude: PathSpec | None = None
    respect_gitignore: bool = True
    force_exclude: bool = False

    @staticmethod
    def of(exclude: Sequence[str] | None = None, extend_exclude: Sequence[str] = (), respect_gitignore: bool = True,
           force_exclude: bool = False) -> Selection:
        patterns = [*(DEFAULT_EXCLUDE if exclude is None else exclude), *extend_exclude]
        # A `!` line re-includes what an earlier line excluded: order matters then, and pathspec decides all.
        fast = not any(p.startswith("!") for p in patterns)
        names = frozenset(p for p in patterns if fast and _plain(p))
        rest = [p for p in patterns if p not in names]
        spec = PathSpec.of(rest) if rest else None
        return Selection(names, spec if spec is not None and spec.patterns else None, respect_gitignore,
                         force_exclude)

    def excludes(self, rel: str, is_dir: bool) -> bool:
        """Whether the excludes take `rel` (relative to the project root) or a folder above it."""
        if not self.names.isdisjoint(rel.split("/")):
            return True
        return self.exclude is not None and self.exclude.excludes(rel, is_dir)


def relative(path: Path | str, root: Path | str) -> str:
    """`path` relative to `root`, POSIX-style, as the patterns are written."""
    return os.path.relpath(os.path.abspath(path), os.path.abspath(root)).replace(os.sep, "/")


@lru_cache(maxsize=256)  # the editor asks on every keystroke with the same few patterns
def _spec(lines: tuple[str, ...]) -> PathSpec:
    return PathSpec.of(lines)


def per_file_codes(rel: str, per_file_ignores: Mapping[str, tuple[str, ...]]) -> tuple[str, ...]:
    """The codes (and prefixes) the `per-file-ignores` entries whose pattern takes `rel` ignore."""
    return tuple(c for glob, codes in per_file_ignores.items() if _spec((glob,)).excludes(rel, False)
                 for c in codes)


@lru_cache(maxsize=32)  # asked on every keystroke: an `extend-exclude` glob is compiled once, not per edit
def _selection(exclude: tuple[str, ...] | None, extend_exclude: tuple[str, ...]) -> Selection:
    return Selection.of(exclude, extend_exclude)


def document_settings(settings: Settings, path: Path | str, root: Path | None) -> Settings | None:
    """The settings one open document is checked with, None when the excludes take it (no findings for it, as
    Ruff's server does for an excluded file whatever `force-exclude` says: the editor shows a file, it was never
    named on a command line). A document outside the project root gets the folder's settings as they are."""
    if root is None:
        return settings
    rel = relative(path, root)
    if rel == ".." or rel.startswith("../"):
        return settings
    if _selection(settings.exclude, settings.extend_exclude).excludes(rel, False):
        return None
    codes = per_file_codes(rel, settings.per_file_ignores) if settings.per_file_ignores else ()
    return replace(settings, ignore=settings.ignore + codes) if codes else settings
