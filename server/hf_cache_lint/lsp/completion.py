"""Completion of `cache_implementation` values: positions converted here, items from checking/completion.py."""

from __future__ import annotations

from urllib.parse import unquote

from lsprotocol import types

from hf_cache_lint.checking import completion as engine_completion
from hf_cache_lint.lsp.convert import from_client_position, split_lines, to_client_range
from hf_cache_lint.lsp.documents import MAX_DOCUMENT_CHARS
from hf_cache_lint.lsp.server import HfCacheLintServer


async def completion(ls: HfCacheLintServer, params: types.CompletionParams) -> types.CompletionList | None:
    """Values of `cache_implementation` for the target version, deprecated ones tagged."""
    await ls.settings_ready.wait()  # the target version may be being re-resolved
    doc = ls.workspace.text_documents.get(unquote(params.text_document.uri))  # pygls keys by unquote(uri)
    if doc is None or len(doc.source) > MAX_DOCUMENT_CHARS:  # not analysed, not completed
        return None
    lines, codec = split_lines(doc.source), ls.workspace.position_codec
    position = from_client_position(lines, codec, params.position)
    context = ls.config_for(params.text_document.uri).context
    found = engine_completion.complete(doc.source, position, context.target)
    if found is None:
        return None
    replace = to_client_range(lines, codec, found.replace)
    tags = ls.supports("text_document.completion.completion_item.tag_support")
    items = [
        types.CompletionItem(
            label=item.value, kind=types.CompletionItemKind.EnumMember, detail=item.description,
            documentation=types.MarkupContent(
                types.MarkupKind.Markdown, f"{item.description} (transformers {context.target})"),
            sort_text=item.sort_key, filter_text=item.value,
            text_edit=types.TextEdit(replace, item.insert),
            tags=[types.CompletionItemTag.Deprecated] if item.deprecated and tags else None,
            deprecated=True if item.deprecated and not tags else None,
        )
        for item in found.items
    ]
    return types.CompletionList(is_incomplete=False, items=items)
