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


@pytest.mark.parametrize("encoding", [types.PositionEncodingKind.Utf16, types.PositionEncodingKind.Utf8])
def test_long_lines_convert_both_ways_as_pygls_converts_them(encoding):
    """Lines over protocol._LONG take the codec's C path (issue 33: pygls's loop held the event loop for seconds
    on a 3 M-character line); lone surrogates and pairs cut in the middle fall back to pygls's loop."""
    from hf_cache_lint.lsp import protocol

    rng = random.Random(33)
    pieces = ["a", "é", "🤗", "\ud800", "\udc00", "中", "\U0010ffff", " ", "\r\n", "\n"]
    ours, theirs = AsciiCodec(encoding), PositionCodec(encoding)
    for _ in range(3000):
        line = "".join(rng.choice(pieces[:-2]) for _ in range(rng.randint(protocol._LONG, protocol._LONG + 60)))
        lines = ["x\n", line + rng.choice(["", "\n", "\r\n"]), "y"]
        character, column = rng.randint(0, 2 * protocol._LONG), rng.randint(0, protocol._LONG + 70)
        a, b = types.Position(1, character), types.Position(1, character)
        assert ours.position_from_client_units(lines, a) == theirs.position_from_client_units(lines, b), (line, b)
        assert a == b
        c, d = types.Position(1, column), types.Position(1, column)
        assert ours.position_to_client_units(lines, c) == theirs.position_to_client_units(lines, d)


@pytest.mark.parametrize("lazy", [False, True])
def test_incremental_edits_give_pygls_text(lazy, monkeypatch):
    """PythonLinesDocument's edit (joins; over protocol._BIG_SOURCE without \\r, two offsets and no split at all)
    gives the text pygls's line-by-line rebuild gives, for every range, clamped, inverted or past the end."""
    from pygls.workspace.text_document import TextDocument

    from hf_cache_lint.lsp import protocol

    if lazy:
        monkeypatch.setattr(protocol, "_BIG_SOURCE", 0)
    rng = random.Random(34)
    pieces = ["a", "é", "🤗", "\n", "\x0c", " ", "\u2028", "\n\n"] + ([] if lazy else ["\r", "\r\n"])
    for _ in range(5000):
        source = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 40)))
        at = [rng.randint(0, 8), rng.randint(0, 12), rng.randint(0, 8), rng.randint(0, 12)]
        text = rng.choice(["", "X", "é\n", "🤗", "\n\n"])

        def change(at=at, text=text):
            return types.TextDocumentContentChangePartial(
                range=types.Range(types.Position(at[0], at[1]), types.Position(at[2], at[3])), text=text)

        ours = protocol.PythonLinesDocument("file:///x.py", source=source, position_codec=AsciiCodec())
        theirs = protocol.PythonLinesDocument("file:///x.py", source=source, position_codec=AsciiCodec())
        ours._apply_incremental_change(change())
        TextDocument._apply_incremental_change(theirs, change())
        assert ours.source == theirs.source, (source, at, text)
