"""The pygls protocol, minus two bugs: a future per incoming notification that nothing removed, and
documents split into lines by `str.splitlines` (which breaks lines where Python and LSP do not); a position
codec with a fast path for ASCII lines; and messages encoded without json's cycle check."""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
from collections.abc import Sequence
from concurrent.futures import Future
from functools import partial
from typing import Any, overload

from lsprotocol import types
from pygls.exceptions import JsonRpcInternalError
from pygls.protocol import LanguageServerProtocol
from pygls.workspace import TextDocument, Workspace
from pygls.workspace.position_codec import PositionCodec, ServerTextPosition, Utf16

from hf_cache_lint.lsp.convert import split_lines

log = logging.getLogger("pygls.protocol.json_rpc")  # pygls's own logger: its messages stay where they were
_WRITES: set[asyncio.Future[Any]] = set()  # writes under way (a task nobody holds can be collected mid-run)


class PythonLinesDocument(TextDocument):
    """pygls 2.1's `TextDocument.lines` is `source.splitlines(True)`, which also breaks at \\f, \\v, \\x1c-\\x1e,
    \\x85, \\u2028 and \\u2029 (pygls/workspace/text_document.py). LSP and Python's tokenizer break lines at
    \\n, \\r\\n and \\r only, so an incremental edit below such a character landed on the wrong line and the
    server's copy of the buffer drifted from the editor's. No upstream issue found (openlawlibrary/pygls#550
    is about the same property at EOF); drop when pygls splits lines as LSP does."""

    @property
    def lines(self) -> list[str]:
        lines = split_lines(self.source)
        return lines[:-1] if lines and not lines[-1] else lines  # as splitlines: no empty last line

    def _apply_incremental_change(self, change: types.TextDocumentContentChangePartial) -> None:
        """pygls 2.1's, the same text for every range, built by two joins instead of a Python loop writing every
        line of the document to a StringIO (~0.4 s an edit of a 20 MB document, on the event loop)."""
        source = self.source
        lines: Sequence[str] = (_LazyLines(source) if len(source) > _BIG_SOURCE and "\r" not in source
                                else self.lines)
        found = self._position_codec.range_from_client_units(lines, change.range)
        start_line, start_col = found.start.line, found.start.character
        end_line, end_col = found.end.line, found.end.character
        if start_line == len(lines):  # an edit at the very end of the file
            self._source = self.source + change.text
            return
        if end_line < start_line:  # pygls's loop writes every line whole, and not the text
            self._source = "".join(lines)
            return
        if isinstance(lines, _LazyLines):  # the same text, from two offsets, without splitting the document
            start = lines.offset(start_line) + min(start_col, len(lines[start_line]))
            end = lines.offset(end_line) + min(end_col, len(lines[end_line])) if end_line < len(lines) else len(source)
            self._source = "".join((source[:start], change.text, source[end:]))
            return
        tail = lines[end_line][end_col:] if end_line < len(lines) else ""
        self._source = "".join((*lines[:start_line], lines[start_line][:start_col], change.text, tail,
                                *lines[end_line + 1:]))


# A source longer than this (and without \r, so its lines end at \n only) is edited through `_LazyLines`: splitting
# 20 MB into its 330,000 lines cost ~0.3 s of every edit (twice: pygls asks for the lines again), on the event loop.
_BIG_SOURCE = 1024 * 1024


class _LazyLines(Sequence[str]):
    """The lines `PythonLinesDocument.lines` would give for a text whose only line break is \n, found as asked: the
    count by `str.count`, a line's start by `str.find` from the last one found (an edit needs two lines)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.size = text.count("\n") + (0 if not text or text.endswith("\n") else 1)
        self.starts = [0]

    def __len__(self) -> int:
        return self.size

    def offset(self, index: int) -> int:
        while len(self.starts) <= index:
            self.starts.append(self.text.index("\n", self.starts[-1]) + 1)
        return self.starts[index]

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...

    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self.size))]
        if index < 0:
            index += self.size
        if not 0 <= index < self.size:
            raise IndexError(index)
        start = self.offset(index)
        end = self.text.find("\n", start)
        return self.text[start:] if end < 0 else self.text[start:end + 1]


class AsciiCodec(PositionCodec):
    """pygls 2.1's codec, but a position on an ASCII line (one code unit per character in every encoding) is
    converted without its loop over the line's characters, a generator step each (~0.2 ms of each keystroke's
    document update on a 120-character line). The answer, and the clamping it does to the request's `character`
    past the end of the line, are pygls's own; other lines go to pygls."""

    def position_from_client_units(self, lines: Sequence[str], position: types.Position) -> ServerTextPosition:
        if 0 <= position.line < len(lines) and (line := lines[position.line]).isascii():
            line = line.replace("\r\n", "\n")  # as pygls counts it
            if not line:
                return ServerTextPosition(position.line, 0)
            if position.character > len(line):
                position.character = len(line) - 1
            return ServerTextPosition(position.line, min(position.character, len(line)))
        if 0 <= position.line < len(lines) and isinstance(self.impl, Utf16) and len(lines[position.line]) > _LONG:
            found = _utf16_index(lines[position.line].replace("\r\n", "\n"), position)
            if found is not None:
                return ServerTextPosition(position.line, found)
        return super().position_from_client_units(lines, position)

    def position_to_client_units(self, lines: Sequence[str], position: ServerTextPosition | types.Position
                                 ) -> types.Position:
        """pygls's answer (the UTF-16 units of the line up to the character), counted by the codec in C instead
        of a generator step a character: a position on a long line cost pygls a pass over all of it."""
        if isinstance(self.impl, Utf16) and 0 <= position.line < len(lines):
            head = lines[position.line][: position.character]
            units = len(head) if head.isascii() else len(head.encode("utf-16-le", "surrogatepass")) // 2
            return types.Position(line=position.line, character=units)
        return super().position_to_client_units(lines, position)


