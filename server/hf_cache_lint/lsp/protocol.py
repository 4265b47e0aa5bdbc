"""The pygls protocol, minus a leak: a future per incoming notification that nothing removed."""

from __future__ import annotations

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
        for key in set(self._request_futures) - before:
            self._request_futures[key].add_done_callback(partial(self._forget, key))

    def _forget(self, key: Any, _future: Future[Any]) -> None:
        self._request_futures.pop(key, None)
