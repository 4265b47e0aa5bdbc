"""lsp/protocol.py's `_send_data` writes the bytes pygls's own writes (it only skips json's cycle check)."""

from __future__ import annotations

from typing import Any

from lsprotocol import types
from pygls.protocol import JsonRPCProtocol

from hf_cache_lint.lsp.convert import Payload
from hf_cache_lint.lsp.server import build_server


class Capture:
    def __init__(self) -> None:
        self.data: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.data.append(data)

    def close(self) -> None:
        pass


def written(send: Any, protocol: Any, message: Any) -> bytes:
    capture = Capture()
    protocol.set_writer(capture)
    send(protocol, message)
    return b"".join(capture.data)


def test_same_bytes_as_pygls() -> None:
    protocol = build_server().protocol
    diagnostic = types.Diagnostic(range=types.Range(types.Position(0, 0), types.Position(0, 4)), message="é \u2028 x",
                                  severity=types.DiagnosticSeverity.Information, source="hf-cache-lint")
    messages = [
        Payload(params={"uri": "file:///a.py", "version": 3, "diagnostics": [
            {"range": {"start": {"line": 1, "character": 2}, "end": {"line": 1, "character": 5}}, "message": "ü",
             "data": Payload(version=3, fixes=[{"title": "t", "edits": []}])}, diagnostic]},
                method=types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, jsonrpc="2.0"),
        types.PublishDiagnosticsNotification(params=types.PublishDiagnosticsParams("file:///b.py", [diagnostic])),
        {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}},
    ]
    for message in messages:
        ours = written(type(protocol)._send_data, protocol, message)
        assert ours == written(JsonRPCProtocol._send_data, protocol, message)
        assert ours.startswith(b"Content-Length: ") and ours.isascii()  # non-ASCII escaped: length in bytes holds
