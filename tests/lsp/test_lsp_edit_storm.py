"""An edit storm: thousands of incremental edits through states an editor really passes through (a `def` line
deleted so its body's `return` sits at module level, a dotted keyword half typed, form feeds typed in), on a
buffer whose comments hold a form feed and a \\u2028. The last publish must carry the last version and equal
the CLI's findings on the final text; a state that once crashed the analysis published nothing and left the
squiggles of an older text on screen."""

from __future__ import annotations

import random
from pathlib import Path

from lsp_support import RecordingClient, diagnostics, open_doc, pulls, units
from lsprotocol import types

from hf_cache_lint.checking.source import check_source

BASE = ("from transformers import AutoModelForCausalLM, DynamicCache\n"
        'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")\n'
        "# page one\fpage two (a form feed: Python and LSP read one line here)\n"
        "# a line separator \u2028 inside a comment\n"
        "\n\n"
        "def continue_chat(cache):\n"
        '    out = model.generate(past_key_values=cache, cache_implementation="static")\n'
        "    return out\n"
        "\n\n"
        "chat = continue_chat(DynamicCache())\n"
        'again = model.generate(past_key_values=DynamicCache(), cache_implementation="static")\n')
DEF_LINE = "def continue_chat(cache):\n"
TYPED = 'cfg.cache_implementation="offloaded", '
EDITS = 2000


def position(text: str, index: int, encoding: str) -> types.Position:
    line = text.count("\n", 0, index)
    start = text.rfind("\n", 0, index) + 1
    return types.Position(line, units(text[start:index], encoding))


class Buffer:
    """The client's copy of the document; every change goes to the server as one incremental edit."""

    def __init__(self, client: RecordingClient, uri: str) -> None:
        self.client, self.uri, self.text, self.version = client, uri, BASE, 1

    def change(self, start: int, end: int, new: str) -> None:
        rng = types.Range(position(self.text, start, self.client.encoding),
                          position(self.text, end, self.client.encoding))
        self.version += 1
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=self.uri, version=self.version),
            [types.TextDocumentContentChangePartial(range=rng, text=new)]))
        self.text = self.text[:start] + new + self.text[end:]


def storm(buffer: Buffer, rng: random.Random) -> None:
    """Delete and restore the def line, type and erase a dotted keyword, type form feeds, until EDITS."""
    typed = 0  # how much of TYPED sits in the first generate call
    while buffer.version < EDITS:
        op = rng.randrange(4)
        def_at = buffer.text.find(DEF_LINE)
        if op == 0:  # the def line goes (its body's `return` is now at module level) or comes back
            if def_at >= 0:
                buffer.change(def_at, def_at + len(DEF_LINE), "")
            else:
                at = buffer.text.index("    out = model.generate")
                buffer.change(at, at, DEF_LINE)
        elif op == 1 or op == 2:  # one keystroke of the dotted keyword, forward or back
            at = buffer.text.index("    out = model.generate(") + len("    out = model.generate(")
            if (op == 1 and typed < len(TYPED)) or typed == 0:
                buffer.change(at + typed, at + typed, TYPED[typed])
                typed += 1
            else:
                buffer.change(at + typed - 1, at + typed, "")
                typed -= 1
        else:  # a form feed typed into, or erased from, the comment line
            at = buffer.text.index("page two")
            if buffer.text[at - 2:at] == "\f\f":
                buffer.change(at - 1, at, "")
            else:
                buffer.change(at, at, "\f")
    # The state that crashed: no def line, the keyword half typed as `cfg.cache_implementation=`.
    if buffer.text.find(DEF_LINE) >= 0:
        at = buffer.text.index(DEF_LINE)
        buffer.change(at, at + len(DEF_LINE), "")
    at = buffer.text.index("    out = model.generate(") + len("    out = model.generate(")
    while typed < TYPED.index("=") + 2:
        buffer.change(at + typed, at + typed, TYPED[typed])
        typed += 1


async def test_an_edit_storm_through_broken_states_ends_on_the_clis_findings(start, uri: str, tmp_path: Path):
    client = await start()
    buffer = Buffer(client, uri)
    open_doc(client, uri, BASE)
    await diagnostics(client, uri, version=1)
    storm(buffer, random.Random(10))
    assert buffer.version > EDITS and "\n    return out\n" in buffer.text and DEF_LINE not in buffer.text
    expected = check_source(buffer.text, str(tmp_path / "script.py")).findings
    assert expected and not check_source(buffer.text, str(tmp_path / "script.py")).error
    got = await diagnostics(client, uri, version=buffer.version)
    if not pulls(client):
        # Flush: a request answered after every earlier message; no older publish may come after the last.
        await client.text_document_hover_async(types.HoverParams(types.TextDocumentIdentifier(uri),
                                                                 types.Position(0, 0)))
        mine = [p for p in client.published if p.uri == uri]
        assert mine[-1].version == buffer.version
        got = list(mine[-1].diagnostics)
    assert [(d.code, d.range.start.line + 1, d.range.start.character, d.range.end.line + 1) for d in got] == [
        (f.code, f.span.start.line, f.span.start.column, f.span.end.line) for f in expected]
