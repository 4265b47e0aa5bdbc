"""Fix on save while the document moves: a code action answers with the verified fixes of the text the client has.

VS Code's save participant (`editor.codeActionsOnSave`, the README's block) asks for `source.fixAll.hf-cache-lint`
once, right after the edit it saves, and never asks again: an empty answer saves the file unfixed. LSP code
actions carry no version, so the answer must be for the text the client holds when it reads it.

No sleeps: the server is held inside a workspace/configuration round trip (its settings read, which every check
waits for) by the client's own handler (lsp_support `before_configuration`), and a request the server answers at
once tells the test that the code action before it is waiting.
"""

from __future__ import annotations

import asyncio

from lsp_sources import CONFLICT, HEADER
from lsp_support import TIMEOUT, apply, conflicts, diagnostics, has_conflict, open_doc, replace_all
from lsprotocol import types

FIX_ALL = "source.fixAll.hf-cache-lint"
FIXED_CALL = "out = model.generate(past_key_values=DynamicCache(), cache_implementation=None)\n"
SAVED = "# saved with fix on save\n"
TYPED = "# typed while the fix was on its way\n"


def fix_all_request(client, uri):
    """What VS Code's save participant sends: the whole document, only the fixAll kind, no diagnostics."""
    return client.text_document_code_action_async(types.CodeActionParams(
        types.TextDocumentIdentifier(uri), types.Range(types.Position(0, 0), types.Position(0, 0)),
        types.CodeActionContext([], only=[FIX_ALL], trigger_kind=types.CodeActionTriggerKind.Automatic)))


def applied(client, uri, actions, text, version):
    """The one fixAll action applied to `text`, as a client does: a versioned edit only to that version."""
    (action,) = actions
    assert isinstance(action, types.CodeAction) and action.kind == FIX_ALL
    edit = action.edit
    assert edit is not None
    if edit.document_changes:
        (change,) = edit.document_changes
        assert isinstance(change, types.TextDocumentEdit)
        assert change.text_document.uri == uri and change.text_document.version == version
        edits = list(change.edits)
    else:
        edits = list((edit.changes or {})[uri])
    return apply(text, edits, client.encoding)


async def test_fix_all_right_after_an_edit_fixes_the_edited_text(start, uri):
    client = await start()
    open_doc(client, uri, CONFLICT)
    assert conflicts(await diagnostics(client, uri, version=1, where=has_conflict))
    # Type and save at once: the edit, then at once the save participant's request for the new version.
    replace_all(client, uri, SAVED + CONFLICT, version=2)
    actions = await asyncio.wait_for(fix_all_request(client, uri), TIMEOUT)
    assert applied(client, uri, actions, SAVED + CONFLICT, version=2) == SAVED + HEADER + FIXED_CALL


async def test_fix_all_answers_for_the_current_text_when_an_edit_lands_while_it_waits(start, uri, tmp_path):
    """didChange, codeAction, then didChangeConfiguration's settings read holds the check; another didChange
    lands while the code action waits. The answer is the current version's fix, not nothing."""
    client = await start()
    open_doc(client, uri, CONFLICT)
    assert conflicts(await diagnostics(client, uri, version=1, where=has_conflict))
    await asyncio.wait_for(fix_all_request(client, uri), TIMEOUT)  # the code actions' modules are loaded
    reading = asyncio.Event()
    release = asyncio.Event()

    async def hold() -> None:
        reading.set()
        await release.wait()

    client.before_configuration = hold
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    await asyncio.wait_for(reading.wait(), TIMEOUT)  # the server reads its settings: checks wait for them
    replace_all(client, uri, SAVED + CONFLICT, version=2)
    pending = asyncio.ensure_future(fix_all_request(client, uri))
    # Answered at once (no such document): the server has started the code action sent before it.
    other = (tmp_path / "not_open.py").as_uri()
    assert list(await asyncio.wait_for(fix_all_request(client, other), TIMEOUT)) == []
    assert not pending.done()
    replace_all(client, uri, TYPED + SAVED + CONFLICT, version=3)
    release.set()  # the settings answer goes after the edit: the held check resumes with version 3 open
    actions = await asyncio.wait_for(pending, TIMEOUT)
    assert applied(client, uri, actions, TYPED + SAVED + CONFLICT, version=3) == TYPED + SAVED + HEADER + FIXED_CALL
