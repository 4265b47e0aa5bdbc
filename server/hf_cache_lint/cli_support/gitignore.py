"""A small gitignore-style matcher for the `exclude` setting (no dependency on pathspec)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Pattern:
    """One compiled line: `regex` matches a whole relative POSIX path."""

    regex: re.Pattern[str]
    negated: bool
    dir_only: bool


def _translate(glob: str) -> str:
    """Glob body -> regex, with git's rules for `*`, `?`, `[...]`, `**` and backslash escapes."""
    out: list[str] = []
    i, n = 0, len(glob)
    while i < n:
        c = glob[i]
        if c == "\\" and i + 1 < n:
            out.append(re.escape(glob[i + 1]))
            i += 2
            continue
        if c == "*":
            if glob.startswith("**", i):
                at_start = i == 0 or glob[i - 1] == "/"
                after = glob[i + 2:i + 3]
                if at_start and after == "/":  # `**/`: zero or more whole directories
                    out.append("(?:.*/)?")
                    i += 3
                    continue
                if at_start and i + 2 == n:  # trailing `/**`: everything inside
                    out.append(".*")
                    i += 2
                    continue
            while i < n and glob[i] == "*":  # any other run of stars is one `*`
                i += 1
            out.append("[^/]*")
            continue
        if c == "?":
            out.append("[^/]")
        elif c == "[":
            # A `]` right after `[` (or `[!`) is a literal member of the class, as in git.
            first = i + 2 if glob[i + 1:i + 2] in ("!", "^") else i + 1
            end = glob.find("]", first + 1)
            if end == -1:
                out.append(re.escape(c))
            else:
                body = glob[first:end]
                body = re.sub(r"([\[\]&~|^])", r"\\\1", body)
                neg = "^" if first == i + 2 else ""
                out.append(f"(?!/)[{neg}{body}]")
                i = end + 1
                continue
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


def compile_pattern(line: str) -> Pattern | None:
    """One gitignore line -> Pattern (None for blank lines and comments)."""
    text = line.rstrip("\n")
    # Trailing spaces are ignored unless escaped with a backslash.
    stripped = text.rstrip(" ")
    if stripped.endswith("\\") and len(stripped) < len(text):
        stripped += " "
    text = stripped
    if not text or text.startswith("#"):
        return None
    negated = text.startswith("!")
    if negated or text.startswith(("\\!", "\\#")):  # `\!` and `\#` escape a literal first character
        text = text[1:]
    dir_only = text.endswith("/")
    text = text.rstrip("/")
    if not text:
        return None
    # A slash at the start or in the middle anchors the pattern to the base directory.
    anchored = "/" in text
    body = _translate(text.lstrip("/"))
    regex = f"^{body}$" if anchored else f"^(?:.*/)?{body}$"
    return Pattern(re.compile(regex, re.DOTALL), negated, dir_only)


@dataclass(frozen=True)
class PathSpec:
    """An ordered list of patterns; the last one that matches decides (as in git)."""

    patterns: tuple[Pattern, ...] = ()

    @staticmethod
    def of(lines: Iterable[str]) -> PathSpec:
        return PathSpec(tuple(p for p in map(compile_pattern, lines) if p is not None))

    def matches(self, relpath: str, is_dir: bool) -> bool:
        """Whether `relpath` (POSIX, relative to the base, no leading `./`) itself is excluded."""
        excluded = False
        for p in self.patterns:
            if p.dir_only and not is_dir:
                continue
            if excluded == p.negated and p.regex.match(relpath):
                excluded = not p.negated
        return excluded

    def excludes(self, relpath: str, is_dir: bool) -> bool:
        """Whether `relpath` or any directory above it is excluded (git cannot re-include below one)."""
        parts = relpath.split("/")
        for i in range(1, len(parts)):
            if self.matches("/".join(parts[:i]), True):
                return True
        return self.matches(relpath, is_dir)
