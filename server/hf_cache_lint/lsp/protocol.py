"""The pygls protocol, minus a leak: a future per incoming notification that nothing removed."""

from __future__ import annotations

import asyncio
from concurrent.futures import Future
from functools import partial
from typing import Any

from pygls.protocol import LanguageServerProtocol


class Protocol(LanguageServerProtocol):
    """pygls 2.1 stores the future of every async or generator notification handler (didChange is one)
    in `_request_futures` under a fresh uuid, and only a response ever pops an entry: a notification
    has none, so each keystroke leaked ~2 KB (bench/lsp_memory.py: +16 MB over 10,000 edits). The same
    kind of leak as openlawlibrary/pygls#608, for incoming notifications; drop when fixed upstream."""

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
