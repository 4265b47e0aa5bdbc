"""Code actions: the verified rule fixes of every finding in the requested range, ignore comments, fixAll.

Actions come from the findings of the document as it is now, not from the diagnostics the client sent
back in the context: clients send different subsets (Vim's ALE sends only the one under the cursor,
without `data`), and a finding's fixes must not depend on which one that was. Every offered edit is
verified first (fixcheck: the fixed text parses and the finding is gone), lazily, on the engine thread,
with the answers kept per document version.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import TypeVar
from urllib.parse import unquote

from lsprotocol import types

from hf_cache_lint.engine.base.findings import Finding, Fix, Position, Severity, Span
from hf_cache_lint.engine.output.edits import ignore_fix, is_ignore_fix
from hf_cache_lint.fixcheck import Verifier, file_recheck, fix_pass, notebook_recheck
from hf_cache_lint.lsp.convert import SOURCE, from_client_position, split_lines, to_client_range
from hf_cache_lint.lsp.documents import Part, Results, Unit
from hf_cache_lint.lsp.kinds import FIX_ALL, KINDS, NOTEBOOK_FIX_ALL, QUICKFIX
from hf_cache_lint.lsp.server import HfCacheLintServer

__all__ = ["FIX_ALL", "KINDS", "NOTEBOOK_FIX_ALL", "QUICKFIX", "code_actions", "quick_fixes", "wanted"]

T = TypeVar("T")

RANK = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2, Severity.HINT: 3}


def wanted(kind: str, only: Sequence[str] | None) -> bool:
    """LSP kinds are hierarchical: asking for `source` includes `source.fixAll.hf-cache-lint`."""
    return not only or any(k == "" or kind == k or kind.startswith(k + ".") for k in only)


def with_ignore(finding: Finding, text: str) -> Finding:
    """Rules normally ship the ignore fix; add it (engine/output/edits.py `ignore_fix`, the one rules use) when
    one does not."""
    if any(is_ignore_fix(f) for f in finding.fixes):
        return finding
    line = finding.span.start.line
    if line > len(split_lines(text)):
        return finding
    return replace(finding, fixes=(*finding.fixes, ignore_fix(text, line, finding.code)))


def overlaps(span: Span, start: Position, end: Position) -> bool:
    """Closed ranges: a cursor (empty range) at either end of a finding is on it."""
    return span.start <= end and start <= span.end


def ordered(found: Sequence[tuple[int, Finding]]) -> list[tuple[int, Finding]]:
    """Errors first, then Warnings, Information, Hints; in file order within a severity."""
    return sorted(found, key=lambda it: (RANK[it[1].severity], it[1].span.start, it[1].code))


def quick_fixes(found: Sequence[tuple[int, Finding]]) -> list[tuple[int, Finding, Fix, bool]]:
    """(finding index, finding, fix, is_preferred) in the order to show them: each finding's fixes
    (preferred first), most severe finding first, then every ignore action. Only one finding's
    preferred fix is marked where findings overlap: the most severe one's (the one a client's
    "auto fix" then applies)."""
    out: list[tuple[int, Finding, Fix, bool]] = []
    ignores: list[tuple[int, Finding, Fix, bool]] = []
    marked: list[Span] = []
    for index, f in ordered(found):
        fixes = sorted(f.fixes, key=lambda x: not x.preferred)
        for fix in fixes:
            if is_ignore_fix(fix):
                ignores.append((index, f, fix, False))
                continue
            # An unsafe fix is offered, never preferred (an editor's auto-fix must not change behaviour).
            mark = fix.preferred and fix.safe and not any(overlaps(f.span, s.start, s.end) for s in marked)
            if mark:
                marked.append(f.span)
            out.append((index, f, fix, mark))
    return out + ignores


def action_title(code: str, fix: Fix) -> str:
    """A quick fix's title in the editor: the tool and the code first, as ruff-lsp's "Ruff (F401): ...", so
    that beside other tools' fixes the user sees whose it is. Only the editor's action says it: the fix's own
    title (the rule's, as the CLI's help line, JSON, SARIF and the diagnostics' `data`) stays bare."""
    return f"{SOURCE} ({code}): {fix.title}"


def _text_edits(part: Part, fix: Fix, ls: HfCacheLintServer) -> list[types.TextEdit]:
    lines = split_lines(part.text)
    codec = ls.workspace.position_codec
    return [types.TextEdit(to_client_range(lines, codec, e.span), e.content) for e in fix.edits]


def workspace_edit(ls: HfCacheLintServer, edits: Mapping[str, tuple[int | None, list[types.TextEdit]]]
                   ) -> types.WorkspaceEdit:
    """Versioned documentChanges when the client takes them (a stale fix is then refused), else changes."""
    if ls.supports("workspace.workspace_edit.document_changes"):
        return types.WorkspaceEdit(document_changes=[
            types.TextDocumentEdit(types.OptionalVersionedTextDocumentIdentifier(uri, version), list(items))
            for uri, (version, items) in edits.items()])
    return types.WorkspaceEdit(changes={uri: list(items) for uri, (_, items) in edits.items()})


def verifier_for(ls: HfCacheLintServer, unit: Unit) -> Verifier:
    """The verifier of this unit's current snapshot (kept until the text or the settings change)."""
    key = (unit.key, ls.state.generation)
    held = ls.state.verifiers.get(unit.uri)
    if held is not None and held[0] == key:
        return held[1]
    config = ls.config_for(unit.uri)
    # A parse tree of its own per document (never the one diagnostics keep: parso updates it in place).
    recheck = (notebook_recheck if unit.notebook else file_recheck)(
        unit.path, config.settings, config.context, key=f"{unit.uri}#fixcheck")
    verifier = Verifier([p.text for p in unit.parts], recheck, unit.notebook, unit.path)
    ls.state.verifiers[unit.uri] = (key, verifier)
    return verifier


async def on_engine(ls: HfCacheLintServer, work: Callable[[], T]) -> T:
    """Run verification on the code actions' own thread (lsp/server.py `action_lane`): however long it takes, the
    diagnostics of other documents, on the engine thread, do not queue behind it."""
    return await asyncio.get_running_loop().run_in_executor(ls.action_lane, work)


def fix_all(ls: HfCacheLintServer, unit: Unit, verifier: Verifier, results: Results, parts: Sequence[int],
            kind: str) -> types.CodeAction | None:
    """Every verified preferred fix that conflicts with none taken before it (one `fixcheck.fix_pass`,
    the round each `--fix` pass runs), as one action. Runs on the engine thread."""
    items = [(i, f) for i in parts for f in results.get(unit.parts[i].uri, ())]
    _, applied = fix_pass(verifier.cells, items, verifier.ok, unit.notebook, prime=verifier.prime)
    edits: dict[str, tuple[int | None, list[types.TextEdit]]] = {}
    for i, _, fix in applied:
        part = unit.parts[i]
        edits.setdefault(part.uri, (part.version, []))[1].extend(_text_edits(part, fix, ls))
    if not edits:
        return None
    return types.CodeAction(title="hf-cache-lint: Fix all auto-fixable problems", kind=kind,
                            edit=workspace_edit(ls, edits))


# How many times a code action starts over for a newer text (or settings) that came while it was being answered.
# One edit during the answer is the common case (type and save at once); a client that keeps editing cancels the
# request (VS Code does, for the light bulb), so only a client that neither stops nor cancels reaches the bound.
ROUNDS = 8


async def code_actions(ls: HfCacheLintServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    """Quick fixes for every finding of ours that overlaps the range, then the fixAll actions asked for: for the
    text the client has when it reads the answer.

    A code action names no version, and a client may ask once only: VS Code's save participant
    (`editor.codeActionsOnSave`) asks for fixAll right after the edit it saves and writes the file with whatever
    comes back. So when the document (or the settings) changed while the answer was being made, neither the older
    text's edits nor an empty answer goes out: the answer is made again for the current text, its findings and fixes
    verified as ever, until a round ends with the text (and settings) it started from."""
    uri = params.text_document.uri
    for _ in range(ROUNDS):
        unit = ls.unit_for(uri)
        if unit is None:
            return []
        generation = ls.state.generation
        actions = await snapshot_actions(ls, params, unit)
        if ls.unit_for(uri) == unit and ls.state.generation == generation:
            return actions
    return []  # edited throughout: no edit is offered for a text the client no longer has


async def snapshot_actions(ls: HfCacheLintServer, params: types.CodeActionParams, unit: Unit) -> list[types.CodeAction]:
    """The actions for one snapshot of the unit (its edits are for that text only)."""
    from hf_cache_lint.lsp.diagnostics import to_diagnostics

    uri, only = params.text_document.uri, params.context.only
    index = next((i for i, p in enumerate(unit.parts) if unquote(p.uri) == unquote(uri)), None)
    if index is None:  # a cell uri the notebook no longer has
        return []
    part = unit.parts[index]
    results = await ls.results_for(unit) or Results()
    if ls.unit_for(uri) != unit:
        return []  # edited meanwhile: `code_actions` starts over for the current text, no need to verify these
    verifier = verifier_for(ls, unit)
    actions: list[types.CodeAction] = []
    if wanted(QUICKFIX, only):
        lines = split_lines(part.text)
        codec = ls.workspace.position_codec
        start = from_client_position(lines, codec, params.range.start)
        end = from_client_position(lines, codec, params.range.end)
        mine = list(results.get(part.uri, ()))
        found = [(i, with_ignore(f, part.text)) for i, f in enumerate(mine) if overlaps(f.span, start, end)]
        if found:
            shown = to_diagnostics(ls, unit, results).get(part.uri, (None, []))[1]

            def keep() -> list[tuple[int, Finding]]:
                return [(i, verifier.keep(index, f)) for i, f in found]

            kept = await on_engine(ls, keep)
            sent = [d for d in params.context.diagnostics if d.source in (SOURCE, None)]
            for i, f, fix, mark in quick_fixes(kept):
                diagnostic = shown[i]
                # Echo the client's own diagnostic when it sent this one (ALE's lack `source` and `data`).
                echo = next((d for d in sent if d.code == diagnostic.code and d.range == diagnostic.range), diagnostic)
                actions.append(types.CodeAction(
                    title=action_title(f.code, fix), kind=QUICKFIX, diagnostics=[echo], is_preferred=mark or None,
                    edit=workspace_edit(ls, {part.uri: (part.version, _text_edits(part, fix, ls))})))
    requests = []
    if wanted(FIX_ALL, only):
        requests.append((FIX_ALL, [index]))
    # Only on request: VS Code asks for `notebook.source.*` kinds by name (notebook codeActionsOnSave).
    if unit.notebook and bool(only) and wanted(NOTEBOOK_FIX_ALL, only):
        requests.append((NOTEBOOK_FIX_ALL, list(range(len(unit.parts)))))
    for kind, parts in requests:
        def build(kind: str = kind, parts: list[int] = parts) -> types.CodeAction | None:
            return fix_all(ls, unit, verifier, results, parts, kind)

        action = await on_engine(ls, build)
        if action is not None:
            actions.append(action)
    return actions
