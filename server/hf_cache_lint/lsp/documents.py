"""What gets analysed together: a text document, or a notebook's code cells in cell order.

A `Unit` is an immutable snapshot (uris, versions, texts), so an analysis of it can run in a worker
thread while edits arrive, and its `key` tells whether a result still matches the open documents.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import unquote

from lsprotocol import types
from pygls.uris import to_fs_path

from hf_cache_lint.engine.base.findings import Finding
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.settings import Settings

if TYPE_CHECKING:
    from pygls.workspace import Workspace

# A document (a notebook: all its code cells) longer than this is not analysed: one Information diagnostic
# says so. The same cap the engine puts on the workspace modules it imports (engine/interpreter/modules.py).
MAX_DOCUMENT_CHARS = 2 * 1024 * 1024


@dataclass(frozen=True)
class Part:
    """One text document of a unit: a file, or one notebook cell."""

    uri: str
    version: int | None
    text: str


@dataclass(frozen=True)
class Unit:
    """A file or a notebook, as open in the editor at one moment."""

    uri: str
    parts: tuple[Part, ...]
    notebook: bool = False

    @property
    def key(self) -> tuple[tuple[str, int | None], ...]:
        """Changes whenever any part changes (a cell edited, added, moved or removed)."""
        return tuple((p.uri, p.version) for p in self.parts)

    @property
    def path(self) -> str:
        return uri_to_path(self.uri)


log = logging.getLogger(__name__)

class Results(dict[str, tuple[Finding, ...]]):
    """Part uri -> findings in that part's coordinates; `notes`: what the analysis left out (the file is
    beyond its budget, a statement too deeply nested), shown once on the unit's first part."""

    notes: tuple[str, ...] = ()


def unit_in(ws: Workspace, uri: str) -> Unit | None:
    """The open file or notebook `uri` belongs to in the workspace (a cell uri gives its notebook)."""
    notebook = ws.get_notebook_document(cell_uri=uri) or ws.get_notebook_document(notebook_uri=uri)
    if notebook is not None:
        parts = []
        for cell in notebook.cells:
            if cell.kind != types.NotebookCellKind.Code:
                continue
            doc = ws.text_documents.get(unquote(cell.document))  # pygls keys documents by unquote(uri)
            if doc is not None:
                parts.append(Part(cell.document, doc.version, doc.source))
        return Unit(notebook.uri, tuple(parts), notebook=True)
    doc = ws.text_documents.get(unquote(uri))
    return Unit(uri, (Part(uri, doc.version, doc.source),)) if doc is not None else None


def too_big(unit: Unit) -> int | None:
    """The unit's length in characters when it is too long to analyse (MAX_DOCUMENT_CHARS), else None."""
    size = sum(len(p.text) for p in unit.parts)
    return size if size > MAX_DOCUMENT_CHARS else None


def uri_to_path(uri: str) -> str:
    """A file path for messages and checkpoint lookups; other schemes keep the uri (untitled:, vscode-notebook-cell:).

    pygls's `to_fs_path`, not urlparse: `file:///c%3A/x.py` is `c:/x.py` on Windows (urlparse gives `/c:/x.py`),
    and a UNC `file://server/share/x.py` keeps its host."""
    return to_fs_path(uri) or uri


def analyse_unit(unit: Unit, settings: Settings, context: Context) -> Results:
    """Run the engine over a unit; cells go through `check_cells` so they act as one module."""
    from hf_cache_lint.checking.source import check_source  # see warm_up

    if not unit.notebook:
        (part,) = unit.parts
        # Stories are written on hover (lsp/hover.py reads them), not on every keystroke.
        result = check_source(part.text, unit.path, settings, context, incremental=True, lazy_stories=True)
        results = Results({part.uri: result.findings})
        results.notes = result.notes
        return results
    # Only here: a text document's first diagnostics do not wait for the notebook modules (startup.warm_requests
    # imports them once the first results are out).
    from hf_cache_lint.checking.notebooks import check_cells_result

    results = Results({p.uri: () for p in unit.parts})
    per_cell: dict[int, list[Finding]] = {}
    found_in_cells, results.notes = check_cells_result([p.text for p in unit.parts], unit.path, settings, context,
                                                       incremental=True, lazy_stories=True)
    for index, finding in found_in_cells:
        per_cell.setdefault(index, []).append(finding)
    for index, found in per_cell.items():
        results[unit.parts[index].uri] = tuple(found)
    return results


def warm_up() -> None:
    """Import and exercise the engine in the worker thread while the client is still handshaking.

    The engine's imports are kept out of the server's start so `initialize` is answered sooner
    and this cost overlaps the client's initialized/configuration/didOpen round trips.
    """
    try:
        from hf_cache_lint.checking.source import check_source

        # Without the gate (engine/screen/gate.py), as the server checks everything: a buffer's check is incremental
        # and a fix's re-check passes use_gate=False. A gated warm-up imported the gate's five modules and ran it,
        # ~7 ms between spawn and the first diagnostics that nothing the server does later reads.
        check_source("model.generate(x, cache_implementation='static')\n", "<warm-up>", use_gate=False)
    except Exception:  # a real run will fail the same way and report it; never fail the handshake
        log.exception("engine warm-up failed")


def cell_index_of(unit: Unit, label: str | None) -> int | None:
    """`Related.path` "cell:N" (a place in another cell, see engine/text/notebook.py) -> N."""
    if label and label.startswith("cell:") and label[5:].isdigit():
        index = int(label[5:])
        return index if index < len(unit.parts) else None
    return None


def parts_by_uri(units: Sequence[Unit]) -> dict[str, Unit]:
    return {p.uri: u for u in units for p in u.parts}
