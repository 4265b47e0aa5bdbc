"""Hover (finding story + rule docs, or what a value builds) and completion of cache_implementation values."""

from __future__ import annotations

from lsp_sources import CLEAN, CONFLICT, HEADER
from lsp_support import conflicts, diagnostics, has_conflict, open_doc, position_of, replace_all
from lsprotocol import types

from hf_cache_lint.engine.environment.release_version import NEWEST
from hf_cache_lint.engine.environment.target import Target

# The exact text transformers 5.24 raises for this call (docs/facts.md section 1).
RAISED = Target.of(NEWEST).conflict_message("past_key_values", None).removeprefix("ValueError: ")


async def hover_at(client, uri, text, needle, shift=1):
    pos = position_of(text, needle, client.encoding)
    pos = types.Position(pos.line, pos.character + shift)
    return await client.text_document_hover_async(types.HoverParams(types.TextDocumentIdentifier(uri), pos))


async def test_hover_on_the_flagged_keyword_tells_the_story_not_the_message_again(start, uri):
    client = await start()
    open_doc(client, uri, CONFLICT)
    (diag,) = conflicts(await diagnostics(client, uri, version=1, where=has_conflict))
    hover = await hover_at(client, uri, CONFLICT, "past_key_values=")
    assert isinstance(hover.contents, types.MarkupContent)
    assert hover.contents.kind == types.MarkupKind.Markdown
    # The editor shows the message (which quotes the exact error) right above: the hover adds the story.
    assert RAISED in diag.message and RAISED not in hover.contents.value
    assert "**The cache**: `past_key_values=` receives a `DynamicCache`" in hover.contents.value
    assert '**`cache_implementation="static"`**: passed in this call, [line 4]' in hover.contents.value
    assert "**[HFC001 cache-conflict](" in hover.contents.value  # then a pointer to the rule docs
    assert "## What it does" not in hover.contents.value  # not the whole page


async def test_the_story_is_written_on_hover_from_the_text_as_it_is_then(start, uri):
    # The server writes a finding's story only when a hover asks (lsp/documents.py: lazy stories); it must still
    # tell the story of the text the hover is on, after edits, not of an older version.
    client = await start()
    open_doc(client, uri, CONFLICT)
    await diagnostics(client, uri, version=1, where=has_conflict)
    first = await hover_at(client, uri, CONFLICT, "past_key_values=")
    moved = "\n\n" + CONFLICT.replace('"static"', '"offloaded"')
    replace_all(client, uri, moved, version=2)
    await diagnostics(client, uri, version=2, where=has_conflict)
    second = await hover_at(client, uri, moved, "past_key_values=")
    again = await hover_at(client, uri, moved, "past_key_values=")
    assert first is not None and second is not None and again is not None
    assert '`cache_implementation="static"`' in first.contents.value and "#L4)" in first.contents.value
    assert '`cache_implementation="offloaded"`' in second.contents.value and "#L6)" in second.contents.value
    assert '"static"' not in second.contents.value and "#L4)" not in second.contents.value
    assert again.contents.value == second.contents.value


async def test_hover_on_cache_implementation_of_a_flagged_call_shows_the_same_story(start, uri):
    client = await start()
    open_doc(client, uri, CONFLICT)
    await diagnostics(client, uri, version=1, where=has_conflict)
    hover = await hover_at(client, uri, CONFLICT, "cache_implementation=")
    assert hover is not None and RAISED in hover.contents.value


async def test_hover_on_a_clean_value_explains_what_it_builds_for_the_target(start, uri):
    client = await start()
    text = HEADER + 'out = model.generate(cache_implementation="static")\n'
    open_doc(client, uri, text)
    await diagnostics(client, uri, version=1)
    hover = await hover_at(client, uri, text, '"static"')
    assert hover is not None
    assert "StaticCache" in hover.contents.value
    assert f"transformers {NEWEST}" in hover.contents.value
    assert RAISED.replace("`past_key_values`", "`cache`") in hover.contents.value


async def test_no_hover_away_from_cache_code(start, uri):
    client = await start()
    open_doc(client, uri, CLEAN)
    assert await hover_at(client, uri, CLEAN, "import", shift=0) is None


async def test_completion_lists_values_valid_for_the_default_target(start, uri):
    client = await start()
    text = HEADER + 'out = model.generate(cache_implementation="")\n'  # the editor closed the quote
    open_doc(client, uri, text)
    pos = position_of(text, '="")', client.encoding)
    result = await client.text_document_completion_async(types.CompletionParams(
        types.TextDocumentIdentifier(uri), types.Position(pos.line, pos.character + 2)))
    items = {i.label: i for i in result.items}
    assert {"static", "paged", "dynamic", "offloaded"} <= items.keys()
    assert "dynamic_full" not in items  # 4.x only
    assert items["static"].detail and "StaticCache" in items["static"].detail
    assert items["static"].text_edit.new_text == "static"  # the closing quote is already there
    hybrid = items["sliding_window"]
    assert types.CompletionItemTag.Deprecated in (hybrid.tags or ()) or hybrid.deprecated


async def test_completion_in_dict_and_attribute_assignments(start, uri):
    client = await start()
    text = 'kw = {"cache_implementation": "st\nmodel.generation_config.cache_implementation = \n'
    open_doc(client, uri, text)
    for line, character in ((0, len('kw = {"cache_implementation": "st')),
                            (1, len("model.generation_config.cache_implementation = "))):
        result = await client.text_document_completion_async(types.CompletionParams(
            types.TextDocumentIdentifier(uri), types.Position(line, character)))
        assert "static" in {i.label for i in result.items}
    # Outside a value: nothing.
    result = await client.text_document_completion_async(types.CompletionParams(
        types.TextDocumentIdentifier(uri), types.Position(0, 2)))
    assert result is None or not result.items
