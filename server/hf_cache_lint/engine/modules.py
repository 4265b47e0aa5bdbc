"""The workspace's own modules: find the file an import names, and what its top level leaves behind.

A module's exports are computed once per (path, mtime, size, target version) and kept in a small
LRU, so importing a workspace module costs one analysis per change of that file, not per keystroke.
Only files inside the workspace (or the importing file's folder, or an extraPaths root) are read, symlinks
resolved (engine/confine.py), and read as engine/reads.py reads (regular files up to MAX_MODULE_BYTES, never a
FIFO or a device); nothing is executed.
"""

from __future__ import annotations

import re
import sys
import threading
from collections import OrderedDict
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from hf_cache_lint.engine import deps, process_state
from hf_cache_lint.engine.confine import inside
from hf_cache_lint.engine.context import Context
from hf_cache_lint.engine.reads import read_bounded
from hf_cache_lint.engine.values import HeapObj, Value

MAX_MODULE_BYTES = 2 * 1024 * 1024
# A module whose text has none of these cannot export a model, config, cache or kwargs fact worth a parse.
# Words, not calls: `pipeline (` and `DynamicCache (` are calls too (what the tokenizer skips never hides one).
FACT_WORDS = ("from_pretrained", "generation_config", "cache_implementation", "GenerationConfig", "pipeline",
              "Cache", "_key_values")
SKIP_ROOTS = frozenset(sys.stdlib_module_names) | {
    "transformers", "torch", "unsloth", "peft", "vllm", "mamba_ssm", "numpy", "fastapi", "flask",
    "accelerate", "datasets", "tokenizers", "huggingface_hub", "optimum", "trl",
}


_TOP_ASSIGN = re.compile(r"^\f*([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s*(?::[^=\n]*)?=(?!=)", re.M)


@dataclass(frozen=True)
class Exports:
    """A module's names and heap after its top level ran (abstractly)."""

    path: str
    names: dict[str, Value]
    heap: dict[int, HeapObj]


def resolve(module: str, level: int, importer: Path | None, roots: tuple[Path, ...]) -> Path | None:
    """The workspace file for `from <level dots><module> import ...`, if there is one."""
    parts = [p for p in module.split(".") if p]
    if level == 0 and (not parts or parts[0] in SKIP_ROOTS):
        return None
    if level > 0:
        if importer is None:
            return None
        base = importer.parent
        for _ in range(level - 1):
            base = base.parent
        bases: tuple[Path, ...] = (base,)
    else:
        bases = roots
    for base in bases:
        candidate = base.joinpath(*parts) if parts else base
        for path in (candidate.with_suffix(".py"), candidate / "__init__.py"):
            deps.note(path)
            # Only a file inside the roots: not a symlink out of the workspace, not `from ... import`
            # climbing above it.
            if path.is_file() and inside(path, roots):
                return path
    return None


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
    from hf_cache_lint.engine.interp import Interpreter, parse
    from hf_cache_lint.engine.text import UndecodableError, decode_source

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


@lru_cache(maxsize=256)
def _top_level_names(path: str, mtime_ns: int) -> frozenset[str]:
    """Names a module assigns at its top level (`name = ...`, `name: T = ...`, `a, b = ...`)."""
    data = read_bounded(path, MAX_MODULE_BYTES)
    if data is None:
        return frozenset()
    text = data.decode("utf-8", errors="replace")
    names: set[str] = set()
    for m in _TOP_ASSIGN.finditer(text):
        names.update(n.strip() for n in m.group(1).split(","))
    return frozenset(names)


@lru_cache(maxsize=256)
def _has_fact_words(path: str, mtime_ns: int, size: int) -> bool:
    data = read_bounded(path, MAX_MODULE_BYTES)
    if data is None:
        return False
    text = data.decode("utf-8", errors="replace")
    return any(w in text for w in FACT_WORDS)


def might_export_facts(path: Path) -> bool:
    """False when `exports(path)` would be empty for sure (no FACT_WORDS, or too large to analyse)."""
    deps.note(path)
    try:
        st = path.stat()
    except OSError:
        return False
    return st.st_size <= MAX_MODULE_BYTES and _has_fact_words(str(path), st.st_mtime_ns, st.st_size)


def assigns(path: Path, name: str) -> bool:
    """Whether `name` can hold a value worth importing: classes, functions and re-exports cannot."""
    deps.note(path)
    try:
        return name in _top_level_names(str(path), path.stat().st_mtime_ns)
    except OSError:
        return False


def clear_cache() -> None:
    with _LOCK:
        _CACHE.clear()


process_state.resettable("engine/modules.py", "_CACHE", clear_cache)
