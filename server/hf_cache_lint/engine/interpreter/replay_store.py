"""The process-wide store of editor buffers' last checks (engine/interpreter/replay.py): per path, the runs of its
uncalled functions and the calls they inlined that the next check of the path may replay, for the buffers open in
an editor (MAX_DOCUMENTS, least recently checked dropped first)."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field

from hf_cache_lint.engine.base import process_state
from hf_cache_lint.engine.interpreter.function_keys import Key
from hf_cache_lint.engine.interpreter.replay_records import CallRecord, Replay, RunKey

MAX_DOCUMENTS = 16  # documents whose last runs are kept (the buffers open in an editor)


@dataclass
class Document:
    """One path's last check: its session fingerprint and the runs it recorded, by function (position, code)."""

    fingerprint: tuple[object, ...]
    runs: dict[RunKey, Replay]
    # Whether that check's meter, with the slack of replaying all of it, stayed under MAX_WORK // 4: only then
    # are replays tried (a module analysed near its budget would be analysed twice: see replay.py's docstring).
    small: bool
    # The inlined calls recorded inside those runs, by the called function's key (Replays.call).
    calls: dict[Key, tuple[CallRecord, ...]] = field(default_factory=dict)
    moves: tuple[int, int] = (0, 1)  # the parser's count of line-count changes after its parse (`moved_from`)


_DOCUMENTS: OrderedDict[str, Document] = OrderedDict()


def document(path: str) -> Document | None:
    """The path's last check (None the first time a path is checked: a file checked once records nothing)."""
    got = _DOCUMENTS.get(path)
    if got is not None:
        _DOCUMENTS.move_to_end(path)
    return got


def keep(path: str, doc: Document) -> None:
    _DOCUMENTS[path] = doc
    _DOCUMENTS.move_to_end(path)
    while len(_DOCUMENTS) > MAX_DOCUMENTS:
        _DOCUMENTS.popitem(last=False)


def forget(path: str) -> None:
    """Drop the path's last check (its kept tree went: the parser's count of line-count changes starts again, so a
    count one higher would no longer say that only the last update's line map lies between that check and the
    next one)."""
    _DOCUMENTS.pop(path, None)


def forget_all() -> None:
    """Drop every recorded run (tests compare analyses with and without replays)."""
    _DOCUMENTS.clear()


__all__ = ["MAX_DOCUMENTS", "Document", "document", "forget", "forget_all", "keep"]


process_state.resettable("engine/interpreter/replay_store.py", "_DOCUMENTS", forget_all)
