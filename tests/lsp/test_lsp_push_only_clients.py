"""Clients that only take pushed diagnostics (Neovim 0.7, eglot, ALE): the whole loop still works."""

from __future__ import annotations

from lsp_sources import CONFLICT, FLAGGED, HEADER, PREFERRED_ACTION
from lsp_support import (
    apply,
    conflicts,
    diagnostics,
    edits_for,
    has_conflict,
    no_conflict,
    open_doc,
    pulls,
    range_of,
)
from lsprotocol import types


async def test_push_only_clients_get_diagnostics_and_a_working_quick_fix(start_push_only, uri):
    client = await start_push_only()
    assert not pulls(client)
    text = HEADER + 'out = model.generate("🤗", past_key_values=DynamicCache(), cache_implementation="static")\n'
    open_doc(client, uri, text)
    (diag,) = conflicts(await diagnostics(client, uri, version=1, where=has_conflict))
    assert diag.range == range_of(text, FLAGGED, client.encoding)
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        types.TextDocumentIdentifier(uri), diag.range, types.CodeActionContext([diag])))
    (preferred,) = [a for a in actions if a.is_preferred]
    assert preferred.title == PREFERRED_ACTION and preferred.kind == "quickfix"
    fixed = apply(text, edits_for(preferred.edit, uri), client.encoding)
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        [types.TextDocumentContentChangeWholeDocument(text=fixed)]))
    assert no_conflict(await diagnostics(client, uri, version=2, where=no_conflict))
    assert fixed != CONFLICT
