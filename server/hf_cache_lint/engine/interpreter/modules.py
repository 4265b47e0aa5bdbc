"""The workspace's own modules: what a module's top level leaves behind (finding the file an import names, and
whether it can export anything: engine/environment/workspace.py).

A module's exports are computed once per (path, mtime, size, target version) and kept in a small
LRU, so importing a workspace module costs one analysis per change of that file, not per keystroke.
Files are read as engine/environment/workspace.py says (inside the roots, bounded); nothing is executed.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

from hf_cache_lint.engine.base import process_state
from hf_cache_lint.engine.environment import deps
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.reads import read_bounded
from hf_cache_lint.engine.environment.workspace import FACT_WORDS, MAX_MODULE_BYTES
from hf_cache_lint.engine.interpreter.values import HeapObj, Value


@dataclass(frozen=True)
class Exports:
    """A module's names and heap after its top level ran (abstractly)."""

    path: str
    names: dict[str, Value]
    heap: dict[int, HeapObj]


_LOCK = threading.Lock()
_CACHE: OrderedDict[tuple[str, int, int, str], Exports] = OrderedDict()
_CACHE_SIZE = 64
_IN_PROGRESS = threading.local()


def exports(path: Path, context: Context) -> Exports | None:
    """The module's exports, from the cache when the file has not changed."""
    deps.note(path)
    try:
        st = path.stat()
    except OSError:
        return None
    if st.st_size > MAX_MODULE_BYTES:
        return None
    key = (str(path), st.st_mtime_ns, st.st_size, str(context.target))
    with _LOCK:
        hit = _CACHE.get(key)
        if hit is not None:
            _CACHE.move_to_end(key)
            return hit
    busy: set[str] = getattr(_IN_PROGRESS, "paths", set())
    if str(path) in busy:  # an import cycle: the module is still being analysed
        return None
    busy.add(str(path))
    _IN_PROGRESS.paths = busy
    try:
        result = _analyse(path, context)
    finally:
        busy.discard(str(path))
    if result is not None:
        with _LOCK:
            _CACHE[key] = result
            while len(_CACHE) > _CACHE_SIZE:
                _CACHE.popitem(last=False)
    return result


def _analyse(path: Path, context: Context) -> Exports | None:
    from hf_cache_lint.engine.interpreter.interp import Interpreter, parse
    from hf_cache_lint.engine.text.text import UndecodableError, decode_source

    data = read_bounded(path, MAX_MODULE_BYTES)  # a FIFO or device in its place is refused, never waited on
    if data is None:
        return None
    try:
        text = decode_source(data)
    except UndecodableError:
        return None
    if not any(w in text for w in FACT_WORDS):
        return Exports(str(path), {}, {})
    interpreter = Interpreter(text, str(path), context)
    try:
        interpreter.run_top_level(parse(text))
    except RecursionError:
        return None
    state = interpreter.session.module_state
    return Exports(str(path), dict(state.names), state.heap.as_dict())


def clear_cache() -> None:
    with _LOCK:
        _CACHE.clear()


process_state.resettable("engine/interpreter/modules.py", "_CACHE", clear_cache)
