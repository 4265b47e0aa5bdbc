"""Code actions over LSP: the verified fixes of every finding in the range, ignore comments last, fixAll."""

from __future__ import annotations

from lsp_sources import CALL, CONFLICT, HEADER, PREFERRED_ACTION, TITLES, in_editor
from lsp_support import (
    apply,
    conflicts,
    diagnostics,
    edits_for,
    has_conflict,
    no_conflict,
    open_doc,
    replace_all,
)
from lsprotocol import types


async def actions_for(client, uri, diag, only=None, sent=None):
    return await client.text_document_code_action_async(types.CodeActionParams(
        types.TextDocumentIdentifier(uri), diag.range,
        types.CodeActionContext([diag] if sent is None else sent, only=only)))


def titles_of(actions, code="HFC001"):
    """The titles of the actions that fix findings of `code` (other findings may share the range)."""
    return [a.title for a in actions if a.diagnostics and a.diagnostics[0].code == code]


async def test_quick_fixes_are_the_rule_fixes_with_exact_titles_and_kind(start, uri):
    client = await start()
    open_doc(client, uri, CONFLICT)
    (diag,) = conflicts(await diagnostics(client, uri, version=1, where=has_conflict))
    actions = await actions_for(client, uri, diag, only=[types.CodeActionKind.QuickFix])
    assert titles_of(actions) == TITLES
    titles = [a.title for a in actions]
    assert titles[:3] == TITLES[:3]  # the Error's fixes first, whatever else overlaps (a deprecation)
    ignores = [t for t in titles if ": Ignore " in t]
    assert titles[len(titles) - len(ignores):] == ignores  # ignore actions last
    # eglot shows only kind exactly `quickfix`.
    assert {a.kind for a in actions} == {types.CodeActionKind.QuickFix}
    assert [a.title for a in actions if a.is_preferred] == [PREFERRED_ACTION]
    assert all(list(a.diagnostics or ()) == [diag] for a in actions if a.diagnostics[0].code == "HFC001")


async def test_applying_the_preferred_fix_removes_the_diagnostic(start, uri):
    client = await start()
    open_doc(client, uri, CONFLICT)
    (diag,) = conflicts(await diagnostics(client, uri, version=1, where=has_conflict))
    (action,) = [a for a in await actions_for(client, uri, diag) if a.is_preferred]
    fixed = apply(CONFLICT, edits_for(action.edit, uri), client.encoding)
    assert fixed == HEADER + "out = model.generate(past_key_values=DynamicCache(), cache_implementation=None)\n"
    replace_all(client, uri, fixed, version=2)
    left = await diagnostics(client, uri, version=2, where=no_conflict)
    # On 5.24 (the default target) the kept `past_key_values=` is deprecated: the Hint (struck through in
    # VS Code) that appears where the Error was says why the fix left it.
    assert [(d.code, d.severity) for d in left] == [("HFC006", types.DiagnosticSeverity.Hint)]
    assert "`cache_implementation=None` beside it (HFC001's fix) is right and stays" in left[0].message


async def test_ignore_action_adds_a_suppression_comment_that_silences_the_line(start, uri):
    client = await start()
    open_doc(client, uri, CONFLICT)
    (diag,) = conflicts(await diagnostics(client, uri, version=1, where=has_conflict))
    (action,) = [a for a in await actions_for(client, uri, diag) if a.title == in_editor("Ignore HFC001 on this line")]
    fixed = apply(CONFLICT, edits_for(action.edit, uri), client.encoding)
    assert fixed.splitlines()[-1].endswith("# hf-cache-lint: ignore[HFC001]")
    replace_all(client, uri, fixed, version=2)
    assert no_conflict(await diagnostics(client, uri, version=2, where=no_conflict))


async def test_fix_all_applies_every_preferred_fix(start, uri):
    client = await start()
    text = CONFLICT + CALL.replace("out =", "again =")
    open_doc(client, uri, text)
    found = conflicts(await diagnostics(client, uri, version=1, where=lambda d: len(conflicts(d)) == 2))
    assert len(found) == 2
    actions = await actions_for(client, uri, found[0], only=["source.fixAll.hf-cache-lint"])
    (action,) = actions
    assert action.kind == "source.fixAll.hf-cache-lint"
    fixed = apply(text, edits_for(action.edit, uri), client.encoding)
    assert fixed.count("cache_implementation=None") == 2
    replace_all(client, uri, fixed, version=2)
    left = await diagnostics(client, uri, version=2, where=no_conflict)
    # Each call keeps its deprecated `past_key_values=` on 5.24; each Hint says why the fix left it.
    assert [(d.code, d.severity) for d in left] == [("HFC006", types.DiagnosticSeverity.Hint)] * 2
    assert all("(HFC001's fix) is right and stays" in d.message for d in left)