# A non-ASCII line longer than this has its positions converted by `_utf16_index`: pygls's loop costs ~0.5 us a
# character (1.2-3 s an edit on a 3 M-character line, where the probe saw a hover wait 37 s behind 20 edits).
_LONG = 256


def _utf16_index(line: str, position: types.Position) -> int | None:
    """pygls's `position_from_client_units` for UTF-16 on one line (the smallest index whose prefix holds at least
    `position.character` code units; the same clamp past the end), computed by the codec in C; None when the line
    has a character the round trip would not give back whole (a surrogate pair cut, lone surrogates paired): pygls's
    loop answers those."""
    encoded = line.encode("utf-16-le", "surrogatepass")
    total = len(encoded) // 2
    if total == 0:
        return 0
    if position.character > total:
        position.character = total - 1
    if position.character <= 0:
        return 0
    if position.character * 2 >= len(encoded):
        return len(line)
    head = encoded[: position.character * 2].decode("utf-16-le", "surrogatepass")
    return len(head) if line.startswith(head) else None


class PythonLinesWorkspace(Workspace):
    def _create_text_document(self, doc_uri: str, source: str | None = None, version: int | None = None,
                              language_id: str | None = None) -> TextDocument:
        return PythonLinesDocument(doc_uri, source=source, version=version, language_id=language_id,
                                   sync_kind=self._sync_kind, position_codec=self._position_codec)


class Protocol(LanguageServerProtocol):
    """pygls 2.1 stores the future of every async or generator notification handler (didChange is one)
    in `_request_futures` under a fresh uuid, and only a response ever pops an entry: a notification
    has none, so each keystroke leaked ~2 KB (bench/lsp_memory.py: +16 MB over 10,000 edits). The same
    kind of leak as openlawlibrary/pygls#608, for incoming notifications; drop when fixed upstream."""

    # pygls builds its Workspace inside `lsp_initialize` (`self._workspace = Workspace(...)`): documents it
    # creates from then on split lines as LSP does.
    @property
    def _workspace(self) -> Workspace | None:
        return self.__dict__.get("_hf_workspace")

    @_workspace.setter
    def _workspace(self, workspace: Workspace | None) -> None:
        if workspace is not None and type(workspace) is Workspace:
            workspace.__class__ = PythonLinesWorkspace
            codec = getattr(workspace, "_position_codec", None)
            if type(codec) is PositionCodec:  # the documents share it (pygls passes it to each)
                codec.__class__ = AsciiCodec
        self.__dict__["_hf_workspace"] = workspace

    def send_json(self, data: Any) -> None:
        """Write one message built as JSON values here (a dict, or an lsprotocol object): what lsp/diagnostics.py
        publishes without pygls's converter copying each diagnostic (pygls 2.1 has no public call for a message
        already in JSON values; `notify` unstructures its params again). The one place outside pygls that
        reaches its writer, through this class's own `_send_data` below."""
        self._send_data(data)

    def _send_data(self, data: Any) -> None:
        """pygls 2.1's `JsonRPCProtocol._send_data` (same header, same body, same errors) with `check_circular=False`:
        json.dumps's check for reference cycles keeps a table of every list and dict it enters, ~40 % of the
        encoding of a publish (12 KB on the 100-line script: 300 -> 180 us). What is written here is built
        fresh per message (our dicts, or cattrs's `unstructure` of lsprotocol objects), never a cycle."""
        if not data:
            return
        if self.writer is None:
            log.error("Unable to send data, no available transport!")
            return
        try:
            body = json.dumps(data, default=self._serialize_message, check_circular=False)
            log.info("Sending data: %s", body)
            if self._include_headers:
                header = (f"Content-Length: {len(body)}\r\n"
                          f"Content-Type: {self.CONTENT_TYPE}; charset={self.CHARSET}\r\n\r\n")
                body = header + body
            res = self.writer.write(body.encode(self.CHARSET))
            if inspect.isawaitable(res):  # a websocket writer; stdio and TCP write at once
                task = asyncio.ensure_future(res)
                _WRITES.add(task)
                task.add_done_callback(_WRITES.discard)
        except BrokenPipeError:
            log.exception("Error sending data. BrokenPipeError", exc_info=True)
            raise
        except Exception as error:
            log.exception("Error sending data", exc_info=True)
            self._server._report_server_error(error, JsonRpcInternalError)

    def _handle_notification(self, method_name: str, params: Any) -> None:
        before = set(self._request_futures)
        super()._handle_notification(method_name, params)
        loop = asyncio.get_running_loop()
        for key in set(self._request_futures) - before:
            self._request_futures[key].add_done_callback(partial(self._forget, loop, key))

    def _forget(self, loop: asyncio.AbstractEventLoop, key: Any, _future: Future[Any]) -> None:
        # Deferred to the loop: a callback can run inside pygls's own iteration of the dict (shutdown
        # cancels every future) or on a worker thread; the pop must happen after, on the loop thread.
        if not loop.is_closed():
            loop.call_soon_threadsafe(self._request_futures.pop, key, None)
