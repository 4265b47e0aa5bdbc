"""gitignore-style pattern lists on `pathspec` (its GitIgnoreSpec follows git's own rules): the one matcher for
`exclude` / `extend-exclude`, `per-file-ignores` and the ignore files, used by the CLI's walk
(cli_support/discovery.py, cli_support/gitignore.py) and by the language server for the documents it is shown
(checking/file_selection.py)."""

from __future__ import annotations

import re
from collections.abc import Iterable
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
