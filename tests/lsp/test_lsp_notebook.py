"""Notebooks: cells analysed together in cell order, diagnostics per cell, structure changes re-publish."""

from __future__ import annotations

from pathlib import Path

from lsp_sources import CALL, FLAGGED, HEADER
from lsp_support import apply, conflicts, diagnostics, edits_for, has_conflict, no_conflict, pulls, range_of
from lsprotocol import types


def cell_uri(path: Path, n: int) -> str:
    return f"vscode-notebook-cell://{path.as_posix()}#W{n}"


def cell(uri: str) -> types.NotebookCell:
    return types.NotebookCell(kind=types.NotebookCellKind.Code, document=uri)


def item(uri: str, text: str, version: int = 1) -> types.TextDocumentItem:
    return types.TextDocumentItem(uri=uri, language_id="python", version=version, text=text)


async def open_notebook(client, path: Path, texts: list[str]) -> tuple[str, list[str]]:
    nb = path.as_uri()
    uris = [cell_uri(path, i) for i in range(len(texts))]
    client.notebook_document_did_open(types.DidOpenNotebookDocumentParams(
        types.NotebookDocument(uri=nb, notebook_type="jupyter-notebook", version=1, cells=[cell(u) for u in uris]),
        [item(u, t) for u, t in zip(uris, texts, strict=True)]))
    return nb, uris


def publishes(client, uri: str) -> int:
    return sum(1 for p in client.published if p.uri == uri)


async def test_notebook_sync_is_declared_with_a_notebook_selector(start):
    client = await start(notebooks=True)
    sync = client.init_result.capabilities.notebook_document_sync
    assert sync is not None
    assert sync.notebook_selector[0].notebook == "*"


async def test_cells_are_one_module_and_diagnostics_land_on_the_right_cell(start, tmp_path):
    client = await start(notebooks=True)
    _, (c0, c1, c2) = await open_notebook(client, tmp_path / "nb.ipynb", [HEADER, "x = 1\n", CALL])
    assert no_conflict(await diagnostics(client, c0, where=no_conflict))
    (diag,) = conflicts(await diagnostics(client, c2, where=has_conflict))
    assert diag.code == "HFC001"
    assert diag.range == range_of(CALL, FLAGGED, client.encoding)  # in the cell's own coordinates
    assert await diagnostics(client, c1) == []


async def test_editing_one_cell_republishes_the_others(start, tmp_path):
    client = await start(notebooks=True)
    nb, (c0, c1) = await open_notebook(client, tmp_path / "nb.ipynb", [HEADER, CALL])
    await diagnostics(client, c1, where=has_conflict)
    before = publishes(client, c0)
    client.notebook_document_did_change(types.DidChangeNotebookDocumentParams(
        types.VersionedNotebookDocumentIdentifier(version=2, uri=nb),
        types.NotebookDocumentChangeEvent(cells=types.NotebookDocumentCellChanges(text_content=[
            types.NotebookDocumentCellContentChanges(
                document=types.VersionedTextDocumentIdentifier(uri=c1, version=2),
                changes=[types.TextDocumentContentChangeWholeDocument(text=CALL.replace('"static"', "None"))])]))))
    assert no_conflict(await diagnostics(client, c1, version=2, where=no_conflict))
    if not pulls(client):
        await client.until(lambda: publishes(client, c0) > before)


async def test_deleting_and_adding_cells_moves_the_findings(start, tmp_path):
    client = await start(notebooks=True)
    path = tmp_path / "nb.ipynb"
    nb, (c0, c1) = await open_notebook(client, path, [HEADER, CALL])
    await diagnostics(client, c1, where=has_conflict)
    # Delete the conflicting cell: its squiggles go.
    client.notebook_document_did_change(types.DidChangeNotebookDocumentParams(
        types.VersionedNotebookDocumentIdentifier(version=2, uri=nb),
        types.NotebookDocumentChangeEvent(cells=types.NotebookDocumentCellChanges(
            structure=types.NotebookDocumentCellChangeStructure(
                array=types.NotebookCellArrayChange(start=1, delete_count=1),
                did_close=[types.TextDocumentIdentifier(c1)])))))
    if not pulls(client):
        await client.until(lambda: client.diagnostics.get(c1) == [])
    # Insert it again as a new cell at the end: the finding appears there.
    c2 = cell_uri(path, 2)
    client.notebook_document_did_change(types.DidChangeNotebookDocumentParams(
        types.VersionedNotebookDocumentIdentifier(version=3, uri=nb),
        types.NotebookDocumentChangeEvent(cells=types.NotebookDocumentCellChanges(
            structure=types.NotebookDocumentCellChangeStructure(
                array=types.NotebookCellArrayChange(start=1, delete_count=0, cells=[cell(c2)]),
                did_open=[item(c2, CALL)])))))
    (diag,) = conflicts(await diagnostics(client, c2, where=has_conflict))
    assert diag.code == "HFC001"
    assert await diagnostics(client, c0) == []


async def test_closing_a_notebook_clears_every_cell(start, tmp_path):
    client = await start(notebooks=True)
    nb, uris = await open_notebook(client, tmp_path / "nb.ipynb", [HEADER, CALL])
    await diagnostics(client, uris[1], where=has_conflict)
    client.notebook_document_did_close(types.DidCloseNotebookDocumentParams(
        types.NotebookDocumentIdentifier(nb), [types.TextDocumentIdentifier(u) for u in uris]))
    if not pulls(client):
        await client.until(lambda: client.diagnostics.get(uris[1]) == [])


async def test_notebook_fix_all_edits_every_cell(start, tmp_path):
    client = await start(notebooks=True)
    second = CALL.replace("out =", "again =")
    _, (_, c1, c2) = await open_notebook(client, tmp_path / "nb.ipynb", [HEADER, CALL, second])
    (diag,) = conflicts(await diagnostics(client, c1, where=has_conflict))
    await diagnostics(client, c2, where=has_conflict)
    (action,) = await client.text_document_code_action_async(types.CodeActionParams(
        types.TextDocumentIdentifier(c1), diag.range,
        types.CodeActionContext([diag], only=["notebook.source.fixAll.hf-cache-lint"])))
    assert action.kind == "notebook.source.fixAll.hf-cache-lint"
    for uri, text in ((c1, CALL), (c2, second)):
        assert "cache_implementation=None" in apply(text, edits_for(action.edit, uri), client.encoding)
