"""Process-wide state, named: every module global that is filled or rebound after import, with its owner, why it
is there, and for each cache that carries something from one check to the next, its reset.

A newcomer reads here what outlives a call (nothing else does: tests/engine/test_process_state.py scans the package
for module-level containers created empty, names rebound with `global`, ContextVars and functions memoised with
functools' `cache`/`lru_cache`, and fails on one missing from `STATE`).
`reset_all()` empties every cache and memo (a test that needs a cold process, or a long-lived server told to start
over).

The one patch of a library at import is parso's `end_pos` (engine/syntax/parsing.py's docstring: why, when, and its test).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

Role = Literal["cache", "memo", "registry", "scope", "in-flight"]


@dataclass(frozen=True)
class Global:
    """One module global that changes after import. `role`: "cache" carries results across checks (has a
    reset); "memo" is a function memoised by functools, whose answer depends on its arguments alone (a file's
    content is keyed by its path and mtime), so keeping it changes no result (`name` may be `Class.method`);
    "registry" is filled once, at import or for each server object, never by what a check reads; "scope" is set
    and restored around one run or fork (a ContextVar among them); "in-flight" holds work under way (writes, a
    saved collector setting, the modules being read)."""

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
    Global("engine/syntax/splice.py", "_LEAVES", "cache",
           "the leaves under each node the last splice that moved lines moved, for the next such splice (one tree's)"),
    Global("engine/interpreter/shift.py", "_FIELDS", "cache",
           "per dataclass or named tuple type: the fields a moved copy maps (filled at a type's first move)"),
    Global("engine/syntax/fast_parser.py", "_TABLES", "registry",
           "parso's grammar tables re-keyed, once per grammar object (each DFA state holds its own as `_hfc_steps`)"),
    Global("engine/interpreter/removed_api.py", "_LAST_ANSWERS", "cache",
           "the removed-API reader's last check: which functions' texts can hold no use, for its words (one check's)"),
    Global("engine/interpreter/removed_reuse.py", "_LAST_RUNS", "cache",
           "the removed-API reader's last check: each module-level function's uses, by its text, for its inputs"),
    Global("engine/interpreter/functions.py", "_LAST_CALLED", "cache",
           "the last check's bare-called names of each function of an editor buffer, by its code (run_uncalled's order)"),
    Global("engine/interpreter/function_keys.py", "_LAST", "cache",
           "the last editor buffer's function keys, by place (carried over the edit to the next check of that path)"),
    Global("engine/text/text.py", "_CALL_REST", "cache",
           "`has_call`'s compiled matchers of what follows a called word, by the word (a pure function of it)"),
    Global("engine/text/text.py", "_LAST_STARTS", "cache", "the last text's line starts (a one-entry memo)"),
    Global("engine/text/text.py", "_LAST_LINES", "cache", "the last text's lines (a one-entry memo)"),
    Global("engine/text/text.py", "_LAST_LOWERED", "cache",
           "the last text lowered, for `says` (a one-entry memo: the screen and the suppressions both ask)"),
    Global("engine/text/text.py", "_LAST_VERSION", "cache",
           "the last large text's word tests for `contains`, and the one before it (carried over the edit)"),
    Global("engine/text/text.py", "_LAST_KEPT", "cache",
           "the last text's lines with their endings (a one-entry memo: the parse and `contains` both ask)"),
    Global("checking/screening.py", "_LAST", "cache", "the rules' needs for the last settings object (a one-entry memo)"),
    Global("rules/order.py", "_REJECTED", "cache",
           "kwargs_rejected's answers for this check's calls: the last check's after it (checking/source.py)"),
    Global("rules/order.py", "_LAST_REJECTED", "cache",
           "kwargs_rejected's answers for the last check's calls (a keystroke's replays give the same call objects)"),
    Global("engine/facts/__init__.py", "KINDS", "registry", "the fact kinds, discovered at import"),
    Global("engine/facts/__init__.py", "_BY_TYPE", "registry", "fact kinds by their dataclass"),
    Global("engine/facts/__init__.py", "_BY_NAME", "registry", "fact kinds by name"),
    Global("engine/interpreter/known.py", "BY_NAME", "registry", "handlers of known callables, filled by decorators"),
    Global("engine/environment/confine.py", "_SETTLED", "scope", "realpaths settled for one CLI run (confine.settled())"),
    Global("engine/environment/confine.py", "_RUN_MEMO", "scope",
           "answers read off the workspace's files for one CLI run (confine.settled(): the gate's import lookups)"),
    Global("checking/jedi_bridge.py", "_CACHE_DIR", "scope", "jedi's cache folder for this process (a fork makes its own)"),
    Global("cli_support/runner.py", "_FORKED_CACHE", "scope", "the result cache the pool's forked workers read"),
    Global("lsp/protocol.py", "_WRITES", "in-flight", "websocket writes under way (a task nobody holds is collected)"),
    Global("lsp/startup.py", "_saved", "in-flight", "the collector's thresholds while the server starts"),
    Global("lsp/startup.py", "_class_code", "in-flight",
           "dataclasses' compiled methods (ClassCode) installed while the server starts"),
    Global("engine/base/process_state.py", "_RESETS", "registry", "the caches' resets, given by their owners at import"),
    Global("lsp/diagnostics.py", "_HOOKED", "registry",
           "the servers whose converter has the JSON hooks (weak: a server that is gone drops out)"),
    Global("engine/environment/deps.py", "_NOTED", "scope",
           "ContextVar: the files the running check consulted, set around one check by `recording()`"),
    Global("engine/syntax/nodes.py", "_SHARED", "scope",
           "ContextVar: the analysed tree's statement list, set around one analysis by `statements_shared()`"),
    Global("engine/interpreter/modules.py", "_IN_PROGRESS", "in-flight",
           "per thread: the workspace modules whose exports are being read (an import cycle stops there)"),
    # Memos (functools), by module. Each answer is a function of its arguments: the release table's questions,
    # a file's content keyed by its path and mtime, a registry that is fixed after import.
    Global("engine/environment/release_version.py", "Version.parse", "memo", "release numbers parsed, by their text"),
    Global("engine/environment/releases.py", "table", "memo", "the release table (data/releases.json), read once"),
    Global("engine/screen/gate.py", "_dotted_words", "memo",
           "the dotted words the gate reads, by the rules' parse names (the text words' superset)"),
    Global("engine/environment/releases.py", "_at_or_below", "memo", "the tabled release at or below a version"),
    Global("engine/interpreter/patched_self_reads.py", "_module_of", "memo",
           "the tabled model module defining a layer class, by its name (the release table's `attr:` keys)"),
    Global("engine/environment/releases.py", "gone_since", "memo", "the release table's answers, by question"),
    Global("engine/environment/releases.py", "member", "memo", "the release table's answers, by question"),
    Global("engine/environment/releases.py", "owner", "memo", "the class that defines a member, by question"),
    Global("engine/environment/releases.py", "member_gone_since", "memo", "the release table's answers, by question"),
    Global("engine/environment/releases.py", "parameters", "memo", "a tabled signature's parameter names"),
    Global("engine/environment/releases.py", "parameter_gone_since", "memo", "the release table's answers, by question"),
    Global("engine/environment/releases.py", "misfit", "memo", "a call checked against a tabled signature"),
    Global("engine/interpreter/cache_uses.py", "_config_changes", "memo",
           "the GenerationConfig members some tabled release lacks (from the release table, read once)"),
    Global("engine/interpreter/cache_uses.py", "_base_had", "memo", "the release table's answers, by question"),
    Global("engine/environment/releases_models.py", "first_model_removal", "memo", "from the release table, once"),
    Global("engine/environment/releases_models.py", "_merged_attention", "memo", "from the release table, by model"),
    Global("engine/environment/release_steps.py", "first_removal", "memo", "from the release table, once"),
    Global("engine/environment/release_steps.py", "_first_generation_removal", "memo", "from the release table, once"),
    Global("engine/environment/release_steps.py", "table_changes", "memo", "from the release table, once"),
    Global("engine/environment/workspace.py", "_top_level_names", "memo", "a workspace module's names, by path and mtime"),
    Global("engine/environment/workspace.py", "_has_fact_words", "memo",
           "whether a workspace module can hold a fact, by path, mtime and size"),
    Global("engine/environment/workspace.py", "_cache_classes", "memo",
           "a workspace module's cache classes, by path and mtime"),
    Global("engine/environment/checkpoints.py", "_read_json", "memo", "a generation_config.json, by path and mtime"),
    Global("engine/environment/checkpoints.py", "_hub_defaults", "memo", "the shipped hub defaults table, read once"),
    Global("engine/environment/checkpoints.py", "_candidates", "memo",
           "the paths a checkpoint lookup probes (names only: every lookup asks the disk again)"),
    Global("engine/environment/checkpoints.py", "_snapshots", "memo",
           "a checkpoint's snapshots folder in a hub cache (a name only: never what the disk said)"),
    Global("engine/output/edits.py", "_ignore_fix_on", "memo", "the ignore-comment fix, by line text, line and code"),
    Global("engine/screen/lent_values.py", "_statements_of", "memo",
           "a workspace module's statements, by path, mtime and size"),
    Global("engine/interpreter/expressions.py", "_number", "memo", "a number literal's value, by its text"),
    Global("engine/interpreter/constructor_calls.py", "_rebinding", "memo",
           "a cache constructor call's positional bindings at the target and before it, from the release table"),
    Global("checking/source.py", "_yielding", "memo", "the codes that step aside under an Error, by rule tuple"),
    Global("checking/rule_docs.py", "rule_docs", "memo", "the rules' names and summaries (the registry is fixed)"),
    Global("checking/jedi_bridge.py", "_environment", "memo", "jedi's confined environment, by workspace"),
    Global("checking/jedi_bridge.py", "_project", "memo", "jedi's project, by root, import paths and interpreter"),
    Global("checking/screening.py", "_needs", "memo", "what a set of rules reads, by their codes"),
    Global("checking/screening.py", "keyword_matters", "memo", "whether any rule reads a generate keyword, by name"),
    Global("selection.py", "_spec", "memo", "an exclude pattern list compiled, by its lines"),
    Global("selection.py", "_selection", "memo", "the file selection, by its exclude settings"),
    Global("rules/order.py", "intended", "memo", "the keyword a misspelled one was meant to be, by name"),
    Global("rules/hfc002_legacy_tuple_cache/census.py", "_census", "memo",
           "the release table's causal-LM heads counted by what a legacy tuple does, by release"),
    Global("rules/hfc005_unused_generate_kwarg/__init__.py", "_positions_gone", "memo",
           "the release since which a tabled forward (or every one) takes no cache_position, by release"),
    Global("cli_support/cache.py", "tool_fingerprint", "memo",
           "the package files' sizes and mtimes, once a process (the CLI's result cache key)"),
)

_RESETS: dict[tuple[str, str], Callable[[], None]] = {}


def resettable(module: str, name: str, reset: Callable[[], None]) -> None:
    """Called by the owner of a "cache" global in `STATE`, at its import: how to empty it."""
    if not any(g.module == module and g.name == name and g.role == "cache" for g in STATE):
        raise KeyError(f"{module}:{name} is no cache in engine/base/process_state.py STATE")
    _RESETS[(module, name)] = reset


def reset_all() -> None:
    """Empty every cache and memo whose owner is imported (one not imported holds nothing)."""
    for reset in list(_RESETS.values()):
        reset()
    for g in STATE:
        if g.role == "memo" and (memo := memoised(g)) is not None:
            memo.cache_clear()


def memoised(g: Global) -> Any:
    """A "memo" global's function (its `cache_clear`, `cache_info`), or None while its module is not imported:
    looked up in sys.modules, never imported (this module sits below every owner)."""
    module = sys.modules.get("hf_cache_lint." + g.module.removesuffix(".py").removesuffix("/__init__").replace("/", "."))
    obj: Any = module
    for part in g.name.split(".") if module is not None else ():
        obj = getattr(obj, part)
    return obj
