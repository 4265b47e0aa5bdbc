"""Incoming notifications leave no futures behind (the pygls 2.1 leak lsp/protocol.py works around)."""

from __future__ import annotations

import asyncio

from lsprotocol import types
from pygls.workspace import Workspace

from hf_cache_lint.lsp.server import build_server


async def test_notifications_do_not_accumulate_request_futures() -> None:
    server = build_server()
    protocol = server.protocol
    # What initialize would set up (no transport here: the notifications are handed in directly).
    protocol._workspace = Workspace(None, types.TextDocumentSyncKind.Full, [], "utf-16")
    uri = "file:///tmp/leak_probe.py"
    text = "from transformers import AutoModelForCausalLM\nmodel.generate(cache_implementation='static')\n"
    protocol._handle_notification(types.TEXT_DOCUMENT_DID_OPEN, types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)))
    for version in range(2, 202):
        protocol._handle_notification(types.TEXT_DOCUMENT_DID_CHANGE, types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(version=version, uri=uri),
            [types.TextDocumentContentChangeWholeDocument(text=text + "#" * (version % 3))]))
    # Let the handlers' tasks finish (our done-callbacks were registered first, so they run first).
    handlers = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    if handlers:
        await asyncio.wait(handlers, timeout=10)
    # The clean-up is scheduled with call_soon: a future resolved by call_soon runs after it (FIFO).
    loop = asyncio.get_running_loop()
    drained = loop.create_future()
    loop.call_soon(drained.set_result, None)
    await drained
    assert len(protocol._request_futures) <= 2  # at most the ones still running, not one per keystroke