async def test_a_source_request_includes_fix_all_but_no_quick_fixes(start, uri):
    client = await start()
    open_doc(client, uri, CONFLICT)
    (diag,) = conflicts(await diagnostics(client, uri, version=1, where=has_conflict))
    actions = await actions_for(client, uri, diag, only=[types.CodeActionKind.Source])
    assert [a.kind for a in actions] == ["source.fixAll.hf-cache-lint"]


async def test_a_stale_diagnostic_gets_current_fixes_or_none(start, uri):
    client = await start()
    open_doc(client, uri, CONFLICT)
    (old,) = conflicts(await diagnostics(client, uri, version=1, where=has_conflict))
    # An edit below the call: the old diagnostic's range still matches, its data is one version old.
    replace_all(client, uri, CONFLICT + "# more\n", version=2)
    await diagnostics(client, uri, version=2, where=has_conflict)
    assert titles_of(await actions_for(client, uri, old, only=[types.CodeActionKind.QuickFix])) == TITLES
    # A line inserted above: the old range points at the wrong text, so no edit is offered there.
    shifted = "\n" + CONFLICT
    replace_all(client, uri, shifted, version=3)
    await diagnostics(client, uri, version=3, where=lambda d: has_conflict(d) and conflicts(d)[0].range != old.range)
    assert not await actions_for(client, uri, old, only=[types.CodeActionKind.QuickFix])


async def test_a_percent_encoded_uri_gets_diagnostics_and_fixes(start, tmp_path):
    # pygls keys documents by unquote(uri); a folder with a space arrives as `work%20space`.
    client = await start()
    spaced = (tmp_path / "work space" / "script.py").as_uri()
    assert "%20" in spaced
    open_doc(client, spaced, CONFLICT)
    (diag,) = conflicts(await diagnostics(client, spaced, version=1, where=has_conflict))
    actions = await actions_for(client, spaced, diag, only=[types.CodeActionKind.QuickFix])
    assert titles_of(actions) == TITLES


async def test_a_diagnostic_echoed_without_source_still_gets_its_fixes(start, uri):
    # Vim's ALE sends context diagnostics back with only code, message and range.
    client = await start()
    open_doc(client, uri, CONFLICT)
    (diag,) = conflicts(await diagnostics(client, uri, version=1, where=has_conflict))
    bare = types.Diagnostic(range=diag.range, message=diag.message, code=diag.code)
    actions = await actions_for(client, uri, bare, only=[types.CodeActionKind.QuickFix])
    assert titles_of(actions) == TITLES


async def test_any_subset_of_diagnostics_sent_gets_every_overlapping_finding_error_first(start, uri):
    # ALE sends the one diagnostic under the cursor; here the other finding in the range (a 5.24 deprecation
    # on a second call of the line: HFC006 never stacks on the conflict's own keyword), or none at all: the
    # Error's fixes still come first, and the preferred one is its.
    client = await start()
    line = CALL.rstrip("\n") + "; again = model.generate(past_key_values=DynamicCache())\n"
    open_doc(client, uri, HEADER + line)
    found = await diagnostics(client, uri, version=1, where=lambda ds: has_conflict(ds) and len(ds) == 2)
    (_error,) = conflicts(found)
    others = [d for d in found if d.code != "HFC001"]
    assert [d.code for d in others] == ["HFC006"]
    row = HEADER.count("\n")
    whole_line = types.Diagnostic(range=types.Range(types.Position(row, 0), types.Position(row, len(line) - 1)),
                                  message="", code=None)
    bare = types.Diagnostic(range=others[0].range, message=others[0].message, code=others[0].code)
    for sent in ([bare], []):
        actions = await actions_for(client, uri, whole_line, only=[types.CodeActionKind.QuickFix], sent=sent)
        assert [a.title for a in actions][:3] == TITLES[:3]
        # One preferred fix per finding (their edits do not overlap), the Error's first; the deprecation's
        # rename is unsafe (it does not run before 5.24): offered, never preferred.
        assert [a.title for a in actions if a.is_preferred] == [PREFERRED_ACTION]
        assert in_editor("Rename to `cache=`", "HFC006") in [a.title for a in actions]
        assert titles_of(actions, others[0].code), "the other finding's fixes are offered too"
        assert [a.title for a in actions][-2:] == sorted(t for t in (a.title for a in actions) if ": Ignore " in t)
