"""The floor of a Python language server: pygls 2, `ast.parse` on each change, empty diagnostics.

    python bench/baseline_server.py          # stdio

What any pygls server pays per keystroke (JSON-RPC read, lsprotocol structuring, pygls's incremental
document update, one C-speed parse, one publish) and at start-up (interpreter, pygls and lsprotocol
imports, the handshake). bench/lsp_latency.py runs it beside hf-cache-lint's server in the same run, so
the ratio between the two is what our own work costs. Not part of the package; nothing imports it.
"""

from __future__ import annotations

import ast
import contextlib

from lsprotocol import types
from pygls.lsp.server import LanguageServer

server = LanguageServer("ast-baseline", "0")


def _check(ls: LanguageServer, uri: str, version: int) -> None:
    doc = ls.workspace.get_text_document(uri)
    with contextlib.suppress(SyntaxError, ValueError):  # a half-typed line: nothing to publish either way
        ast.parse(doc.source)
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[], version=version))


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: LanguageServer, params: types.DidOpenTextDocumentParams) -> None:
    _check(ls, params.text_document.uri, params.text_document.version)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: LanguageServer, params: types.DidChangeTextDocumentParams) -> None:
    _check(ls, params.text_document.uri, params.text_document.version)


if __name__ == "__main__":
    server.start_io()
