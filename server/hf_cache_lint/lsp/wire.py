"""The stdio message loop, in place of pygls's `run_async` (pygls/io_.py, pygls 2.1), so that a protocol
fault never leaves the server alive but deaf.

pygls's loop (a) trusts Content-Length blindly: a frame whose length was counted in characters instead of
bytes leaves the rest of its body in the stream, which then swallows the next frame's header line, and the
next, for good; (b) answers nothing when a request's params do not deserialize (`structure_message` raises
inside `json.loads`' object hook and the loop only logs it; see openlawlibrary/pygls#326 on how strict
that deserialization is). Here:

- A body that is not JSON gets a ParseError (-32700, id null, as JSON-RPC 2.0 says) and the reader
  resynchronises on the next `Content-Length:` header, even one glued to the leftover bytes or swallowed
  inside a too-long body.
- A request whose params do not fit its method gets InvalidParams (-32602) with its id; a message that is
  JSON but not a JSON-RPC object gets InvalidRequest (-32600). A notification gets no response (the spec
  forbids one); it is logged.
- Unknown methods keep pygls's MethodNotFound (-32601); `exit` keeps pygls's status (0 after shutdown,
  else 1).
- A Content-Length that is too long never leaves the server deaf: the body is read as it arrives, and a
  `Content-Length:` header line inside it (which no JSON text can hold: a raw line break is invalid inside a JSON
  string, and the words are no JSON token) cuts it there; the bytes before go on as the message, whatever they
  hold, the header starts the next frame. No more than MAX_FRAME_BYTES of a body is kept: a longer one (with no
  header inside that much) is skipped to its end (still watching for a header) and gets InvalidRequest.
- JSON nested deeper than the parser's recursion limit (about 1,000 levels) gets ParseError; a RecursionError
  (or any error) while handling a message never leaves this loop.
- The LSP's lifecycle errors (specification 3.17, "Lifecycle Messages"): a request before `initialize` gets
  ServerNotInitialized (-32002) and a notification then is dropped (except `exit`); a second `initialize` ("may
  only be sent once") and a request after `shutdown` get InvalidRequest (-32600) (pygls re-initialised, dropped
  silently, or answered -32603).
- A JSON array (a JSON-RPC 2.0 batch): the LSP does not allow batches (microsoft/language-server-protocol#1651,
  specification 3.17 "Base Protocol"), and a client would not read a batch reply, so each element that is a
  request gets its own InvalidRequest with its id (one with id null when none is), nothing of it is run.

Drop this module when pygls's own loop does the above.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import stat
import threading
from collections.abc import Callable
from typing import Any

from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInvalidParams,
    JsonRpcInvalidRequest,
    JsonRpcParseError,
    JsonRpcServerNotInitialized,
)
from pygls.protocol import JsonRPCProtocol

log = logging.getLogger(__name__)

_HEADER = re.compile(rb"content-length[ \t]*:[ \t]*(\d+)[ \t]*\r?\n?$", re.IGNORECASE)
_HEADER_ANYWHERE = re.compile(rb"content-length[ \t]*:", re.IGNORECASE)
# A whole header line inside a body: where a too-long Content-Length ran into the next frame.
_HEADER_LINE = re.compile(rb"content-length[ \t]*:[ \t]*\d+[ \t]*\r?\n", re.IGNORECASE)
# The largest body kept: a 2 Mi-character document (the analysis cap, lsp/server.py) is at most ~8 MB of UTF-8,
# more with JSON escapes; a larger frame is skipped, never held in memory.
MAX_FRAME_BYTES = 64 * 1024 * 1024
_CHUNK = 1 << 20


class Reader:
    """pygls's async reader (readline, readexactly) with bytes that can be given back."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.pushed = b""

    def unread(self, data: bytes) -> None:
        self.pushed = data + self.pushed

    async def readline(self) -> bytes:
        if self.pushed:
            end = self.pushed.find(b"\n")
            if end >= 0:
                line, self.pushed = self.pushed[: end + 1], self.pushed[end + 1:]
                return line
            head, self.pushed = self.pushed, b""
            return head + bytes(await self.inner.readline())
        return bytes(await self.inner.readline())

    async def readexactly(self, n: int) -> bytes:
        data, self.pushed = self.pushed[:n], self.pushed[n:]
        while len(data) < n:
            more = bytes(await self.inner.readexactly(n - len(data)))
            if not more:
                break
            data += more
        return data

    async def read_some(self, n: int) -> bytes:
        """Up to `n` bytes, as soon as any are there (b"" at end of input)."""
        if self.pushed:
            data, self.pushed = self.pushed[:n], self.pushed[n:]
            return data
        partial = getattr(self.inner, "read_some", None)
        return bytes(await (partial(n) if partial is not None else self.inner.readexactly(n)))


