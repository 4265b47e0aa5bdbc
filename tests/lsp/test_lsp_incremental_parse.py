"""The server's incremental parse (engine/syntax/parsing.py: parso's diff parser told the changed block) over many edits
through the protocol: keystrokes, pasted and deleted blocks of lines, states that do not parse, some edits sent in
a burst (their runs superseded, so one parse spans several edits). At each checkpoint the buffer's diagnostics
equal those of the same text opened as a new document (a fresh parse: no kept tree), and the CLI's findings."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from lsp_support import RecordingClient, diagnostics, open_doc, units
from lsprotocol import types

from hf_cache_lint.checking.source import check_source

BASE = (Path(__file__).resolve().parents[2] / "examples" / "compile_then_prefix_cache.py").read_text()
SNIPPETS = ["x", "(", ")", ":", "\n", "    ", "def f():\n", "if a:\n    b\n", "#", "\n\n",
            "cache = DynamicCache()\n", 'out = model.generate(**inputs, past_key_values=cache, cache_implementation="static")\n']
EDITS = 240
CHECK_EVERY = 30


def position(text: str, index: int, encoding: str) -> types.Position:
    line = text.count("\n", 0, index)
    start = text.rfind("\n", 0, index) + 1
    return types.Position(line, units(text[start:index], encoding))


def random_edit(text: str, rng: random.Random) -> tuple[int, int, str]:
    """(start, end, new text) of a keystroke, a deletion, a copied block of lines or a deleted one; now and then
    the whole starting text back (changes all over the file, and a text with findings again)."""
    kind, at = rng.random(), rng.randrange(len(text) + 1)
    if kind > 0.93:
        return 0, len(text), BASE
    if kind < 0.45:
        return at, at, rng.choice(SNIPPETS)
    if kind < 0.7:
        return at, min(len(text), at + rng.randrange(1, 30)), ""
    starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
    first = rng.randrange(len(starts))
    last = min(len(starts) - 1, first + rng.randrange(1, 6))
    block = text[starts[first]:starts[last]]
    if kind < 0.85:
        where = rng.choice(starts)
        return where, where, block
    return starts[first], starts[last], ""


def shown(found: list[types.Diagnostic], uri: str) -> list[tuple[Any, ...]]:
    return [(d.code, d.range, d.message, d.severity, [(r.location.uri == uri, r.location.range, r.message)
                                                      for r in d.related_information or ()]) for d in found]


async def test_incremental_parses_over_many_edits_give_a_fresh_parses_diagnostics(start, uri: str, tmp_path: Path):
    client: RecordingClient = await start()
    rng = random.Random(4)
    text, version = BASE, 1
    with_findings = 0  # checkpoints whose text has findings: the comparison is not of empty lists only
    open_doc(client, uri, text)
    await diagnostics(client, uri, version=1)
    for n in range(1, EDITS + 1):
        begin, end, new = random_edit(text, rng)
        version += 1
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            [types.TextDocumentContentChangePartial(
                range=types.Range(position(text, begin, client.encoding), position(text, end, client.encoding)),
                text=new)]))
        text = text[:begin] + new + text[end:]
        if n % 3 and n % CHECK_EVERY:
            continue  # a burst: the next edit supersedes this one's run
        got = await diagnostics(client, uri, version=version)
        if n % CHECK_EVERY:
            continue
        fresh_uri = (tmp_path / f"fresh_{n}.py").as_uri()
        open_doc(client, fresh_uri, text)
        fresh = await diagnostics(client, fresh_uri, version=1)
        client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(fresh_uri)))
        assert shown(got, uri) == shown(fresh, fresh_uri)
        expected = check_source(text, str(tmp_path / "script.py")).findings
        assert [(d.code, d.range.start.line + 1) for d in got] == [(f.code, f.span.start.line) for f in expected]
        with_findings += bool(got)
    assert with_findings >= 2
