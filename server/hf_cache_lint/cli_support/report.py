"""What a `check` run found, arranged for the formats: per finding its file, cell and source line."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

from hf_cache_lint.cli_support.discovery import SourceFile
from hf_cache_lint.engine.base.findings import CheckResult, FileError, Finding, Related, Severity

FAILING = frozenset({Severity.ERROR, Severity.WARNING})


@dataclass(frozen=True)
class Place:
    """A related place resolved for printing: file name, cell number (notebooks) and the related value."""

    filename: str
    cell: int | None
    related: Related


@dataclass(frozen=True)
class Located:
    """One finding ready to print.

    For a notebook, `finding`'s positions are relative to its cell and `cell` is the 1-based number
    of that cell among all cells of the notebook (markdown included), as Jupyter shows them.
    """

    filename: str
    finding: Finding
    cell: int | None = None
    line_text: str = ""
    related: tuple[Place, ...] = ()
    # For a notebook: the 1-based lines of the .ipynb file itself where the finding starts and ends (what a
    # GitHub annotation or a SARIF region on the file names); None when not known (or not a notebook).
    file_lines: tuple[int, int] | None = None

    @property
    def fixable(self) -> bool:
        """Whether `--fix` applies a fix to it: its preferred fix is a safe one."""
        return any(f.preferred and f.safe for f in self.finding.fixes)

    @property
    def unsafe_fixable(self) -> bool:
        """Whether only `--unsafe-fixes` would fix it (its preferred fix is unsafe)."""
        return any(f.preferred and not f.safe for f in self.finding.fixes)


@dataclass(frozen=True)
class Report:
    """Findings in output order, files that could not be checked, and what `--fix` changed."""

    items: tuple[Located, ...]
    errors: tuple[FileError, ...]
    files_checked: int
    fixed: int = 0
    fixing: bool = False
    # Files analysed only in part (the analysis budget ran out, a statement too deeply nested): not errors.
    notes: tuple[FileError, ...] = ()
    # The transformers release(s) checked against and where they came from (engine/environment/target_plan.py).
    target: str = ""

    @property
    def fails(self) -> bool:
        """Whether the run exits 1: an Error or Warning finding, or a file that could not be checked.
        Information and Hint findings (HFC006's deprecations) never fail a run (the CLI contract in the README)."""
        return bool(self.errors) or any(i.finding.severity in FAILING for i in self.items)


def code_cell_numbers(notebook_text: str) -> tuple[int, ...]:
    """1-based positions (among all cells) of the code cells, in order."""
    from hf_cache_lint.engine.text.notebook import load_json

    doc = load_json(notebook_text)
    cells = doc.get("cells") if isinstance(doc, dict) else None
    if not isinstance(cells, list):
        return ()
    return tuple(i for i, c in enumerate(cells, start=1) if isinstance(c, dict) and c.get("cell_type") == "code")


def _texts(source: SourceFile, data: bytes | None = None) -> tuple[list[str], tuple[int, ...], list[list[int]]]:
    """The file's text as one chunk (or the notebook's code cells), the cell numbers, and for a notebook the
    file line of each code cell line (cli_support/notebook_io.py source_file_lines). `data`: the bytes that
    were checked, when not the file's (stdin)."""
    from hf_cache_lint.engine.text.notebook import read_ipynb  # the engine's text helpers: only for findings
    from hf_cache_lint.engine.text.text import UndecodableError, decode_source

    try:
        text = decode_source(source.path.read_bytes() if data is None else data)
        if source.is_notebook:
            from hf_cache_lint.cli_support.notebook_io import source_file_lines

            return read_ipynb(text), code_cell_numbers(text), source_file_lines(text)
    except (OSError, UndecodableError, ValueError):
        return [], (), []  # the file changed under us: print findings without source lines
    return [text], (), []


class _Lines:
    """Lines of each chunk, split as the engine splits (not str.splitlines, which splits at form feeds)."""

    def __init__(self, texts: list[str]) -> None:
        self.texts = texts
        self.starts: dict[int, list[int]] = {}

    def get(self, chunk: int, line: int) -> str:
        if chunk >= len(self.texts):
            return ""
        from hf_cache_lint.engine.text.text import line_starts

        text = self.texts[chunk]
        starts = self.starts.setdefault(chunk, line_starts(text))
        if not 0 < line <= len(starts):
            return ""
        end = starts[line] if line < len(starts) else len(text)
        return text[starts[line - 1]:end].rstrip("\r\n")


def _other_file(path: str) -> str:
    rel = os.path.relpath(path) if os.path.isabs(path) else path
    return path if rel.startswith("..") else rel


def locate(source: SourceFile, result: CheckResult, data: bytes | None = None) -> list[Located]:
    """The findings of one checked file, positions moved into cells for a notebook."""
    if not result.findings:
        return []
    texts, numbers, file_lines = _texts(source, data)
    lines = _Lines(texts)
    if not result.cell_starts:
        return [Located(source.display, f, None, lines.get(0, f.span.start.line),
                        tuple(_place(source.display, r, None, None) for r in f.related))
                for f in result.findings]
    from hf_cache_lint.engine.text.notebook import Joined, split_findings

    out = []
    for index, f in split_findings(result.findings, Joined("", result.cell_starts)):
        number = numbers[index] if index < len(numbers) else index + 1
        places = tuple(_place(source.display, r, number, numbers) for r in f.related)
        out.append(Located(source.display, f, number, lines.get(index, f.span.start.line), places,
                           _file_lines(file_lines, index, f)))
    return out


def _file_lines(file_lines: list[list[int]], index: int, f: Finding) -> tuple[int, int] | None:
    cell = file_lines[index] if index < len(file_lines) else []
    start, end = f.span.start.line, f.span.end.line
    if not 0 < start <= len(cell):
        return None
    return cell[start - 1], cell[min(end, len(cell)) - 1]


def _place(display: str, r: Related, cell: int | None, numbers: Sequence[int] | None) -> Place:
    if r.path is None:
        return Place(display, cell, r)
    if r.path.startswith("cell:") and numbers is not None:
        index = int(r.path[5:])
        return Place(display, numbers[index] if index < len(numbers) else index + 1, r)
    return Place(_other_file(r.path), None, r)


def build_report(sources: Sequence[SourceFile], results: Sequence[CheckResult],
                 errors: Sequence[FileError] = (), fixed: int = 0, fixing: bool = False,
                 data: bytes | None = None) -> Report:
    """`data`: the bytes of the one source that was checked, when they are not on disk (stdin)."""
    items: list[Located] = []
    errs = list(errors)
    notes: list[FileError] = []
    for source, result in zip(sources, results, strict=True):
        if result.error is not None:
            errs.append(result.error)
        if result.notes:
            notes.extend(FileError(result.path, n) for n in result.notes)
        if result.findings:  # most results have none: nothing to locate
            items.extend(locate(source, result, data))
    return Report(tuple(items), tuple(errs), len(sources), fixed, fixing, tuple(notes))
