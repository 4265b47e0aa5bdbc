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

from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams, JsonRpcInvalidRequest, JsonRpcParseError
from pygls.protocol import JsonRPCProtocol

log = logging.getLogger(__name__)

_HEADER = re.compile(rb"content-length[ \t]*:[ \t]*(\d+)[ \t]*\r?\n?$", re.IGNORECASE)
_HEADER_ANYWHERE = re.compile(rb"content-length[ \t]*:", re.IGNORECASE)


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


def _error(protocol: JsonRPCProtocol, msg_id: int | str | None, exc: JsonRpcException, detail: str) -> None:
    # A plain dict: pygls's converter would drop `"id": null`, which JSON-RPC requires when the id is unknown.
    protocol._send_data({"jsonrpc": "2.0", "id": msg_id,
                         "error": {"code": exc.CODE, "message": f"{exc.MESSAGE}: {detail}"}})


def handle_body(protocol: JsonRPCProtocol, body: bytes, reader: Reader,
                error_handler: Callable[[Exception, type[JsonRpcException]], Any] | None = None) -> None:
    """One frame's body: dispatch it, or answer the fault as the spec asks."""
    try:
        message = json.loads(body, object_hook=protocol.structure_message)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        # A too-long Content-Length swallowed the start of the next frame: give its header back.
        found = _HEADER_ANYWHERE.search(body, 1)
        if found is not None:
            reader.unread(body[found.start():])
        log.error("malformed message (%s): answered ParseError, reading on", exc)
        _error(protocol, None, JsonRpcParseError(), str(exc))
        return
    except JsonRpcException as exc:  # the params (or result) do not fit the method's types
        _answer_undecodable(protocol, body, exc)
        return
    if not isinstance(message, dict) and hasattr(message, "jsonrpc"):
        try:
            protocol.handle_message(message)
        except Exception as exc:
            log.exception("unable to handle message")
            if error_handler is not None:
                error_handler(exc, JsonRpcException)
        return
    # JSON, but not a JSON-RPC message (an array, a number, no "jsonrpc" key).
    msg_id = message.get("id") if isinstance(message, dict) else None
    log.error("not a JSON-RPC message: answered InvalidRequest")
    _error(protocol, msg_id if isinstance(msg_id, (int, str)) else None, JsonRpcInvalidRequest(),
           "not a JSON-RPC 2.0 message")


def _answer_undecodable(protocol: JsonRPCProtocol, body: bytes, exc: JsonRpcException) -> None:
    data = json.loads(body)  # it parsed above, only structuring failed
    method = data.get("method") if isinstance(data, dict) else None
    msg_id = data.get("id") if isinstance(data, dict) else None
    if method is not None and isinstance(msg_id, (int, str)):
        log.error("invalid params for %s (id %r): answered InvalidParams", method, msg_id)
        _error(protocol, msg_id, JsonRpcInvalidParams(), f"the params do not fit {method}")
    elif method is not None:
        log.error("invalid params for notification %s: ignored", method)
    else:
        log.error("undecodable response to id %r: ignored (%s)", msg_id, exc)


async def run_async(stop_event: threading.Event, inner: Any, protocol: JsonRPCProtocol,
                    error_handler: Callable[[Exception, type[JsonRpcException]], Any] | None = None) -> None:
    """Read frames until EOF or `stop_event`; every body goes to `handle_body`."""
    reader = Reader(inner)
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
        body = await reader.readexactly(length)
        if len(body) < length:
            return
        handle_body(protocol, body, reader, error_handler)
