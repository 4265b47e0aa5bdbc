"""Diagnostics: pushed (debounced per unit, stale runs dropped) or pulled (`textDocument/diagnostic`)."""

from __future__ import annotations

import asyncio
import functools
import logging
import weakref
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from lsprotocol import types
from pygls.uris import from_fs_path
from pygls.workspace.position_codec import PositionCodec

from hf_cache_lint.engine.base.findings import Finding
from hf_cache_lint.lsp.convert import (
    SOURCE,
    Locate,
    Payload,
    diagnostic_dict,
    register_json_hooks,
    split_lines,
    to_diagnostic,
)
from hf_cache_lint.lsp.documents import MAX_DOCUMENT_CHARS, Results, Unit, cell_index_of
from hf_cache_lint.lsp.protocol import Protocol
from hf_cache_lint.lsp.server import HfCacheLintServer

log = logging.getLogger(__name__)

PartDiagnostics = dict[str, tuple[int | None, list[types.Diagnostic]]]  # part uri -> (version, diagnostics)
# The same as the JSON a publish sends (the server's own notes stay objects: the writer's json.dumps converts them)
PartJson = dict[str, tuple[int | None, list[dict[str, Any] | types.Diagnostic]]]
T = TypeVar("T")
U = TypeVar("U")

# Servers whose converter has `convert.register_json_hooks`.
_HOOKED: weakref.WeakSet[HfCacheLintServer] = weakref.WeakSet()


def to_diagnostics(ls: HfCacheLintServer, unit: Unit, results: Results) -> PartDiagnostics:
    """Each part's diagnostics as lsprotocol objects (a pull's report, code actions)."""
    if ls not in _HOOKED:
        # pygls builds its converter in the server's constructor and offers no way to extend it after but its
        # private attribute (pygls 2.1); without it the JSON is the same, only slower to make.
        _HOOKED.add(ls)
        converter = getattr(ls.protocol, "_converter", None)
        if converter is not None:
            register_json_hooks(converter)
    return _convert(ls, unit, results, to_diagnostic, _same)


def to_diagnostics_json(ls: HfCacheLintServer, unit: Unit, results: Results) -> PartJson:
    """The same diagnostics as `to_diagnostics`, as the JSON a publish sends (convert.diagnostic_dict)."""
    # The server's own notes (rare) stay lsprotocol objects: the writer's json.dumps hands them to pygls's
    # converter (its `default`), as for any message.
    return _convert(ls, unit, results, diagnostic_dict, _same)


def _same(d: types.Diagnostic) -> types.Diagnostic:
    return d


def _convert(ls: HfCacheLintServer, unit: Unit, results: Results,
             one: Callable[[Finding, Sequence[str], PositionCodec, int | None, Locate], T],
             other: Callable[[types.Diagnostic], U]) -> dict[str, tuple[int | None, list[T | U]]]:
    """Findings -> diagnostics per part, each finding by `one`, the server's own notes by `other`."""
    codec = ls.workspace.position_codec
    texts = {p.uri: p.text for p in unit.parts}
    split: dict[str, list[str]] = {}

    def lines(uri: str) -> list[str]:  # split lazily: most parts have no findings
        if uri not in split:
            split[uri] = split_lines(texts[uri])
        return split[uri]

    def locate(path: str | None, home: str) -> tuple[str, Sequence[str]] | None:
        if path is None:
            return home, lines(home)
        index = cell_index_of(unit, path)
        if index is not None:
            cell = unit.parts[index].uri
            return cell, lines(cell)
        uri = from_fs_path(path) or path
        doc = ls.workspace.get_text_document(uri)  # reads the file when it is not open
        try:
            return uri, split_lines(doc.source)
        except OSError:
            return None

    out: dict[str, tuple[int | None, list[T | U]]] = {}
    size = ls.too_big(unit)
    if size is not None:  # one Information diagnostic on the first part, none anywhere else
        return {part.uri: (part.version, [other(too_big_diagnostic(size))] if i == 0 else [])
                for i, part in enumerate(unit.parts)}
    for part in unit.parts:
        found = results.get(part.uri, ())
        place = functools.partial(locate, home=part.uri)
        out[part.uri] = (part.version, [one(f, lines(part.uri), codec, part.version, place) for f in found])
    notes = getattr(results, "notes", ())
    if notes and unit.parts:
        # What the analysis left out is said where the user looks: one Information diagnostic at the
        # top of the file (of the first cell), without a rule code or fixes.
        first = unit.parts[0].uri
        out[first][1].extend(other(note_diagnostic(n)) for n in notes)
    return out


