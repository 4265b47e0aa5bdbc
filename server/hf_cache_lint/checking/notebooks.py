"""A notebook's code cells checked as one module in cell order, the findings mapped back to their cells.

The cell joining, the IPython magics and the mapping of positions live in engine/text/notebook.py (pure text);
this module runs the check over the joined text and says the places in messages and notes as cells.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.base.findings import CheckResult, FileError, Finding
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.text.notebook import NotebookError, join_cells, read_ipynb, relabel, split_findings
from hf_cache_lint.settings import Settings


def check_cells(
    cells: Sequence[str], path: str, settings: Settings | None = None, context: Context | None = None,
    *, incremental: bool | str = False,
) -> list[tuple[int, Finding]]:
    """Notebook cells as one module in cell order; findings as (cell index, finding in cell)."""
    return check_cells_result(cells, path, settings, context, incremental=incremental)[0]


def check_cells_result(
    cells: Sequence[str], path: str, settings: Settings | None = None, context: Context | None = None,
    *, incremental: bool | str = False, lazy_stories: bool = False,
) -> tuple[list[tuple[int, Finding]], tuple[str, ...]]:
    """check_cells, and the notes of what was left out (lines said as cell places); `lazy_stories` as for
    check_source."""
    joined = join_cells(cells)
    result = check_source(joined.text, path, settings, context, incremental=incremental, lazy_stories=lazy_stories)
    return split_findings(result.findings, joined), tuple(relabel(n, joined) for n in result.notes)


def check_ipynb(text: str, name: str, settings: Settings | None = None,
                context: Context | None = None) -> CheckResult:
    """A .ipynb file's text: its code cells as one module; findings keep the joined module's lines (the CLI
    prints them per cell through `cell_starts`), messages and notes name cells. Invalid JSON is a FileError."""
    try:
        cells = read_ipynb(text)
    except NotebookError as exc:
        return CheckResult(name, error=FileError(name, str(exc)))
    except RecursionError:  # json.loads on absurdly nested JSON
        return CheckResult(name, error=FileError(name, "invalid notebook: JSON too deeply nested"))
    except (TypeError, AttributeError):  # e.g. a cell "source" list holding non-strings
        return CheckResult(name, error=FileError(name, "invalid notebook: a code cell's source is not text"))
    joined = join_cells(cells)
    result = check_source(joined.text, name, settings, context)
    findings = tuple(replace(f, message=relabel(f.message, joined)) for f in result.findings)
    return replace(result, findings=findings, cell_starts=joined.first_lines,
                   notes=tuple(relabel(n, joined) for n in result.notes))
