"""Which settings one file gets from its path: whether `exclude` / `extend-exclude` (with the defaults) take it,
and the codes its `per-file-ignores` entries ignore. Patterns are relative to the project root and matched
gitignore-style (checking/path_patterns.py), each folder above the file included, as Ruff matches them.

The CLI's walk (cli_support/discovery.py) and the language server (for each document it is shown) ask the
same questions here, so a file is treated alike in the terminal, in pre-commit and in the editor.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

from hf_cache_lint.checking.path_patterns import PathSpec
from hf_cache_lint.settings import Settings

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


def document_settings(settings: Settings, path: Path | str, root: Path | None) -> Settings | None:
    """The settings one open document is checked with, None when the excludes take it (no findings for it, as
    Ruff's server does for an excluded file whatever `force-exclude` says: the editor shows a file, it was never
    named on a command line). A document outside the project root gets the folder's settings as they are."""
    if root is None:
        return settings
    rel = relative(path, root)
    if rel == ".." or rel.startswith("../"):
        return settings
    if Selection.of(settings.exclude, settings.extend_exclude).excludes(rel, False):
        return None
    codes = per_file_codes(rel, settings.per_file_ignores) if settings.per_file_ignores else ()
    return replace(settings, ignore=settings.ignore + codes) if codes else settings
