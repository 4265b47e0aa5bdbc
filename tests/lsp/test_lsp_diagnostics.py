"""Diagnostics over LSP: on open, after edits, UTF-16/UTF-8 columns, and survival under 1,000 edits."""

from __future__ import annotations

from lsp_sources import CLEAN, CONFLICT, FLAGGED, HEADER, PREFERRED
from lsp_support import (
    conflicts,
    diagnostics,
    has_conflict,
    no_conflict,
    open_doc,
    pulls,
    range_of,
    replace_all,
)
from lsprotocol import types

from hf_cache_lint.checking.source import check_source


async def test_conflict_is_reported_on_open_with_code_link_and_fixes(start, uri):
    client = await start()
    open_doc(client, uri, CONFLICT)
    (diag,) = conflicts(await diagnostics(client, uri, version=1, where=has_conflict))
    assert diag.code == "HFC001"
    assert diag.source == "hf-cache-lint"
    assert diag.severity == types.DiagnosticSeverity.Error
    assert diag.range == range_of(CONFLICT, FLAGGED, client.encoding)
    assert diag.code_description is not None
    assert diag.code_description.href.endswith("docs/rules/HFC001.md")
    assert diag.related_information, "where cache_implementation was set"
    assert all(r.location.uri == uri for r in diag.related_information)
    assert diag.data["fixes"][0]["title"] == PREFERRED


async def test_pushed_diagnostics_carry_the_document_version(start, uri):
    client = await start()
    open_doc(client, uri, CONFLICT, version=7)
    await diagnostics(client, uri, version=7, where=has_conflict)
    if not pulls(client):
        assert client.versions[uri] == 7


async def test_edits_introducing_then_removing_a_conflict(start, uri):
    client = await start()
    open_doc(client, uri, CLEAN)
    assert no_conflict(await diagnostics(client, uri, version=1))
    # An incremental insert of `, cache_implementation="static"` before the closing parenthesis.
    line = CLEAN.count("\n") - 1
    col = len(CLEAN.splitlines()[line]) - 1
    at = types.Position(line, col)
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        [types.TextDocumentContentChangePartial(range=types.Range(at, at), text=', cache_implementation="static"')]))
    (diag,) = conflicts(await diagnostics(client, uri, version=2, where=has_conflict))
    assert diag.code == "HFC001"
    replace_all(client, uri, CLEAN, version=3)
    assert no_conflict(await diagnostics(client, uri, version=3, where=no_conflict))


async def test_columns_follow_the_negotiated_encoding_after_emoji_and_accents(start, uri):
    client = await start()
    text = HEADER + 'out = model.generate("héllo 🤗 wörld", past_key_values=DynamicCache(), cache_implementation="static")\n'
    open_doc(client, uri, text)
    (diag,) = conflicts(await diagnostics(client, uri, version=1, where=has_conflict))
    expected = range_of(text, FLAGGED, client.encoding)
    assert diag.range == expected
    # 🤗 is 2 UTF-16 units and 4 UTF-8 bytes: the columns differ from code points.
    assert expected.start.character != text.splitlines()[3].index(FLAGGED)


async def test_closing_a_document_clears_its_diagnostics(start, uri):
    client = await start()
    open_doc(client, uri, CONFLICT)
    await diagnostics(client, uri, version=1, where=has_conflict)
    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri)))
    if not pulls(client):
        await client.until(lambda: client.diagnostics.get(uri) == [])


async def test_a_thousand_rapid_edits_leave_the_server_alive_and_exact(start, uri):
    client = await start()
    open_doc(client, uri, CONFLICT)
    await diagnostics(client, uri, version=1)
    text, version = CONFLICT, 1
    for i in range(1000):
        version += 1
        # Type and delete characters inside a comment, and every 100 edits flip the conflict on or off.
        if i % 100 == 99:
            text = CONFLICT if text.endswith(CLEAN.splitlines()[-1] + "\n") else CLEAN
            replace_all(client, uri, text, version)
            continue
        at = types.Position(0, 0)
        if i % 2 == 0:
            client.text_document_did_change(types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                [types.TextDocumentContentChangePartial(range=types.Range(at, at), text="#")]))
            text = "#" + text
        else:
            end = types.Position(0, 1)
            client.text_document_did_change(types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                [types.TextDocumentContentChangePartial(range=types.Range(at, end), text="")]))
            text = text[1:]
    assert text == CONFLICT  # ten flips: back where it started
    expected = check_source(text, uri).findings
    assert expected
    got = await diagnostics(client, uri, version=version)
    assert [d.code for d in got] == [f.code for f in expected]
    assert [d.range.start.line + 1 for d in got] == [f.span.start.line for f in expected]
    # Still answering requests.
    hover = await client.text_document_hover_async(types.HoverParams(
        types.TextDocumentIdentifier(uri), types.Position(3, 10)))
    assert hover is None or isinstance(hover, types.Hover)


async def test_a_deprecation_is_a_struck_through_hint_on_by_default_in_the_editor(start, uri):
    # 5.24 still runs `past_key_values=` (a FutureWarning): HFC006, without asking for it (unlike the CLI).
    client = await start({"transformersVersion": "5.24.0"})
    open_doc(client, uri, CLEAN)
    (diag,) = await diagnostics(client, uri, version=1, where=lambda found: bool(found))
    assert diag.code == "HFC006"
    assert diag.severity == types.DiagnosticSeverity.Hint
    assert list(diag.tags or ()) == [types.DiagnosticTag.Deprecated]
    assert diag.range == range_of(CLEAN, FLAGGED, client.encoding)
    assert diag.data["fixes"][0]["title"] == "Rename to `cache=`"


async def test_a_deprecation_is_not_stacked_on_the_error_of_the_same_keyword(start, uri):
    client = await start({"transformersVersion": "5.24.0"})
    open_doc(client, uri, CONFLICT)
    found = await diagnostics(client, uri, version=1, where=has_conflict)
    assert [(d.code, d.severity, d.tags) for d in found] == [("HFC001", types.DiagnosticSeverity.Error, None)]


async def test_select_without_the_deprecation_rule_hides_it_in_the_editor(start, uri):
    client = await start({"transformersVersion": "5.24.0", "select": ["HFC001"]})
    open_doc(client, uri, CLEAN + "x = 1\n")
    replace_all(client, uri, CONFLICT, version=2)  # a publish to wait for: the conflict, and nothing else
    found = await diagnostics(client, uri, version=2, where=has_conflict)
    assert [d.code for d in found] == ["HFC001"]
    replace_all(client, uri, CLEAN, version=3)
    assert await diagnostics(client, uri, version=3, where=no_conflict) == []
