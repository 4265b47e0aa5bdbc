"""Server-initiated work done progress (`window/workDoneProgress/create`, then `$/progress`) for long commands.

Only when the client declares `window.workDoneProgress` (VS Code, Neovim 0.8+); other clients get none and the
work runs the same. `report` may be called from the engine thread: the notification is sent from the loop.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from types import TracebackType

from lsprotocol import types

from hf_cache_lint.lsp.server import HfCacheLintServer

log = logging.getLogger(__name__)


class WorkDone:
    """`async with WorkDone(ls, "title") as progress: ... progress.report("step", 50)`."""

    def __init__(self, ls: HfCacheLintServer, title: str) -> None:
        self.ls = ls
        self.title = title
        self.token: str | None = None
        self.loop: asyncio.AbstractEventLoop | None = None

    async def __aenter__(self) -> WorkDone:
        if not self.ls.supports("window.work_done_progress"):
            return self
        token = f"hf-cache-lint/{uuid.uuid4()}"
        try:
            await self.ls.work_done_progress.create_async(token)
        except Exception as exc:  # a client that refuses the token gets no progress; the work goes on
            log.info("window/workDoneProgress/create refused: %s", exc)
            return self
        self.token, self.loop = token, asyncio.get_running_loop()
        self.ls.work_done_progress.begin(token, types.WorkDoneProgressBegin(
            title=self.title, cancellable=False, percentage=0))
        return self

    def report(self, message: str, percentage: int) -> None:
        """Thread-safe: from the engine thread the notification is queued onto the loop."""
        if self.token is None or self.loop is None:
            return
        value = types.WorkDoneProgressReport(message=message, percentage=max(0, min(100, percentage)))
        self.loop.call_soon_threadsafe(self.ls.work_done_progress.report, self.token, value)

    async def __aexit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        if self.token is not None:
            await asyncio.sleep(0)  # reports queued from the engine thread go out before the end
            self.ls.work_done_progress.end(self.token, types.WorkDoneProgressEnd(
                message="failed" if exc is not None else "done"))
