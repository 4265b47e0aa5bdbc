"""The language server's start-up: what runs between spawn and the first diagnostics, and in which order.

That span is CPU-bound from end to end (a client sends initialize, initialized and didOpen without waiting for
anything but the initialize answer), so it is the sum of what the process executes: the interpreter, lsprotocol
and pygls (the floor's own start, bench/baseline_server.py), our modules, parso's grammar, the engine's modules
and the first check. Two threads cannot share that work (the GIL); what can be done is to execute less of it
and to let the client's side of the handshake overlap with the engine's import:

- `deferred_old_collections`, around `python -m hf_cache_lint serve` and `python -m hf_cache_lint.lsp`: until the
  engine is imported, the cyclic collector collects only the young generation, and seldom. The imports allocate
  hundreds of thousands of long-lived objects, which the default thresholds' older-generation collections walk
  again and again (2.5 % of the instructions from spawn to the first diagnostics, counted with valgrind).
- `warm_engine`, on the engine thread once `initialize` is answered (`HfCacheLintServer.warm_up`): imports the
  first check's modules and checks a one-line snippet (the rules' registry, the engine's lazy caches), then freezes
  what start-up built (later full collections skip it) and restores the collector's thresholds. Analyses wait for it (`HfCacheLintServer.warmed`),
  so the big-document lane never imports the engine beside it.
- `warm_requests`, on the engine thread once the first results are out: code actions, hover, completion and the
  notebook check.
- `ClassCode` (class_code.py, shared with the CLI), over the same span as the deferral: the methods `dataclasses` generates (the frozen classes' __init__,
  __repr__, __eq__, __hash__, __setattr__, __delattr__: ~570 functions of the ~100 classes the first check imports)
  were compiled from their text at every start; start-up takes them from a file of code objects keyed by that exact
  text, as Python takes a module's code from its .pyc (spawn to the first diagnostics, callgrind: 3,168-3,222 ->
  2,853 M instructions, the floor's 2,325 M; bench/README.md).
"""

from __future__ import annotations

import gc
import logging
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from hf_cache_lint.class_code import ClassCode, code_file

log = logging.getLogger(__name__)

# Start-up collects the young generation only, and seldom: what the imports keep (classes, functions, lsprotocol's
# registry: a few hundred thousand objects) is not walked again and again by older-generation collections, while
# their short-lived garbage (lsprotocol's import leaves ~17,000 unreachable objects, ~10 MB) is still freed as it
# goes. Measured from spawn to the first diagnostics: 2.5 % fewer instructions (valgrind) than the default
# thresholds, and much less wall time than that on a busy machine (the full collections are memory-bound:
# `-X importtime` of the engine and the rules, 275 -> 160 ms); the collector off entirely would execute another
# 2.5 % less but keep that 10 MB of garbage in the resident set for good.
START_THRESHOLDS = (10_000, 1_000_000, 1_000_000)
_saved: tuple[int, int, int] | None = None  # the thresholds start-up replaced


CLASS_CODE = code_file(Path(__file__).resolve().parent)  # lsp/__pycache__/dataclass_code.<cache tag>.bin
_class_code: ClassCode | None = None  # installed from the start of start-up to its end


@contextmanager
def deferred_old_collections() -> Iterator[None]:
    """Young-generation collections only, and dataclasses' methods from `ClassCode`, from here to the end of the
    warm-up (`end_start_up`), or to the end of the block when the server returns without one (a real server ends
    with os._exit; tests return)."""
    global _saved, _class_code
    if _saved is None:
        _saved = gc.get_threshold()
        gc.set_threshold(*START_THRESHOLDS)
        if _class_code is None and sys.implementation.cache_tag is not None:
            _class_code = ClassCode(CLASS_CODE)
            _class_code.install()
    try:
        yield
    finally:
        _restore()


def _restore() -> None:
    global _saved, _class_code
    if _saved is not None:
        gc.set_threshold(*_saved)
        _saved = None
    if _class_code is not None:
        _class_code.uninstall()
        _class_code = None


def end_start_up() -> None:
    """Freeze what start-up kept (module globals and classes: later full collections skip them) and restore the
    collector's thresholds, if start-up deferred the old generations."""
    if _saved is not None:
        gc.collect(0)  # the warm-up check's tree: garbage, not to be frozen
        gc.freeze()
        _restore()


def warm_engine(done: threading.Event) -> None:
    """On the engine thread, once `initialize` is answered: the first check's imports and a one-line check."""
    try:
        # Not checking/notebooks.py (engine/text/notebook.py and its patterns, ~1 ms): a text document's first check
        # never reads it; `warm_requests` imports it after the first results, a notebook's check before that itself.
        from hf_cache_lint import pyproject  # noqa: F401  (the first settings read; tomllib only if a pyproject.toml is found)
        from hf_cache_lint.checking import source  # noqa: F401
        from hf_cache_lint.lsp.documents import warm_up

        warm_up()  # the rules' registry (loaded by the first check that reaches them) and the engine's lazy caches
    except Exception:  # the first real check fails the same way and reports it; never fail the handshake
        log.exception("warming the engine failed")
    finally:
        end_start_up()
        done.set()


def warm_requests(done: threading.Event) -> None:
    """On the engine thread, after the first results: what code actions, hover and completion import, and the
    notebook check (a notebook opened later checks without importing it then)."""
    try:
        from hf_cache_lint.checking import notebooks  # noqa: F401
        from hf_cache_lint.lsp import actions, completion, hover  # noqa: F401
    except Exception:  # the request that needs them will fail the same way and report it
        log.exception("warming the request modules failed")
    else:
        done.set()
