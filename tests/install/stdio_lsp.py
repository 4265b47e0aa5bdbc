"""A minimal LSP client over a subprocess's stdio, independent of pygls: it drives an *installed* server
(a fresh venv, the .vsix's bundled copy) with nothing of the repository's sources on its path.

Never sleeps: a reader thread queues every message; waits end when the awaited message arrives (the timeout
only turns a hang into a failure). Requests from the server are answered (null, or one null per
workspace/configuration item) so the server is never left waiting on us.
"""

from __future__ import annotations

import json
import queue
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

TIMEOUT = 60.0

Message = dict[str, Any]


def _read_message(stream: IO[bytes]) -> Message | None:
    length = None
    while True:
        line = stream.readline()
        if not line:
            return None
        line = line.strip()
        if not line:
            break
        name, _, value = line.decode("ascii").partition(":")
        if name.strip().lower() == "content-length":
            length = int(value.strip())
    if length is None:
        raise ValueError("LSP frame without Content-Length")
    body = stream.read(length)
    parsed: Message = json.loads(body.decode("utf-8"))
    return parsed


class StdioSession:
    """One server process and its JSON-RPC traffic."""

    def __init__(self, argv: Sequence[str], env: Mapping[str, str], cwd: Path) -> None:
        self.proc = subprocess.Popen(list(argv), env=dict(env), cwd=cwd, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.inbox: queue.Queue[Message | None] = queue.Queue()
        self.seen: list[Message] = []
        self._next_id = 0
        self._stderr: list[bytes] = []
        threading.Thread(target=self._pump, daemon=True).start()
        threading.Thread(target=self._drain_stderr, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        try:
            while (message := _read_message(self.proc.stdout)) is not None:
                self.inbox.put(message)
        finally:
            self.inbox.put(None)  # end of stream: wakes any waiter

    def _drain_stderr(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self._stderr.append(line)

    @property
    def stderr(self) -> str:
        return b"".join(self._stderr).decode("utf-8", "replace")

    def send(self, message: Message) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def notify(self, method: str, params: Any = None) -> None:
        self.send({"method": method, "params": params})

    def _answer(self, message: Message) -> None:
        result: Any = None
        if message["method"] == "workspace/configuration":
            result = [None for _ in message.get("params", {}).get("items", [])]
        self.send({"id": message["id"], "result": result})

    def wait_for(self, matches: Callable[[Message], bool], what: str, timeout: float = TIMEOUT) -> Message:
        """The first message (from now on) for which `matches` is true; server requests are answered."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            try:
                message = self.inbox.get(timeout=max(remaining, 0.0))
            except queue.Empty:
                raise AssertionError(f"no {what} within {timeout}s; server stderr:\n{self.stderr}") from None
            if message is None:
                raise AssertionError(f"server closed its output before {what}; stderr:\n{self.stderr}")
            self.seen.append(message)
            if "method" in message and "id" in message:
                self._answer(message)
            if matches(message):
                return message

    def request(self, method: str, params: Any = None) -> Any:
        self._next_id += 1
        rid = self._next_id
        self.send({"id": rid, "method": method, "params": params})
        reply = self.wait_for(lambda m: m.get("id") == rid and "method" not in m, f"reply to {method}")
        assert "error" not in reply, f"{method} failed: {reply['error']}"
        return reply.get("result")

    def close(self, timeout: float = 20.0) -> int:
        """Wait for the process to exit (after `exit`); kill it if it does not."""
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError(f"server did not exit within {timeout}s; stderr:\n{self.stderr}") from None


def handshake(argv: Sequence[str], env: Mapping[str, str], cwd: Path, document: Path,
              workspace: Path | None = None) -> dict[str, Any]:
    """initialize (workspace folder: `workspace`, else the document's folder), initialized, didOpen `document`
    (must publish HFC001), shutdown, exit. The server runs in `cwd`, which need not be the workspace.

    Returns the published diagnostics, the server's exit code and the seconds from start to the diagnostics."""
    folder = workspace or document.parent
    began = time.monotonic()
    session = StdioSession(argv, env, cwd)
    try:
        init = session.request("initialize", {
            "processId": None,
            "rootUri": folder.as_uri(),
            "workspaceFolders": [{"uri": folder.as_uri(), "name": folder.name}],
            "capabilities": {"textDocument": {"publishDiagnostics": {"relatedInformation": True}}},
            "initializationOptions": {},
        })
        session.notify("initialized", {})
        uri = document.resolve().as_uri()
        session.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "python", "version": 1, "text": document.read_text(encoding="utf-8")}})
        published = session.wait_for(
            lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri
            and bool(m["params"]["diagnostics"]), "diagnostics for the opened document")
        seconds = time.monotonic() - began
        session.request("shutdown")
        session.notify("exit")
        code = session.close()
    finally:
        if session.proc.poll() is None:
            session.proc.kill()
            session.proc.wait()
    return {"init": init, "diagnostics": published["params"]["diagnostics"], "exit_code": code,
            "seconds": seconds, "stderr": session.stderr}