# The longest line `PipeReader.readline` keeps whole: far beyond any header; a longer run of bytes without a line
# break is junk between frames, skipped as the loop skips any junk line.
_LINE_LIMIT = 1 << 20


class PipeReader:
    """stdin read by the event loop itself (`connect_read_pipe`), in place of pygls's `StdinAsyncReader`, which
    hands every `readline` and `read` to a worker thread: three thread round trips a message (header, blank line,
    body), each a queue put, a thread wake-up and a self-pipe write to wake the loop again (~0.13 ms of CPU each
    here, ~0.4 ms a keystroke). Same answers: b"" at end of input, a short body when input ends inside one."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        self.reader: asyncio.StreamReader | None = None

    async def _open(self) -> asyncio.StreamReader:
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=_LINE_LIMIT, loop=loop)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader, loop=loop), self.stream)
        self.reader = reader
        return reader

    async def readline(self) -> bytes:
        reader = self.reader or await self._open()
        try:
            return await reader.readline()
        except ValueError:  # longer than _LINE_LIMIT: StreamReader dropped it; junk, as a line that is no header
            return b"-\n"

    async def readexactly(self, n: int) -> bytes:
        reader = self.reader or await self._open()
        try:
            return await reader.readexactly(n)
        except asyncio.IncompleteReadError as exc:
            return exc.partial

    async def read_some(self, n: int) -> bytes:
        reader = self.reader or await self._open()
        return await reader.read(n)


class ThreadReader:
    """pygls's `StdinAsyncReader` (a worker thread per read, for stdin the loop cannot watch: a regular file, a
    terminal, Windows) with `read_some` (`read1`: what is there, without waiting for all `n`)."""

    def __init__(self, stdin: Any, executor: Any = None) -> None:
        self.stdin = stdin
        self.executor = executor

    async def readline(self) -> bytes:
        return bytes(await asyncio.get_running_loop().run_in_executor(self.executor, self.stdin.readline))

    async def readexactly(self, n: int) -> bytes:
        return bytes(await asyncio.get_running_loop().run_in_executor(self.executor, self.stdin.read, n))

    async def read_some(self, n: int) -> bytes:
        read = getattr(self.stdin, "read1", self.stdin.read)
        return bytes(await asyncio.get_running_loop().run_in_executor(self.executor, read, n))


def pipe_reader_fits(stdin: Any, stdout: Any) -> bool:
    """Whether stdin can be read by the loop: a pipe or a socket (as editors spawn a server: libuv's, so VS Code's and
    Neovim's, are socket pairs) on POSIX, not shared with stdout. `connect_read_pipe` makes its file non-blocking,
    which a stdout on the same file (one socket or terminal both ways) would then be too; regular files, terminals
    and Windows keep pygls's thread reader."""
    if os.name != "posix":
        return False
    try:
        fd_in, fd_out = stdin.fileno(), stdout.fileno()
        st_in, st_out = os.fstat(fd_in), os.fstat(fd_out)
    except (AttributeError, OSError, ValueError):
        return False
    return ((stat.S_ISFIFO(st_in.st_mode) or stat.S_ISSOCK(st_in.st_mode))
            and (st_in.st_dev, st_in.st_ino) != (st_out.st_dev, st_out.st_ino))


class Session:
    """What the loop knows of the conversation: whether `initialize` came (pygls keeps no such flag)."""

    def __init__(self) -> None:
        self.initialized = False


def _error(protocol: JsonRPCProtocol, msg_id: int | str | None, exc: JsonRpcException, detail: str) -> None:
    # A plain dict: pygls's converter would drop `"id": null`, which JSON-RPC requires when the id is unknown.
    protocol._send_data({"jsonrpc": "2.0", "id": msg_id,
                         "error": {"code": exc.CODE, "message": f"{exc.MESSAGE}: {detail}"}})


def _next_frame_after(body: bytes, exc: json.JSONDecodeError) -> int | None:
    """Where the next frame starts in a body whose JSON value ended early ("Extra data") and whose rest is the
    start of a header: a Content-Length a few bytes too long swallowed less than a whole header line (a header
    line inside the body is cut by `read_body` already)."""
    if exc.msg != "Extra data":
        return None
    try:
        cut = len(body.decode("utf-8")[: exc.pos].encode("utf-8"))  # exc.pos counts characters
    except UnicodeDecodeError:
        return None
    rest = body[cut:].lstrip().lower()
    return cut if rest and (b"content-length:".startswith(rest[:15]) or rest.startswith(b"content-length")) else None


def _parse_error(protocol: JsonRPCProtocol, body: bytes, reader: Reader, detail: str) -> None:
    # A too-long Content-Length swallowed the start of the next frame: give its header back.
    found = _HEADER_ANYWHERE.search(body, 1)
    if found is not None:
        reader.unread(body[found.start():])
    log.error("malformed message (%s): answered ParseError, reading on", detail)
    _error(protocol, None, JsonRpcParseError(), detail)


def handle_body(protocol: JsonRPCProtocol, body: bytes, reader: Reader,
                error_handler: Callable[[Exception, type[JsonRpcException]], Any] | None = None,
                session: Session | None = None) -> None:
    """One frame's body: dispatch it, or answer the fault as the spec asks."""
    try:
        message = json.loads(body, object_hook=protocol.structure_message)
    except json.JSONDecodeError as exc:
        cut = _next_frame_after(body, exc)
        if cut is not None:  # the message is whole: handled; its tail goes back as the next frame's start
            reader.unread(body[cut:])
            handle_body(protocol, body[:cut], reader, error_handler, session)
            return
        _parse_error(protocol, body, reader, str(exc))
        return
    except UnicodeDecodeError as exc:
        _parse_error(protocol, body, reader, str(exc))
        return
    except RecursionError:  # valid JSON nested deeper than the parser (or pygls's structuring) can follow
        log.error("message nested too deeply: answered ParseError")
        _error(protocol, None, JsonRpcParseError(), "nested too deeply")
        return
    except JsonRpcException as exc:  # the params (or result) do not fit the method's types
        _answer_undecodable(protocol, body, reader, exc)
        return
    if isinstance(message, list):
        _answer_batch(protocol, body)
        return
    if not isinstance(message, dict) and hasattr(message, "jsonrpc"):
        if session is not None and not _lifecycle_allows(protocol, message, session):
            return
        try:
            protocol.handle_message(message)
        except Exception as exc:
            log.exception("unable to handle message")
            if error_handler is not None:
                error_handler(exc, JsonRpcException)
        return
    # JSON, but not a JSON-RPC message (a number, no "jsonrpc" key).
    msg_id = message.get("id") if isinstance(message, dict) else None
    log.error("not a JSON-RPC message: answered InvalidRequest")
    _error(protocol, msg_id if isinstance(msg_id, (int, str)) else None, JsonRpcInvalidRequest(),
           "not a JSON-RPC 2.0 message")


def _lifecycle_allows(protocol: JsonRPCProtocol, message: Any, session: Session) -> bool:
    """Whether the message may be dispatched; the spec's answer sent when it may not (LSP 3.17, "initialize"
    and "shutdown"). A response (no method) always passes."""
    method = getattr(message, "method", None)
    if method is None:
        return True
    msg_id = getattr(message, "id", None)
    is_request = msg_id is not None
    if not session.initialized:
        if method == "initialize" and is_request:
            session.initialized = True
            return True
        if method == "exit":
            return True
        if is_request:
            log.error("%s before initialize: answered ServerNotInitialized", method)
            _error(protocol, msg_id, JsonRpcServerNotInitialized(), f"{method} before initialize")
        return False  # a notification before initialize is dropped
    if method == "initialize" and is_request:  # "The initialize request may only be sent once" (LSP 3.17)
        log.error("a second initialize: answered InvalidRequest")
        _error(protocol, msg_id, JsonRpcInvalidRequest(), "initialize was received already")
        return False
    if getattr(protocol, "_shutdown", False) and method != "exit":
        if is_request:
            log.error("%s after shutdown: answered InvalidRequest", method)
            _error(protocol, msg_id, JsonRpcInvalidRequest(), f"{method} after shutdown")
        return False
    return True


def _answer_batch(protocol: JsonRPCProtocol, body: bytes) -> None:
    try:
        items = json.loads(body)
    except (ValueError, RecursionError):
        items = []
    ids = [m["id"] for m in items if isinstance(m, dict) and "method" in m and isinstance(m.get("id"), (int, str))]
    log.error("a JSON array (batch): answered InvalidRequest for %d request(s)", len(ids))
    for msg_id in ids or [None]:
        _error(protocol, msg_id, JsonRpcInvalidRequest(), "batch messages are not part of the LSP")


def _answer_undecodable(protocol: JsonRPCProtocol, body: bytes, reader: Reader, exc: JsonRpcException) -> None:
    try:
        data = json.loads(body)  # pygls's structuring of the object ran before the parser saw what follows it
    except json.JSONDecodeError as parse:  # a too-long frame: the next header follows
        cut = _next_frame_after(body, parse)
        if cut is not None:
            reader.unread(body[cut:])
            body = body[:cut]
            data = json.loads(body)
        else:
            _parse_error(protocol, body, reader, str(parse))
            return
    except UnicodeDecodeError as parse:
        _parse_error(protocol, body, reader, str(parse))
        return
    except RecursionError:
        _error(protocol, None, JsonRpcParseError(), "nested too deeply")
        return
    if isinstance(data, list):
        _answer_batch(protocol, body)
        return
    method = data.get("method") if isinstance(data, dict) else None
    msg_id = data.get("id") if isinstance(data, dict) else None
    if method is not None and isinstance(msg_id, (int, str)):
        log.error("invalid params for %s (id %r): answered InvalidParams", method, msg_id)
        _error(protocol, msg_id, JsonRpcInvalidParams(), f"the params do not fit {method}")
    elif method is not None:
        log.error("invalid params for notification %s: ignored", method)
    else:
        log.error("undecodable response to id %r: ignored (%s)", msg_id, exc)


async def read_body(reader: Reader, length: int) -> tuple[bytes | None, bool]:
    """The frame's body (None when over MAX_FRAME_BYTES: skipped, not kept) and whether input went on to its end.
    Shorter when a header line turns up inside it: the rest, from that header, is given back to the reader (a
    too-long Content-Length), whatever the length said."""
    keep = min(length, MAX_FRAME_BYTES)
    data = bytearray()
    while len(data) < keep:
        chunk = await reader.read_some(min(keep - len(data), _CHUNK))
        if not chunk:
            return bytes(data), False
        start = max(0, len(data) - 64)  # a header line split across two chunks
        data += chunk
        found = _HEADER_LINE.search(data, start)
        if found is not None:
            reader.unread(bytes(data[found.start():]))
            log.error("a header inside a %d-byte body: its Content-Length was too long; cut there", length)
            return bytes(data[:found.start()]), True
    if length == keep:
        return bytes(data), True
    return None, await _skip(reader, length - keep, bytes(data[-64:]))


async def _skip(reader: Reader, left: int, tail: bytes) -> bool:
    """Drop the rest of an oversize body without keeping it, up to its end or to a header line (given back)."""
    while left > 0:
        chunk = await reader.read_some(min(left, _CHUNK))
        if not chunk:
            return False
        left -= len(chunk)
        window = tail + chunk
        found = _HEADER_LINE.search(window)
        if found is not None:
            reader.unread(window[found.start():])
            return True
        tail = window[-64:]
    return True


async def run_async(stop_event: threading.Event, inner: Any, protocol: JsonRPCProtocol,
                    error_handler: Callable[[Exception, type[JsonRpcException]], Any] | None = None) -> None:
    """Read frames until EOF or `stop_event`; every body goes to `handle_body`."""
    reader = Reader(inner)
    session = Session()
    while not stop_event.is_set():
        length: int | None = None
        while True:
            line = await reader.readline()
            if not line:
                return
            if not line.strip():
                if length is not None:
                    break
                continue  # a blank line before any header: stray bytes
            header = _HEADER.search(line)
            if header is not None:
                if header.start() > 0:
                    log.error("skipped %d stray bytes before a header", header.start())
                length = int(header.group(1))
            # Content-Type and unknown headers are ignored; so is a line of junk.
        body, going_on = await read_body(reader, length)
        if body is None:
            log.error("a %d-byte message, over the %d-byte limit: skipped, answered InvalidRequest", length,
                      MAX_FRAME_BYTES)
            _error(protocol, None, JsonRpcInvalidRequest(), f"message of {length} bytes, over {MAX_FRAME_BYTES}")
        if not going_on:
            return  # input ended inside the body
        if body is None:
            continue
        try:
            handle_body(protocol, body, reader, error_handler, session)
        except Exception:  # never out of the loop: the next message is answered whatever this one did
            log.exception("unable to handle a message")
