"""Values the engine hands out: positions, spans, fixes and findings.

Positions here are 1-based lines and 0-based columns counted in code points (Python `str`
indices). This is the engine's single convention; parso already uses it, so the engine converts
nothing, and the CLI (1-based columns) and lsp/convert (the client's encoding) convert once each.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


class Severity(str, enum.Enum):
    """How bad a finding is; the names match the CLI/JSON contract."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"
    HINT = "hint"


@dataclass(frozen=True, order=True)
class Position:
    """A place in a file: 1-based line, 0-based column in code points."""

    line: int
    column: int


@dataclass(frozen=True)
class Span:
    """A half-open range [start, end) of a file."""

    start: Position
    end: Position

    @staticmethod
    def of(line: int, column: int, end_line: int, end_column: int) -> Span:
        return Span(Position(line, column), Position(end_line, end_column))


@dataclass(frozen=True)
class Edit:
    """Replace `span` with `content` (an insertion has an empty span)."""

    span: Span
    content: str


SAFE, UNSAFE = "safe", "unsafe"


@dataclass(frozen=True)
class Fix:
    """One way to fix a finding; `preferred` marks the one `--fix` and fixAll apply.

    `applicability` as Ruff's: "safe" keeps the meaning of the code apart from the finding, so `--fix` and
    the editor's fix-all apply it; "unsafe" may change what the code does beyond the finding (an edit to a
    dict other callers share, a keyword not every admitted release takes), so only `--unsafe-fixes` applies
    it, and editors offer it as a quick fix, never preferred.
    """

    title: str
    edits: tuple[Edit, ...]
    preferred: bool = False
    applicability: str = SAFE

    @property
    def safe(self) -> bool:
        return self.applicability == SAFE


@dataclass(frozen=True)
class Related:
    """Another place that explains a finding. `path` None means the file being checked."""

    span: Span
    message: str
    path: str | None = None


class Story:
    """A finding's hover Markdown, written the first time it is read (`str(story)`).

    An editor builds every finding on every keystroke but reads a story only on hover, so the language server
    asks the rules for stories written on demand (`check_source(..., lazy_stories=True)`); everywhere else they
    are plain strings. A Story equals, hashes and pickles as its text.
    """

    __slots__ = ("_text", "_write")

    def __init__(self, write: Callable[[], str]) -> None:
        self._write: Callable[[], str] | None = write
        self._text: str | None = None

    def __str__(self) -> str:
        if self._text is None:
            assert self._write is not None
            self._text, self._write = self._write(), None  # what it was written from is let go
        return self._text

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (Story, str)):
            return str(self) == str(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(str(self))

    def __repr__(self) -> str:
        return repr(str(self))

    def __reduce__(self) -> tuple[Any, ...]:
        return (str, (str(self),))


@dataclass(frozen=True)
class Finding:
    """One problem in one file."""

    code: str
    name: str
    message: str
    severity: Severity
    span: Span
    fixes: tuple[Fix, ...] = ()
    related: tuple[Related, ...] = ()
    # Markdown: the specific story of this finding (what meets what, where, the exact error) for hovers. A
    # `Story` (written when read) only where the checker was asked for lazy stories: read it with `str()`.
    story: str | Story = ""
    # What kind of problem it is beyond its severity: "deprecated" (works, but warns and will go away),
    # which editors draw struck through instead of squiggled.
    tags: tuple[str, ...] = ()

    @property
    def url(self) -> str:
        return docs_url(self.code)


@dataclass(frozen=True)
class FileError:
    """A file that could not be checked, and why (in words for a person)."""

    path: str
    message: str


@dataclass(frozen=True)
class CheckResult:
    """All findings of one file (sorted by position) or the reason it could not be read."""

    path: str
    findings: tuple[Finding, ...] = ()
    error: FileError | None = None
    # For a notebook: the 1-based module line where each code cell starts (findings use module lines).
    cell_starts: tuple[int, ...] = ()
    # What was not analysed and why, in words for a person (the budget ran out, a statement too deeply
    # nested): the findings are those of the rest; the file is not an error.
    notes: tuple[str, ...] = ()


DOCS_BASE = "https://github.com/hf-cache-lint/hf-cache-lint/blob/main/docs/rules/"


def docs_url(code: str) -> str:
    return f"{DOCS_BASE}{code}.md"
