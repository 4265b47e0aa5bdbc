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

The parts: lsp/stdin_readers.py (how stdin is read), lsp/message_dispatch.py (one body: dispatched, or its fault
answered); here the loop itself, the frames' headers and bodies.

Drop this module when pygls's own loop does the above.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable
from typing import Any

from pygls.exceptions import JsonRpcException, JsonRpcInvalidRequest
from pygls.protocol import JsonRPCProtocol

from hf_cache_lint.lsp.message_dispatch import Session, answer_error, handle_body
from hf_cache_lint.lsp.stdin_readers import PipeReader, Reader, ThreadReader, pipe_reader_fits

# What lsp/server.py starts the loop with, and the one body handler the loop calls (tests replace it here).
__all__ = ["MAX_FRAME_BYTES", "PipeReader", "Reader", "ThreadReader", "handle_body", "pipe_reader_fits", "read_body",
           "run_async"]

log = logging.getLogger(__name__)

_HEADER = re.compile(rb"content-length[ \t]*:[ \t]*(\d+)[ \t]*\r?\n?$", re.IGNORECASE)
# A whole header line inside a body: where a too-long Content-Length ran into the next frame.
_HEADER_LINE = re.compile(rb"content-length[ \t]*:[ \t]*\d+[ \t]*\r?\n", re.IGNORECASE)
# The largest body kept: a 2 Mi-character document (the analysis cap, lsp/documents.py) is at most ~8 MB of UTF-8,
# more with JSON escapes; a larger frame is skipped, never held in memory.
MAX_FRAME_BYTES = 64 * 1024 * 1024
_CHUNK = 1 << 20


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
            answer_error(protocol, None, JsonRpcInvalidRequest(), f"message of {length} bytes, over {MAX_FRAME_BYTES}")
        if not going_on:
            return  # input ended inside the body
        if body is None:
            continue
        try:
            handle_body(protocol, body, reader, error_handler, session)
        except Exception:  # never out of the loop: the next message is answered whatever this one did
            log.exception("unable to handle a message")
