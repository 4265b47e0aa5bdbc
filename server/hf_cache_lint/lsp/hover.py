"""Hover: positions converted here, the Markdown composed by checking/hover.py (the rule docs passed in)."""

from __future__ import annotations

from urllib.parse import unquote

from lsprotocol import types

from hf_cache_lint.checking import hover as engine_hover
from hf_cache_lint.lsp.convert import from_client_position, split_lines, to_client_range
from hf_cache_lint.lsp.documents import Results
from hf_cache_lint.lsp.server import HfCacheLintServer


async def hover(ls: HfCacheLintServer, params: types.HoverParams) -> types.Hover | None:
    uri = params.text_document.uri
    unit = ls.unit_for(uri)
    if unit is None:
        return None
    part = next((p for p in unit.parts if unquote(p.uri) == unquote(uri)), None)
    if part is None:  # a cell uri the notebook no longer has
        return None
    if ls.too_big(unit) is not None:
        return None  # not analysed: nothing to say, and no 20 MB line split on the event loop
    results = await ls.results_for(unit) or Results()
    lines, codec = split_lines(part.text), ls.workspace.position_codec
    position = from_client_position(lines, codec, params.position)
    findings = results.get(part.uri, ())
    docs: engine_hover.RuleDocs = {}
    if findings:
        # Imported only with findings to explain: it imports the rules, which the check that found them (on the
        # engine thread) has loaded already; a hover never pays for that import on the event loop.
        from hf_cache_lint.checking.rule_docs import rule_docs

        docs = rule_docs()
    found = engine_hover.hover(findings, part.text, position, ls.config_for(unit.uri).context, docs)
    if found is None:
        return None
    return types.Hover(types.MarkupContent(types.MarkupKind.Markdown, found.markdown),
                       to_client_range(lines, codec, found.span))
