"""lsp/stdin_readers.py's PipeReader (stdin read by the event loop, no thread per read) answers as pygls's thread
reader does, and is chosen only where it fits (a POSIX pipe or socket not shared with stdout)."""

from __future__ import annotations

import asyncio
import os
import socket
import sys
import threading
from pathlib import Path

import pytest

from hf_cache_lint.lsp import stdin_readers, wire

posix_only = pytest.mark.skipif(os.name != "posix", reason="the pipe reader is POSIX only")


@posix_only
def test_lines_bodies_and_end_of_input() -> None:
    read_fd, write_fd = os.pipe()
    data = b"Content-Length: 5\r\n\r\nhello" + b"x" * (stdin_readers._LINE_LIMIT + 10) + b"\nContent-Length: 9\r\n\r\nshort"

    def write() -> None:  # more than a pipe holds: written while the reader reads
        with os.fdopen(write_fd, "wb") as out:
            out.write(data)

    writer = threading.Thread(target=write)
    writer.start()

    async def go() -> list[bytes]:
        with os.fdopen(read_fd, "rb", buffering=0) as stream:
            reader = stdin_readers.PipeReader(stream)
            return [await reader.readline(), await reader.readline(), await reader.readexactly(5),
                    await reader.readline(),  # too long to be a header: junk, as a line
                    await reader.readline(), await reader.readline(),
                    await reader.readexactly(9),  # input ends inside the body: what there is
                    await reader.readline()]

    got = asyncio.run(go())
    writer.join()
    assert got[:3] == [b"Content-Length: 5\r\n", b"\r\n", b"hello"]
    assert got[3].strip() and wire._HEADER.search(got[3]) is None
    assert got[4:] == [b"Content-Length: 9\r\n", b"\r\n", b"short", b""]


@posix_only
def test_the_whole_loop_reads_frames_through_it() -> None:
    """`run_async` over a PipeReader hands each body to the protocol, across a junk line, until end of input."""
    read_fd, write_fd = os.pipe()
    os.write(write_fd, b'Content-Length: 2\r\n\r\n{}junk\r\nContent-Length: 7\r\n\r\n{"a":1}')
    os.close(write_fd)
    bodies: list[bytes] = []
    original = wire.handle_body
    wire.handle_body = lambda protocol, body, *rest: bodies.append(body)  # type: ignore[assignment]
    try:
        with os.fdopen(read_fd, "rb", buffering=0) as stream:
            asyncio.run(wire.run_async(threading.Event(), wire.PipeReader(stream), None))  # type: ignore[arg-type]
    finally:
        wire.handle_body = original
    assert bodies == [b"{}", b'{"a":1}']


@posix_only
def test_chosen_for_a_pipe_only(tmp_path: Path) -> None:
    read_fd, write_fd = os.pipe()
    out_r, out_w = os.pipe()
    file = tmp_path / "input"
    file.write_bytes(b"")
    a, b = socket.socketpair()
    with os.fdopen(read_fd, "rb") as pipe_in, os.fdopen(out_w, "wb") as pipe_out, open(file, "rb") as regular:
        assert stdin_readers.pipe_reader_fits(pipe_in, pipe_out)
        assert not stdin_readers.pipe_reader_fits(regular, pipe_out)  # a regular file: the loop cannot watch it
        assert stdin_readers.pipe_reader_fits(a.makefile("rb"), pipe_out)  # libuv's child stdin (VS Code, Neovim)
        assert not stdin_readers.pipe_reader_fits(a.makefile("rb"), a.makefile("wb"))  # one socket both ways
        assert not stdin_readers.pipe_reader_fits(pipe_in, pipe_in)  # stdout on the same file would turn non-blocking
        assert not stdin_readers.pipe_reader_fits(object(), sys.stdout)
    for fd in (write_fd, out_r):
        os.close(fd)
    a.close()
    b.close()
