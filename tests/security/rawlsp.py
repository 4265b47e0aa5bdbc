"""A raw stdio LSP client for the server-hardening tests: exact bytes on the wire, the server started
exactly as the VS Code extension starts it (client/launch.json), every message it sends kept.

Never sleeps: `wait` blocks on a condition variable that the reader thread signals per message, with a
deadline that only turns a hang into a failure.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
LAUNCH = json.loads((REPO / "client" / "launch.json").read_text())
TIMEOUT = 60.0

Message = dict[str, Any]


def extension_launch(extension_dir: Path = REPO, python: str = sys.executable) -> tuple[list[str], Path]:
    """(argv, cwd) as client/src/server.ts builds them from client/launch.json for `extension_dir`
    (a checkout: client/serve.py; an unpacked .vsix: bundled/serve.py)."""
    # In the checkout, the sources under test: a stale bundled/ from an earlier build must not win.
    candidates = ["client/serve.py"] if extension_dir == REPO else LAUNCH["bootstrap"]
    bootstrap = next(extension_dir / p for p in candidates if (extension_dir / p).exists())

    def fill(arg: str) -> str:
        return arg.replace("{bootstrap}", str(bootstrap)).replace("{extension}", str(extension_dir))

    return [python, *map(fill, LAUNCH["args"])], Path(fill(LAUNCH["cwd"]))


def frame(body: bytes, length: int | None = None) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % (len(body) if length is None else length) + body


class RawClient:
    """One server process on stdio. Answers the server's own requests (configuration, registration)."""

    def __init__(self, argv: Sequence[str], cwd: Path, env: Mapping[str, str] | None = None,
                 settings: Mapping[str, Any] | None = None) -> None:
        self.proc = subprocess.Popen(list(argv), cwd=cwd, env=dict(env if env is not None else os.environ),
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.settings = dict(settings or {})
        self.messages: list[Message] = []
        self.arrived: list[float] = []  # monotonic time of each message
        self.cond = threading.Condition()
        self.next_id = 1
        self.closed = False
        self.stderr = bytearray()
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._drain_stderr, daemon=True).start()

    # -- wire ------------------------------------------------------------------------------------
    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        try:
            while True:
                length = None
                while True:
                    line = out.readline()
                    if not line:
                        return
                    if line in (b"\r\n", b"\n"):
                        break
                    name, _, value = line.decode("ascii", "replace").partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value.strip())
                body = out.read(length or 0)
                message = json.loads(body)
                self._answer(message)
                with self.cond:
                    self.messages.append(message)
                    self.arrived.append(time.monotonic())
                    self.cond.notify_all()
        finally:
            with self.cond:
                self.closed = True
                self.cond.notify_all()

    def _drain_stderr(self) -> None:
        err = self.proc.stderr
        assert err is not None
        for chunk in iter(lambda: err.read1(65536), b""):
            self.stderr += chunk

    def _answer(self, message: Message) -> None:
        if "id" not in message or "method" not in message:
            return
        if message["method"] == "workspace/configuration":
            result: Any = [self.settings for _ in message["params"]["items"]]
        else:
            result = None
        self.send({"jsonrpc": "2.0", "id": message["id"], "result": result})

    def write(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, message: Message) -> None:
        self.write(frame(json.dumps(message).encode("utf-8")))

    # -- calls -----------------------------------------------------------------------------------
    def request(self, method: str, params: Any = None) -> int:
        rid = self.next_id
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        return rid

    def notify(self, method: str, params: Any = None) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def wait(self, predicate: Callable[[Message], bool], timeout: float = TIMEOUT, start: int = 0) -> Message:
        """The first message (from index `start`) that satisfies `predicate`."""
        deadline = time.monotonic() + timeout
        seen = start
        with self.cond:
            while True:
                for message in self.messages[seen:]:
                    if predicate(message):
                        return message
                seen = len(self.messages)
                left = deadline - time.monotonic()
                if self.closed or left <= 0:
                    raise AssertionError(f"no matching message ({'server gone' if self.closed else 'timeout'}); "
                                         f"got {self.messages[-5:]}; stderr: {bytes(self.stderr[-2000:])!r}")
                self.cond.wait(left)

    def response(self, rid: int, timeout: float = TIMEOUT) -> Message:
        return self.wait(lambda m: m.get("id") == rid and "method" not in m, timeout)

    def call(self, method: str, params: Any = None, timeout: float = TIMEOUT) -> Message:
        return self.response(self.request(method, params), timeout)

    def diagnostics(self, uri: str, start: int = 0, timeout: float = TIMEOUT,
                    version: int | None = None) -> Message:
        return self.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                         and m["params"]["uri"] == uri
                         and (version is None or m["params"].get("version") == version), timeout, start)

    def initialize(self, root: Path, options: Mapping[str, Any] | None = None) -> Message:
        folder = {"uri": root.as_uri(), "name": root.name}
        # Push-only capabilities (no pull diagnostics): every lint shows up as a notification.
        caps = {"textDocument": {"hover": {"contentFormat": ["markdown", "plaintext"]},
                                 "codeAction": {"codeActionLiteralSupport": {"codeActionKind": {"valueSet": [
                                     "quickfix", "source.fixAll"]}}},
                                 "completion": {"completionItem": {"snippetSupport": False}},
                                 "publishDiagnostics": {"versionSupport": True}},
                "workspace": {"configuration": True, "workspaceFolders": True},
                "general": {"positionEncodings": ["utf-16"]}}
        result = self.call("initialize", {"processId": os.getpid(), "rootUri": folder["uri"],
                                          "workspaceFolders": [folder], "capabilities": caps,
                                          "initializationOptions": {"debounceMs": 0, **(options or {})}})
        self.notify("initialized", {})
        return result

    def open(self, path: Path, text: str | None = None, version: int = 1) -> str:
        uri = path.as_uri()
        self.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "python", "version": version,
            "text": path.read_text() if text is None else text}})
        return uri

    def stop(self, timeout: float = 30.0) -> int:
        """shutdown + exit; the exit status."""
        if self.proc.poll() is None:
            try:
                self.call("shutdown", None, timeout)
                self.notify("exit")
            except (AssertionError, BrokenPipeError, OSError):
                pass
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait(timeout)

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)

    def children(self) -> list[int]:
        """The server's child processes (Linux /proc): jedi's environment subprocess shows up here."""
        found: list[int] = []
        for task in Path(f"/proc/{self.proc.pid}/task").glob("*/children"):
            found += [int(p) for p in task.read_text().split()]
        return found


def start_server() -> RawClient:
    """The server started as the VS Code extension starts it (client/launch.json), offline."""
    argv, cwd = extension_launch()
    return RawClient(argv, cwd, env={**os.environ, "HF_HUB_OFFLINE": "1"})
