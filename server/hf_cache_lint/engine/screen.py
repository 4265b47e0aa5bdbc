"""The one screen: can this text hold a finding for the enabled rules? Asked before any parse, by the editor
path (checking/source.py `check_source`) and the CLI path (cli_support/runner.py, in the process that checks
the file) alike; nothing else decides it.

It is fed by what the enabled rules read (`Needs`: the fact kinds, and the generate keywords a rule reads on a
call without a cache or `cache_implementation`) and asks, cheapest first:

1. the text (engine/prefilter.py): for the facts recorded at or about a generate call (`generate_call`,
   `ci_value`), a `.generate`, `pipeline(` or `cache_implementation` in code; for the uses of a removed cache
   API (`removed_api_use`, which need no generate call: an import of a removed class, a removed method called
   on a cache in a manual decode loop), the words such a use is made of;
2. for a whole file (`gate=True`; an editor buffer keeps parso's incremental tree warm instead), the compiled
   module's names and string constants and, where they are there but may make nothing, where they stand
   (engine/gate.py `cannot_hold_finding`).

A text it screens out cannot hold a finding of the enabled rules (tests/engine/test_gate.py runs every rule
example both ways, and without its load and generate lines where the rule reads a kind recorded without a
generate call).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from hf_cache_lint.engine.context import Context
from hf_cache_lint.engine.prefilter import code_hits, might_use_removed_api

# The fact kinds the screen knows how to look for (engine/analysis.py): what a rule may declare it reads.
GENERATE_CALL = "generate_call"  # GenerateCall: a call reaching generate and what meets there
CI_VALUE = "ci_value"  # CiValue: a `cache_implementation` value written somewhere
REMOVED_API_USE = "removed_api_use"  # RemovedApiUse: a use of a cache API the target no longer has
_AT_GENERATE = frozenset({GENERATE_CALL, CI_VALUE})


def _every_keyword(name: str) -> bool:
    return True


@dataclass(frozen=True)
class Needs:
    """What the enabled rules read: the fact kinds, and `keyword_matters(name)`, whether one may report on a
    generate call for the keyword `name` written in it when the call carries neither a cache nor a
    `cache_implementation` (the default, every keyword, is always safe)."""

    kinds: frozenset[str]
    keyword_matters: Callable[[str], bool] = _every_keyword


EVERYTHING = Needs(frozenset({GENERATE_CALL, CI_VALUE, REMOVED_API_USE}))


def can_hold_finding(text: str, path: str, context: Context, needs: Callable[[], Needs] = lambda: EVERYTHING, *,
                     gate: bool = True) -> bool:
    """False only when no enabled rule can find anything in `text` (the module docstring). `needs()`: what the
    enabled rules read, asked only once the text says a word of some kind (so a run whose files all stop at the
    words never loads the rules). `gate`: also ask the compile gate (a whole file); without it only the text is
    looked at (an editor buffer)."""
    hits = code_hits(text, 1) > 0
    # Asked only where the answer decides something: with generate words in an editor buffer (no gate) it would
    # not, and its scan of the text for cache reads costs as much as the interpreter on a short script
    # (engine/removed_api.py asks it again for HFC007 itself); the gate decides removed uses too when asked.
    removed_api: bool | None = might_use_removed_api(text) if not hits or gate else None
    if not hits and not removed_api:
        return False
    wanted = needs()
    hits = hits and not _AT_GENERATE.isdisjoint(wanted.kinds)
    if REMOVED_API_USE not in wanted.kinds:
        removed_api = False
    elif removed_api is None and not hits:
        removed_api = might_use_removed_api(text)
    if not hits and not removed_api:
        return False
    if not gate:
        return True
    from hf_cache_lint.engine.gate import (
        cannot_hold_finding,  # the compile gate: only for a text that gets here
    )

    return not cannot_hold_finding(text, path, context, wanted.keyword_matters, bool(removed_api))