def too_big_diagnostic(size: int) -> types.Diagnostic:
    return types.Diagnostic(
        range=types.Range(types.Position(0, 0), types.Position(0, 0)), severity=types.DiagnosticSeverity.Information,
        source="hf-cache-lint",
        message=(f"hf-cache-lint: not analysed: this file has {size:,} characters, more than the "
                 f"{MAX_DOCUMENT_CHARS:,} it analyses. Run `hf-cache-lint check` on it, or split it."))


def note_diagnostic(note: str) -> types.Diagnostic:
    return types.Diagnostic(range=types.Range(types.Position(0, 0), types.Position(0, 0)),
                            message=f"hf-cache-lint: {note}", severity=types.DiagnosticSeverity.Information,
                            source=SOURCE)


def schedule(ls: HfCacheLintServer, unit_uri: str, *, debounce: bool = True) -> None:
    """(Re)start the push for a unit: a newer edit cancels the older wait or run."""
    if ls.pull_diagnostics:
        return
    old = ls.state.pending.pop(unit_uri, None)
    if old is not None:
        old.cancel()
    delay = ls.config_for(unit_uri).settings.debounce_ms / 1000 if debounce else 0.0
    ls.state.pending[unit_uri] = asyncio.ensure_future(_lint_and_publish(ls, unit_uri, delay))


async def _lint_and_publish(ls: HfCacheLintServer, unit_uri: str, delay: float) -> None:
    try:
        if delay > 0:
            await asyncio.sleep(delay)  # the debounce itself (tests run with 0)
        unit = ls.snapshot(unit_uri)
        if unit is None:
            return
        results = await ls.results_for(unit)
        if results is None or ls.snapshot_key(unit_uri) != (unit.key, ls.state.generation):
            return  # failed (already logged) or superseded by a newer edit or settings change
        publish(ls, unit, to_diagnostics_json(ls, unit, results))
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # one document's failure never reaches the loop
        ls.log_error(f"diagnostics for {unit_uri} failed: {exc!r}")
    finally:
        if ls.state.pending.get(unit_uri) is asyncio.current_task():
            del ls.state.pending[unit_uri]


def publish(ls: HfCacheLintServer, unit: Unit, diagnostics: PartJson) -> None:
    before = ls.state.published.get(unit.uri, set())
    for uri in before - diagnostics.keys():  # a deleted cell: clear what it showed
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri, []))
    for uri, (version, items) in diagnostics.items():
        # The notification as pygls's converter writes it (params, method, jsonrpc; no version when None), handed
        # to its writer as JSON values: the converter's generic copy of each item cost more than making them.
        params: dict[str, Any] = {"uri": uri, "diagnostics": items}
        if version is not None:
            params["version"] = version
        protocol = ls.protocol
        assert isinstance(protocol, Protocol)  # the server's protocol_cls (lsp/server.py)
        protocol.send_json(Payload(params=params, method=types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, jsonrpc="2.0"))
    ls.state.published[unit.uri] = set(diagnostics)


def clear(ls: HfCacheLintServer, unit_uri: str, part_uris: Sequence[str] = ()) -> None:
    """A closed unit: stop its work and, when pushing, empty what it showed."""
    task = ls.state.pending.pop(unit_uri, None)
    if task is not None:
        task.cancel()
    ls.state.runs.pop(unit_uri, None)
    ls.state.saved.pop(unit_uri, None)
    ls.forget_unit(unit_uri)
    ls.state.verifiers.pop(unit_uri, None)
    shown = ls.state.published.pop(unit_uri, set()) | set(part_uris)
    if not ls.pull_diagnostics:
        for uri in shown:
            ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri, []))


def relint_all(ls: HfCacheLintServer) -> None:
    """After a settings change: push again, or ask a pulling client to pull again."""
    if ls.pull_diagnostics:
        if ls.supports("workspace.diagnostics.refresh_support"):
            ls.workspace_diagnostic_refresh(None)
        return
    units = {u.uri for uri in ls.workspace.text_documents if (u := ls.unit_for(uri)) is not None}
    for unit_uri in units:
        schedule(ls, unit_uri, debounce=False)


async def pull(ls: HfCacheLintServer, params: types.DocumentDiagnosticParams) -> types.DocumentDiagnosticReport:
    """`textDocument/diagnostic` for a file or a cell; a cancelled request drops its queued run."""
    uri = params.text_document.uri
    home = ls.unit_for(uri)
    unit = ls.snapshot(home.uri) if home is not None else None  # onSave: the text as last saved
    if unit is None:
        return types.RelatedFullDocumentDiagnosticReport(items=[])
    results = await ls.results_for(unit) or Results()
    key = f"{ls.state.generation}:{unit.key}"
    if params.previous_result_id == key:
        return types.RelatedUnchangedDocumentDiagnosticReport(result_id=key)
    items = to_diagnostics(ls, unit, results).get(uri, (None, []))[1]
    return types.RelatedFullDocumentDiagnosticReport(items=items, result_id=key)
