"""lsp/protocol.py AsciiCodec: the document's client positions converted as pygls's PositionCodec converts them
(its answer and its clamping of the request), for every encoding, on ASCII lines and others."""

from __future__ import annotations

import random

import pytest
from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec

from hf_cache_lint.lsp.protocol import AsciiCodec


@pytest.mark.parametrize("encoding", [types.PositionEncodingKind.Utf16, types.PositionEncodingKind.Utf8,
                                      types.PositionEncodingKind.Utf32, "unknown"])
def test_positions_convert_as_pygls_converts_them(encoding):
    rng = random.Random(14)
    pieces = ["a", " ", "\t", "é", "🤗", "\r\n", "\n", "\r", "\x0c"]
    ours, theirs = AsciiCodec(encoding), PositionCodec(encoding)
    for _ in range(3000):
        lines = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 6))) for _ in range(rng.randint(0, 3))]
        line, character = rng.randint(0, 4), rng.randint(0, 12)  # lsprotocol refuses negative ones
        a, b = types.Position(line, character), types.Position(line, character)
        assert ours.position_from_client_units(lines, a) == theirs.position_from_client_units(lines, b), (lines, b)
        assert a == b  # the same clamping of the request's character


def test_the_server_documents_use_it(tmp_path):
    from pygls.workspace import Workspace

    from hf_cache_lint.lsp.protocol import Protocol, PythonLinesDocument

    protocol = Protocol.__new__(Protocol)
    protocol._workspace = Workspace(tmp_path.as_uri())
    workspace = protocol._workspace
    assert type(workspace.position_codec) is AsciiCodec
    uri = (tmp_path / "a.py").as_uri()
    workspace.put_text_document(types.TextDocumentItem(uri, "python", 1, "x = 1\ny = '🤗'\n"))
    doc = workspace.get_text_document(uri)
    assert isinstance(doc, PythonLinesDocument) and doc.position_codec is workspace.position_codec
    doc.apply_change(types.TextDocumentContentChangePartial(
        range=types.Range(types.Position(1, 7), types.Position(1, 7)), text="!"))
    doc.apply_change(types.TextDocumentContentChangePartial(
        range=types.Range(types.Position(0, 4), types.Position(0, 5)), text="22"))
    assert doc.source == "x = 22\ny = '🤗!'\n"
