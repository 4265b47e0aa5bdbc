"""Code actions: the rule fixes carried in `Diagnostic.data`, an ignore comment, and fixAll."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any
from urllib.parse import unquote

from lsprotocol import types

from hf_cache_lint.engine.findings import Edit, Finding, Fix, Span
from hf_cache_lint.engine.suppress import ignore_comment
from hf_cache_lint.lsp.convert import SOURCE, fix_json, split_lines, text_edits, to_client_range
from hf_cache_lint.lsp.documents import Part
from hf_cache_lint.lsp.server import HfCacheLintServer

# eglot 1.9 lists only actions whose kind is exactly `quickfix` (REAL-CLIENTS.md): no sub-kinds.
QUICKFIX = types.CodeActionKind.QuickFix
FIX_ALL = "source.fixAll.hf-cache-lint"
NOTEBOOK_FIX_ALL = "notebook.source.fixAll.hf-cache-lint"
KINDS = [QUICKFIX, FIX_ALL, NOTEBOOK_FIX_ALL]


def wanted(kind: str, only: Sequence[str] | None) -> bool:
    """LSP kinds are hierarchical: asking for `source` includes `source.fixAll.hf-cache-lint`."""
    return not only or any(k == "" or kind == k or kind.startswith(k + ".") for k in only)


def ignore_fix(finding_code: str, line: int, line_text: str) -> Fix:
    column, text = ignore_comment(line_text.rstrip("\r\n"), finding_code)
    return Fix(f"Ignore {finding_code} on this line", (Edit(Span.of(line, column, line, column), text),))


def with_ignore(fixes: list[Mapping[str, Any]], code: str, line: int, part: Part,
                ls: HfCacheLintServer) -> list[Mapping[str, Any]]:
    """Rules normally ship the ignore fix; add it when one does not."""
    if any(str(f.get("title", "")).startswith("Ignore ") for f in fixes):
        return fixes
    lines = split_lines(part.text)
    if line > len(lines):
        return fixes
    return [*fixes, fix_json(ignore_fix(code, line, lines[line - 1]), lines, ls.workspace.position_codec)]


def workspace_edit(ls: HfCacheLintServer, edits: Mapping[str, tuple[int | None, list[types.TextEdit]]]
                   ) -> types.WorkspaceEdit:
    """Versioned documentChanges when the client takes them (a stale fix is then refused), else changes."""
    if ls.supports("workspace.workspace_edit.document_changes"):
        return types.WorkspaceEdit(document_changes=[
            types.TextDocumentEdit(types.OptionalVersionedTextDocumentIdentifier(uri, version), list(items))
            for uri, (version, items) in edits.items()])
    return types.WorkspaceEdit(changes={uri: list(items) for uri, (_, items) in edits.items()})


def quickfix(ls: HfCacheLintServer, part: Part, diagnostic: types.Diagnostic,
             fix: Mapping[str, Any]) -> types.CodeAction:
    return types.CodeAction(
        title=str(fix["title"]), kind=QUICKFIX, diagnostics=[diagnostic],
        is_preferred=bool(fix.get("preferred")) or None,
        edit=workspace_edit(ls, {part.uri: (part.version, text_edits(fix))}))


def fixes_of(diagnostic: types.Diagnostic, part: Part, current: Iterable[types.Diagnostic]
             ) -> list[Mapping[str, Any]] | None:
    """The fixes published with a diagnostic; if stale or without data, those of the same diagnostic now.

    None when the diagnostic no longer exists as sent: its edits would land in the wrong place.
    """
    data = diagnostic.data if isinstance(diagnostic.data, Mapping) else None
    if data is not None and data.get("version") == part.version:
        return list(data.get("fixes", ()))
    for now in current:
        if now.code == diagnostic.code and now.range == diagnostic.range and isinstance(now.data, Mapping):
            return list(now.data.get("fixes", ()))
    return None


def preferred_edits(findings: Iterable[Finding]) -> list[Edit]:
    """Each finding's preferred fix, skipping any whose edits overlap one already taken."""
    taken: list[Edit] = []
    for f in findings:
        fix = next((x for x in f.fixes if x.preferred), None)
        if fix is None:
            continue
        if all(e.span.end < t.span.start or t.span.end < e.span.start for e in fix.edits for t in taken):
            taken.extend(fix.edits)
    return taken


def fix_all(ls: HfCacheLintServer, parts: Sequence[Part], findings: Mapping[str, Sequence[Finding]],
            kind: str) -> types.CodeAction | None:
    codec = ls.workspace.position_codec
    edits: dict[str, tuple[int | None, list[types.TextEdit]]] = {}
    for part in parts:
        chosen = preferred_edits(findings.get(part.uri, ()))
        if chosen:
            lines = split_lines(part.text)
            edits[part.uri] = (part.version, [
                types.TextEdit(to_client_range(lines, codec, e.span), e.content) for e in chosen])
    if not edits:
        return None
    return types.CodeAction(title="hf-cache-lint: Fix all auto-fixable problems", kind=kind,
                            edit=workspace_edit(ls, edits))


async def code_actions(ls: HfCacheLintServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    """Quick fixes for our diagnostics in the request, then the fixAll actions that were asked for."""
    from hf_cache_lint.lsp.diagnostics import to_diagnostics

    uri, only = params.text_document.uri, params.context.only
    unit = ls.unit_for(uri)
    if unit is None:
        return []
    part = next((p for p in unit.parts if unquote(p.uri) == unquote(uri)), None)
    if part is None:  # a cell uri the notebook no longer has
        return []
    results = await ls.results_for(unit) or {}
    actions: list[types.CodeAction] = []
    if wanted(QUICKFIX, only):
        current = to_diagnostics(ls, unit, results).get(part.uri, (None, []))[1]
        for diagnostic in params.context.diagnostics:
            # ALE sends back only code, message and range: no source means "maybe ours".
            if diagnostic.source not in (SOURCE, None) or not isinstance(diagnostic.code, str):
                continue
            fixes = fixes_of(diagnostic, part, current)
            if fixes is None:
                continue
            line = diagnostic.range.start.line + 1  # lines need no encoding conversion
            for fix in with_ignore(fixes, diagnostic.code, line, part, ls):
                actions.append(quickfix(ls, part, diagnostic, fix))
    if wanted(FIX_ALL, only) and (action := fix_all(ls, [part], results, FIX_ALL)) is not None:
        actions.append(action)
    # Only on request: VS Code asks for `notebook.source.*` kinds by name (notebook codeActionsOnSave).
    notebook_wanted = unit.notebook and bool(only) and wanted(NOTEBOOK_FIX_ALL, only)
    if notebook_wanted and (action := fix_all(ls, unit.parts, results, NOTEBOOK_FIX_ALL)) is not None:
        actions.append(action)
    return actions
