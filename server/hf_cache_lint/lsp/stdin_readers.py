"""The readers the message loop (lsp/wire.py) reads stdin through: `Reader` (bytes that can be given back),
`PipeReader` (the event loop itself), `ThreadReader` (pygls's worker thread per read), and which of the last two
fits the process's stdin."""

from __future__ import annotations

import asyncio
import os
import stat
from typing import Any


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

