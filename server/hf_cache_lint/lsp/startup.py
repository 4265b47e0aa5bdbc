"""The language server's start-up: what runs between spawn and the first diagnostics, and in which order.

That span is CPU-bound from end to end (a client sends initialize, initialized and didOpen without waiting for
anything but the initialize answer), so it is the sum of what the process executes: the interpreter, lsprotocol
and pygls (the floor's own start, bench/baseline_server.py), our modules, parso's grammar, the engine's modules
and the first check. Two threads cannot share that work (the GIL); what can be done is to execute less of it
and to let the client's side of the handshake overlap with the engine's import:

- `defer_old_collections`, first thing in `python -m hf_cache_lint serve` and `python -m hf_cache_lint.lsp`: until the
  engine is imported, the cyclic collector collects only the young generation, and seldom. The imports allocate
  hundreds of thousands of long-lived objects, which the default thresholds' older-generation collections walk
  again and again (2.5 % of the instructions from spawn to the first diagnostics, counted with valgrind).
- `warm_engine`, on the engine thread once `initialize` is answered (`HfCacheLintServer.warm_up`): imports the
  first check's modules and checks a one-line snippet (the rules' registry, the engine's lazy caches), then freezes
  what start-up built (later full collections skip it) and restores the collector's thresholds. Analyses wait for it (`HfCacheLintServer.warmed`),
  so the big-document lane never imports the engine beside it.
- `warm_requests`, on the engine thread once the first results are out: code actions, hover and completion.
"""

from __future__ import annotations

import gc
import logging
import threading

log = logging.getLogger(__name__)

# Start-up collects the young generation only, and seldom: what the imports keep (classes, functions, lsprotocol's
# registry: a few hundred thousand objects) is never walked again, while their short-lived garbage (lsprotocol's
# import leaves ~17,000 unreachable objects, ~10 MB) is still freed as it goes. With the collector off instead, the
# start executes ~5 % less but the server's resident set grows by that 10 MB for good; with the default thresholds,
# ~2.5 % more (valgrind instruction counts, spawn to first diagnostics).
START_THRESHOLDS = (10_000, 1_000_000, 1_000_000)
_saved: tuple[int, int, int] | None = None  # the thresholds `defer_old_collections` replaced


def defer_old_collections() -> None:
    """From here to `restore_collections`, only young-generation collections (before lsprotocol's import)."""
    global _saved
    if _saved is None:
        _saved = gc.get_threshold()
        gc.set_threshold(*START_THRESHOLDS)


def restore_collections() -> None:
    """Freeze what start-up kept (module globals and classes: later full collections skip them) and restore the
    collector's thresholds, if `defer_old_collections` changed them."""
    global _saved
    if _saved is not None:
        gc.collect(0)  # the warm-up check's tree: garbage, not to be frozen
        gc.freeze()
        gc.set_threshold(*_saved)
        _saved = None


def warm_engine(done: threading.Event) -> None:
    """On the engine thread, once `initialize` is answered: the first check's imports and a one-line check."""
    try:
        from hf_cache_lint import pyproject  # noqa: F401  (the first settings read: tomllib)
        from hf_cache_lint.checking import notebooks, source  # noqa: F401
        from hf_cache_lint.lsp.documents import warm_up

        warm_up()  # the rules' registry (loaded by the first check that reaches them) and the engine's lazy caches
    except Exception:  # the first real check fails the same way and reports it; never fail the handshake
        log.exception("warming the engine failed")
    finally:
        restore_collections()
        done.set()


def warm_requests() -> None:
    """On the engine thread, after the first results: what code actions, hover and completion import."""
    try:
        from hf_cache_lint.lsp import actions, completion, hover  # noqa: F401
    except Exception:  # the request that needs them will fail the same way and report it
        log.exception("warming the request modules failed")
