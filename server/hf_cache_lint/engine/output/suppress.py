"""Suppression comments, as Ruff reads them, plus the project's own spelling:

- `# hf-cache-lint: ignore[HFC001, HFC002]` and a bare `# hf-cache-lint: ignore`: on the finding's line;
- `# noqa: HFC001` (codes separated by commas or spaces, any case) and a bare `# noqa`: on the finding's line.
  A bare `# noqa` silences every code, as it does in Ruff and flake8; codes of other tools (`E501`) beside
  ours are theirs and left alone;
- `# hf-cache-lint: noqa` (every code) and `# hf-cache-lint: noqa: HFC001` (those codes): the whole file,
  wherever the comment is (Ruff's `# ruff: noqa` / `# ruff: noqa: F401`).

A finding is silenced by a comment on its first or its last line. Comments are found in the text line by line
with a quote check (`_in_string`), not with `tokenize`: the linter reads half-typed code, on which `tokenize`
raises, and a suppression must keep working there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hf_cache_lint.engine.base.findings import Finding, Position, Span
from hf_cache_lint.engine.text.text import says, split_lines

_PRAGMA = re.compile(r"#\s*hf-cache-lint:\s*ignore(?:\[(?P<codes>[A-Za-z0-9_,\s]*)\])?")
_CODES = r"[A-Za-z]+[0-9]+(?:[,\s]+[A-Za-z]+[0-9]+)*"
# Ruff's own pattern for noqa comments (crates/ruff_linter/src/noqa.rs): a colon then codes, else bare.
_NOQA = re.compile(rf"#\s*noqa(?::\s*(?P<codes>{_CODES}))?", re.IGNORECASE)
_FILE = re.compile(rf"#\s*hf-cache-lint:\s*noqa(?::\s*(?P<codes>{_CODES}))?", re.IGNORECASE)
_CODE = re.compile(r"[A-Za-z]+[0-9]+")

ALL = frozenset({"*"})

# Which comment it is: "ignore" (`# hf-cache-lint: ignore[...]`), "noqa" (a bare or coded noqa comment) or "file"
# (`# hf-cache-lint: noqa`, for the whole file).
KINDS = ("ignore", "noqa", "file")


@dataclass(frozen=True)
class Directive:
    """One suppression comment: where it is, and the codes it names (each with its columns)."""

    kind: str
    line: int
    start: int
    """0-based column of its `#`."""
    end: int
    """Column just after the directive (a reason written after it is not part of it)."""
    codes: tuple[tuple[str, int, int], ...]
    """(CODE in upper case, start column, end column), as written; empty for a bare directive."""
    codes_span: tuple[int, int] | None = None
    """Columns of the whole list of codes (what a fix rewrites), None for a bare directive."""

    @property
    def bare(self) -> bool:
        return self.codes_span is None

    def at(self, span: Span | None) -> bool:
        return span is not None and span.start == Position(self.line, self.start)

    def covers(self, code: str) -> bool:
        return self.bare or any(c == code for c, _, _ in self.codes)


@dataclass(frozen=True)
class Suppressions:
    """The directives of one text: per 1-based line, and the file-wide ones."""

    lines: dict[int, tuple[Directive, ...]]
    file: tuple[Directive, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.lines or self.file)

    def all(self) -> list[Directive]:
        return [*self.file, *(d for line in sorted(self.lines) for d in self.lines[line])]

    def silencing(self, finding: Finding, but: Span | None = None) -> Directive | None:
        """The directive that silences `finding` (a file-wide one first), or None; not the one at `but`."""
        for d in self.file:
            if d.covers(finding.code) and not d.at(but):
                return d
        for line in dict.fromkeys((finding.span.start.line, finding.span.end.line)):
            for d in self.lines.get(line, ()):
                if d.covers(finding.code) and not d.at(but):
                    return d
        return None


def _directive(kind: str, line_no: int, m: re.Match[str]) -> Directive:
    codes_text = m.group("codes")
    if codes_text is None:
        return Directive(kind, line_no, m.start(), m.end(), ())
    base = m.start("codes")
    codes = tuple((c.group().upper(), base + c.start(), base + c.end()) for c in _CODE.finditer(codes_text))
    # `ignore[...]` ends at its `]`; a noqa list at its last code.
    return Directive(kind, line_no, m.start(), m.end(), codes, (m.start("codes"), m.end("codes")))


def _comment_directives(line: str, line_no: int) -> list[Directive]:
    out = []
    for kind, pattern in (("ignore", _PRAGMA), ("file", _FILE), ("noqa", _NOQA)):
        for m in pattern.finditer(line):
            if not _in_string(line, m.start()):
                out.append(_directive(kind, line_no, m))
    return sorted(out, key=lambda d: d.start)


def suppressions(text: str) -> Suppressions:
    """Every suppression comment of `text`. Only real comments count (not `# noqa` inside a string)."""
    # The patterns ignore case, so the shortcut must too (a mixed-case NoQA was not honoured): `says` is `in` the
    # lowered text, without lowering a non-ASCII text character by character (and once for the screen and here).
    if not says(text, "noqa") and not says(text, "hf-cache-lint"):
        return Suppressions({})
    lines: dict[int, tuple[Directive, ...]] = {}
    file: list[Directive] = []
    for i, line in enumerate(split_lines(text), start=1):  # Python's lines: a \\f does not end one
        if "#" not in line:
            continue
        found = _comment_directives(line, i)
        if found:
            file.extend(d for d in found if d.kind == "file")
            on_line = tuple(d for d in found if d.kind != "file")
            if on_line:
                lines[i] = on_line
    return Suppressions(lines, tuple(file))


def _in_string(line: str, index: int) -> bool:
    """Whether `index` sits inside a quoted string of this line (a good-enough tokenizer-free check)."""
    quote: str | None = None
    for ch in line[:index]:
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "#":  # the first comment of the line: everything after it is comment
            return False
    return quote is not None


def is_suppressed(finding: Finding, table: Suppressions) -> bool:
    return table.silencing(finding) is not None


def ignore_comment(line_text: str, code: str) -> tuple[int, str]:
    """Where to put an ignore comment for `code` on a line, and what to insert (column, text)."""
    m = _PRAGMA.search(line_text)
    if m and m.group("codes") is not None:
        end = m.end("codes")
        existing = m.group("codes").strip()
        return end, (", " if existing else "") + code
    stripped = line_text.rstrip()
    return len(stripped), f"  # hf-cache-lint: ignore[{code}]"
