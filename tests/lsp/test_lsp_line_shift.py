"""Enter and a line join above functions with findings, sent as incremental changes: the server replays those
functions' last runs with their results moved by the lines added or removed (engine/interpreter/shift.py); their
diagnostics, code actions (the fixes' ranges) and hovers are those of the same text opened as a new document."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from lsp_support import RecordingClient, apply, conflicts, diagnostics, edits_for, open_doc, position_of
from lsprotocol import types

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "data"))
# The module tests/engine/test_keystrokes.py edits in process, edited here through the server.
from shifted_module import TEXT

AT = "tokenizer(prompt,"  # Enter after it (for the space), in `first`: every later line moves down one
INDENT = " " * 23


def _next_line(link: re.Match[str]) -> str:
    n = int(link[1]) + 1
    return f"[line {n}](<uri>#L{n})"


def change(client: RecordingClient, uri: str, version: int, start: types.Position, end: types.Position,
           text: str) -> None:
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        [types.TextDocumentContentChangePartial(range=types.Range(start, end), text=text)]))


async def seen(client: RecordingClient, uri: str, text: str, version: int) -> tuple[object, ...]:
    """The diagnostics of `uri` at `version`, each with its preferred fix applied to `text` and the hover at its
    start, as the client shows them (the hover's links to this document's lines with its uri left out)."""
    found = conflicts(await diagnostics(client, uri, version=version, where=lambda d: len(conflicts(d)) == 2))
    out: list[object] = []
    for d in found:
        actions = await client.text_document_code_action_async(types.CodeActionParams(
            types.TextDocumentIdentifier(uri), d.range, types.CodeActionContext([d])))
        preferred = [a for a in actions or () if isinstance(a, types.CodeAction) and a.is_preferred]
        fixed = [apply(text, edits_for(a.edit, uri), client.encoding) for a in preferred]
        hover = await client.text_document_hover_async(types.HoverParams(types.TextDocumentIdentifier(uri),
                                                                        d.range.start))
        assert hover is not None and isinstance(hover.contents, types.MarkupContent)
        out.append((d.range, d.message, fixed, hover.contents.value.replace(uri, "<uri>")))
    return tuple(out)


async def fresh(client: RecordingClient, tmp_path: Path, text: str, name: str) -> tuple[object, ...]:
    uri = (tmp_path / name).as_uri()
    open_doc(client, uri, text)
    got = await seen(client, uri, text, 1)
    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri)))
    return got


async def test_enter_and_join_above_findings_move_their_diagnostics_fixes_and_hovers(start, uri: str,
                                                                                      tmp_path: Path) -> None:
    client: RecordingClient = await start()
    open_doc(client, uri, TEXT)
    opened = await seen(client, uri, TEXT, 1)
    typed = TEXT.replace("return inputs", "return inputs ", 1)  # a second check: the runs the next one replays
    at = position_of(TEXT, "return inputs", client.encoding)
    end = types.Position(at.line, at.character + len("return inputs"))
    change(client, uri, 2, end, end, " ")
    await seen(client, uri, typed, 2)
    enter = position_of(typed, AT, client.encoding)
    enter = types.Position(enter.line, enter.character + len(AT))
    entered = typed.replace(AT + " ", AT + "\n" + INDENT, 1)
    change(client, uri, 3, enter, types.Position(enter.line, enter.character + 1), "\n" + INDENT)
    moved = await seen(client, uri, entered, 3)
    assert moved == await fresh(client, tmp_path, entered, "entered.py")
    # Every diagnostic is a line further down than when opened, its fix and hover with it.
    assert [d[0].start.line for d in moved] == [d[0].start.line + 1 for d in opened]  # type: ignore[index]
    # The hovers name the same places, a line further down: `[line N](<uri>#LN)`.
    assert all(d[2] and "(<uri>#L" in d[3] for d in moved)  # type: ignore[index]
    assert [d[3] for d in moved] == [re.sub(r"\[line (\d+)\]\(<uri>#L\d+\)", _next_line, d[3])  # type: ignore[index]
                                     for d in opened]
    change(client, uri, 4, enter, types.Position(enter.line + 1, len(INDENT)), " ")  # joined again
    back = await seen(client, uri, typed, 4)
    assert back == await fresh(client, tmp_path, typed, "joined.py")
    assert [d[0] for d in back] == [d[0] for d in opened]  # type: ignore[index]
