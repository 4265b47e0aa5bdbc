"""Notebook sync: pygls keeps the cells; here each change re-lints the whole notebook.

Any change can move a finding between cells (a cell defining the model moved below the call, a
cell deleted), so the unit is always the whole notebook and every cell is re-published.
"""

from __future__ import annotations

from lsprotocol import types

from hf_cache_lint.lsp import diagnostics
from hf_cache_lint.lsp.server import HfCacheLintServer


def opened(ls: HfCacheLintServer, params: types.DidOpenNotebookDocumentParams) -> None:
    ls.mark_saved(params.notebook_document.uri)
    diagnostics.schedule(ls, params.notebook_document.uri, debounce=False)


def changed(ls: HfCacheLintServer, params: types.DidChangeNotebookDocumentParams) -> None:
    uri = params.notebook_document.uri
    structure = params.change.cells.structure if params.change.cells else None
    if structure and structure.did_close:
        # Closed cells are gone from the workspace: clear their squiggles now (push clients).
        closed = [c.uri for c in structure.did_close]
        ls.state.published.get(uri, set()).difference_update(closed)
        if not ls.pull_diagnostics:
            for cell in closed:
                ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(cell, []))
    if ls.config_for(uri).settings.run == "onType":
        diagnostics.schedule(ls, uri)


def saved(ls: HfCacheLintServer, params: types.DidSaveNotebookDocumentParams) -> None:
    ls.mark_saved(params.notebook_document.uri)
    diagnostics.schedule(ls, params.notebook_document.uri, debounce=False)


def closed(ls: HfCacheLintServer, params: types.DidCloseNotebookDocumentParams) -> None:
    diagnostics.clear(ls, params.notebook_document.uri, [c.uri for c in params.cell_text_documents])
