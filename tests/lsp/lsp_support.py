"""Helpers for the pytest-lsp tests: a recording client, diagnostics for push and pull clients, edits.

Never sleeps: waits resolve when the server's notification or response arrives (with a timeout
that only turns a hang into a failure).
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import LanguageClient
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features
from pytest_lsp.client import configuration as default_configuration

SERVER_DIR = Path(__file__).resolve().parents[2] / "server"
SERVER_COMMAND = [sys.executable, "-m", "hf_cache_lint.lsp"]
TIMEOUT = 30.0

CLIENTS = ["visual-studio-code", "neovim"]  # 1.65.2 pushes; Neovim 0.11 pulls (it declares it)


class RecordingClient(LanguageClient):
    """Keeps every publishDiagnostics (with its version) and wakes the waiters on each."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.published: list[types.PublishDiagnosticsParams] = []
        self.versions: dict[str, int | None] = {}
        self.waiters: list[asyncio.Future[None]] = []
        self.registrations: list[types.RegistrationParams] = []
        self.encoding: str = "utf-16"
        # Run (and awaited) before the next workspace/configuration is answered: the server's settings read is
        # held there, so a test can act while the server waits for the answer (test_lsp_action_races.py).
        self.before_configuration: Callable[[], Awaitable[None]] | None = None

    def wake(self) -> None:
        for waiter in self.waiters:
            if not waiter.done():
                waiter.set_result(None)
        self.waiters.clear()

    async def until(self, condition: Callable[[], bool]) -> None:
        """Wait (no polling, no sleep) until a notification makes `condition` true."""

        async def wait() -> None:
            while not condition():
                waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
                self.waiters.append(waiter)
                await waiter

        await asyncio.wait_for(wait(), TIMEOUT)


def _publish(client: RecordingClient, params: types.PublishDiagnosticsParams) -> None:
    client.diagnostics[params.uri] = list(params.diagnostics)  # the converter may give a tuple
    client.versions[params.uri] = params.version
    client.published.append(params)
    client.wake()


def _register(client: RecordingClient, params: types.RegistrationParams) -> None:
    # pytest-lsp 1.0.1 leaves client/registerCapability unanswered (docs/editors.md).
    client.registrations.append(params)


async def _configuration(client: RecordingClient, params: types.ConfigurationParams) -> list[Any]:
    hold, client.before_configuration = client.before_configuration, None
    if hold is not None:
        await hold()
    return default_configuration(client, params)  # type: ignore[no-any-return]


def make_client() -> RecordingClient:
    client = RecordingClient(converter_factory=default_converter)
    features = dict(DEFAULT_CLIENT_FEATURES)
    features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = _publish
    features[types.CLIENT_REGISTER_CAPABILITY] = _register
    features[types.WORKSPACE_CONFIGURATION] = _configuration
    register_lsp_features(client, features)
    return client


def pulls(client: LanguageClient) -> bool:
    return bool(client.capabilities and client.capabilities.text_document
                and client.capabilities.text_document.diagnostic)


async def diagnostics(
    client: RecordingClient, uri: str, version: int | None = None,
    where: Callable[[Sequence[types.Diagnostic]], bool] = lambda _: True,
) -> list[types.Diagnostic]:
    """The server's diagnostics for `uri`: pulled, or the pushed ones for `version` that satisfy `where`."""
    if pulls(client):
        report = await client.text_document_diagnostic_async(
            types.DocumentDiagnosticParams(types.TextDocumentIdentifier(uri)))
        assert isinstance(report, types.RelatedFullDocumentDiagnosticReport), report
        return list(report.items)

    def ready() -> bool:
        return (uri in client.diagnostics and (version is None or client.versions.get(uri) == version)
                and where(client.diagnostics[uri]))

    await client.until(ready)
    return list(client.diagnostics[uri])


def conflicts(found: Sequence[types.Diagnostic]) -> list[types.Diagnostic]:
    """Only HFC001: other rules (e.g. HFC003 on `past_key_values=` in 5.24) may flag the same call."""
    return [d for d in found if d.code == "HFC001"]


def has_conflict(found: Sequence[types.Diagnostic]) -> bool:
    return bool(conflicts(found))


def no_conflict(found: Sequence[types.Diagnostic]) -> bool:
    return not conflicts(found)


def open_doc(client: LanguageClient, uri: str, text: str, version: int = 1) -> None:
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri=uri, language_id="python", version=version, text=text)))


def replace_all(client: LanguageClient, uri: str, text: str, version: int) -> None:
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        [types.TextDocumentContentChangeWholeDocument(text=text)]))


# -- client-side text arithmetic, independent of the server's convert.py -------------------------
def units(text: str, encoding: str) -> int:
    if encoding == "utf-8":
        return len(text.encode("utf-8"))
    if encoding == "utf-32":
        return len(text)
    return len(text.encode("utf-16-le")) // 2


def position_of(text: str, needle: str, encoding: str, occurrence: int = 0) -> types.Position:
    index = -1
    for _ in range(occurrence + 1):
        index = text.index(needle, index + 1)
    line = text.count("\n", 0, index)
    line_start = text.rfind("\n", 0, index) + 1
    return types.Position(line, units(text[line_start:index], encoding))


def range_of(text: str, needle: str, encoding: str, occurrence: int = 0) -> types.Range:
    start = position_of(text, needle, encoding, occurrence)
    line_start = sum(len(x) + 1 for x in text.split("\n")[:start.line])
    index = line_start + len(_prefix(text, start, encoding))
    end_in_line = units(text[line_start:index + len(needle)], encoding)
    return types.Range(start, types.Position(start.line, end_in_line))


def _prefix(text: str, pos: types.Position, encoding: str) -> str:
    line = text.split("\n")[pos.line]
    for i in range(len(line) + 1):
        if units(line[:i], encoding) == pos.character:
            return line[:i]
    raise AssertionError(f"{pos} is inside a character")


def offset(text: str, pos: types.Position, encoding: str) -> int:
    line_start = sum(len(x) + 1 for x in text.split("\n")[:pos.line])
    return line_start + len(_prefix(text, pos, encoding))


def apply(text: str, edits: Sequence[types.TextEdit], encoding: str) -> str:
    spans = sorted(((offset(text, e.range.start, encoding), offset(text, e.range.end, encoding), e.new_text)
                    for e in edits), reverse=True)
    for a, b, new in spans:
        text = text[:a] + new + text[b:]
    return text


def edits_for(edit: types.WorkspaceEdit | None, uri: str) -> list[types.TextEdit]:
    assert edit is not None
    if edit.document_changes:
        return [e for dc in edit.document_changes if isinstance(dc, types.TextDocumentEdit)
                and dc.text_document.uri == uri for e in dc.edits]  # type: ignore[misc]
    return list((edit.changes or {}).get(uri, []))
