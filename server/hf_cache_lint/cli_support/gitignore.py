"""gitignore-style matching for file selection, on `pathspec` (its GitIgnoreSpec follows git's own rules).

Used for the `exclude` / `extend-exclude` settings, `per-file-ignores`, and the `.gitignore` / `.ignore` files
the folder walk meets (cli_support/discovery.py). What stays hand-written here is only the layering git does
between files (a deeper ignore file decides before a shallower one) and the "inside a git repository" test
(`.gitignore` counts there only, as in ripgrep's and Ruff's walker): pathspec matches one list of patterns.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    # Imported when a PathSpec is first made, not with this module: pathspec 1.x on Python < 3.13 imports
    # typing_extensions, which imports asyncio (~55 ms of CPU), and a walk with only the default excludes and
    # no ignore file never needs it (discovery.py decides the default names with a set).
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


# The files a folder walk reads its ignore patterns from (Ruff's `respect-gitignore`, through the `ignore`
# crate): `.gitignore` inside a git repository only, `.ignore` anywhere; `.ignore` read last, so it wins.
GITIGNORE, IGNORE = ".gitignore", ".ignore"


def _lines(path: str) -> list[str]:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read().splitlines()
    except OSError:
        return []


def folder_spec(folder: str, names: Sequence[str] | frozenset[str], in_git: bool) -> PathSpec | None:
    """The patterns of the ignore files in `folder` (whose entry names are `names`), None when it has none."""
    if GITIGNORE not in names and IGNORE not in names:
        return None
    lines: list[str] = []
    if in_git and GITIGNORE in names:
        lines += _lines(os.path.join(folder, GITIGNORE))
    if IGNORE in names:
        lines += _lines(os.path.join(folder, IGNORE))
    spec = PathSpec.of(lines) if lines else None
    return spec if spec is not None and spec.patterns else None


def git_root(folder: str) -> str | None:
    """The top of the git work tree holding `folder` (a `.git` folder or file there), else None."""
    here = os.path.abspath(folder)
    while True:
        if os.path.exists(os.path.join(here, ".git")):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def repo_specs(folder: str, root: str | None) -> list[tuple[str, PathSpec]]:
    """The ignore files above `folder` that apply to it (up to the git root, `.git/info/exclude` included),
    outermost first, each with the folder its patterns are relative to. Without a git root: `.ignore` files
    are not looked for above the walked folder (nothing says where a project ends)."""
    if root is None:
        return []
    out: list[tuple[str, PathSpec]] = []
    exclude = PathSpec.of(_lines(os.path.join(root, ".git", "info", "exclude")))
    if exclude.patterns:
        out.append((root, exclude))
    here = os.path.abspath(folder)
    chain = []
    while True:
        here = os.path.dirname(here)
        if len(here) < len(root) or not here.startswith(root):
            break
        chain.append(here)
        if here == root:
            break
    for above in reversed(chain):
        try:
            names = frozenset(os.listdir(above))
        except OSError:
            continue
        spec = folder_spec(above, names, True)
        if spec is not None:
            out.append((above, spec))
    return out


def ignored(layers: Sequence[tuple[str, PathSpec]], absolute: str, is_dir: bool) -> bool:
    """Whether the ignore files `layers` (outermost first, each folder an ancestor of `absolute`) exclude
    `absolute`: the deepest file whose patterns say anything about the path decides, as git reads them."""
    for base, spec in reversed(layers):
        rel = absolute[len(base) + 1:]
        decided = spec.decides(rel if _POSIX else rel.replace(os.sep, "/"), is_dir)
        if decided is not None:
            return decided
    return False


_POSIX = os.sep == "/"
