"""A file analysed only in part (a statement too deeply nested) says so in the editor: one Information
diagnostic at the top, with the findings of the rest of the file still shown."""

from __future__ import annotations

from lsp_sources import CONFLICT
from lsp_support import conflicts, diagnostics, has_conflict, open_doc
from lsprotocol import types

DEEP = "x = " + "(" * 3000 + "1" + ")" * 3000 + "\n"


async def test_a_skipped_statement_is_one_information_diagnostic(start, uri):
    client = await start()
    open_doc(client, uri, DEEP + CONFLICT)
    found = await diagnostics(client, uri, version=1, where=has_conflict)
    assert len(conflicts(found)) == 1
    [note] = [d for d in found if d.code is None]
    assert note.severity == types.DiagnosticSeverity.Information and note.source == "hf-cache-lint"
    assert note.message == "hf-cache-lint: a statement too deeply nested to analyse skipped (at line 1)"
    assert note.range == types.Range(types.Position(0, 0), types.Position(0, 0))
