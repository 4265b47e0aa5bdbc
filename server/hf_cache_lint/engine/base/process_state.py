"""Process-wide state, named: every module global that is filled or rebound after import, with its owner, why it
is there, and for each cache that carries something from one check to the next, its reset.

A newcomer reads here what outlives a call (nothing else does: tests/engine/test_process_state.py scans the package
for module-level containers created empty and names rebound with `global`, and fails on one missing from `STATE`).
`reset_all()` empties every cache (a test that needs a cold process, or a long-lived server told to start over).

The one patch of a library at import is parso's `end_pos` (engine/syntax/parsing.py's docstring: why, when, and its test).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

Role = Literal["cache", "registry", "scope", "in-flight"]


@dataclass(frozen=True)
class Global:
    """One module global that changes after import. `role`: "cache" carries results across checks (has a
    reset); "registry" is filled once at import (never by a check); "scope" is set and restored around one
    run or fork; "in-flight" holds work under way (writes, a saved collector setting)."""

    module: str  # path under hf_cache_lint/
    name: str
    role: Role
    why: str


STATE: tuple[Global, ...] = (
    Global("engine/interpreter/replay_store.py", "_DOCUMENTS", "cache",
           "an editor buffer's last uncalled-function runs, replayed at the next keystroke (MAX_DOCUMENTS)"),
    Global("engine/interpreter/modules.py", "_CACHE", "cache", "workspace modules' exports by file version (_CACHE_SIZE)"),
    Global("engine/syntax/parsing.py", "_MOVES", "cache",
           "per editor buffer: how often its kept tree's line count changed, where the last change began and how it moved "
           "the lines (replays)"),
    Global("engine/interpreter/shift.py", "_FIELDS", "cache",
           "per dataclass or named tuple type: the fields a moved copy maps (filled at a type's first move)"),
    Global("engine/syntax/fast_parser.py", "_TABLES", "registry", "parso's grammar tables re-keyed, once per grammar object"),
    Global("engine/interpreter/removed_api.py", "_LAST_ANSWERS", "cache",
           "the removed-API reader's last check: which functions' texts can hold no use, for its words (one check's)"),
    Global("engine/text/text.py", "_LAST_STARTS", "cache", "the last text's line starts (a one-entry memo)"),
    Global("engine/text/text.py", "_LAST_LINES", "cache", "the last text's lines (a one-entry memo)"),
    Global("engine/text/text.py", "_LAST_LOWERED", "cache",
           "the last text lowered, for `says` (a one-entry memo: the screen and the suppressions both ask)"),
    Global("checking/screening.py", "_LAST", "cache", "the rules' needs for the last settings object (a one-entry memo)"),
    Global("rules/order.py", "_REJECTED", "cache",
           "kwargs_rejected's answers for one check's calls: emptied after every check (checking/source.py)"),
    Global("engine/facts/__init__.py", "KINDS", "registry", "the fact kinds, discovered at import"),
    Global("engine/facts/__init__.py", "_BY_TYPE", "registry", "fact kinds by their dataclass"),
    Global("engine/facts/__init__.py", "_BY_NAME", "registry", "fact kinds by name"),
    Global("engine/interpreter/known.py", "BY_NAME", "registry", "handlers of known callables, filled by decorators"),
    Global("engine/environment/confine.py", "_SETTLED", "scope", "realpaths settled for one CLI run (confine.settled())"),
    Global("checking/jedi_bridge.py", "_CACHE_DIR", "scope", "jedi's cache folder for this process (a fork makes its own)"),
    Global("cli_support/runner.py", "_FORKED_CACHE", "scope", "the result cache the pool's forked workers read"),
    Global("lsp/protocol.py", "_WRITES", "in-flight", "websocket writes under way (a task nobody holds is collected)"),
    Global("lsp/startup.py", "_saved", "in-flight", "the collector's thresholds while the server starts"),
    Global("engine/base/process_state.py", "_RESETS", "registry", "the caches' resets, given by their owners at import"),
)

_RESETS: dict[tuple[str, str], Callable[[], None]] = {}


def resettable(module: str, name: str, reset: Callable[[], None]) -> None:
    """Called by the owner of a "cache" global in `STATE`, at its import: how to empty it."""
    if not any(g.module == module and g.name == name and g.role == "cache" for g in STATE):
        raise KeyError(f"{module}:{name} is no cache in engine/base/process_state.py STATE")
    _RESETS[(module, name)] = reset


def reset_all() -> None:
    """Empty every cache whose owner is imported (one not imported holds nothing)."""
    for reset in list(_RESETS.values()):
        reset()
