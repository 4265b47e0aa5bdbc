"""The one screen: can this text hold a finding for the enabled rules? Asked before any parse, by the editor
path (checking/source.py `check_source`) and the CLI path (cli_support/runner.py, in the process that checks
the file) alike; nothing else decides it.

It is fed by what the enabled rules read (`Needs`: the fact kinds of engine/facts each rule declares, and the
generate keywords a rule reads on a call without a cache or `cache_implementation`) and asks, cheapest first:

1. the text, kind by kind (`FactKind.said`: its trigger words, or its own faster test in engine/text/prefilter.py):
   for the facts recorded at or about a generate call (`generate_call`, `ci_value`), a `.generate`,
   `pipeline(` or `cache_implementation` in code; for the uses of a removed cache API (`removed_api_use`, which
   need no generate call: an import of a removed class, a removed method called on a cache in a manual decode
   loop), the words such a use is made of; for any other kind, its triggers;
2. for a whole file (`gate=True`; an editor buffer keeps parso's incremental tree warm instead), the compiled
   module's names and string constants (a kind's `parse_names`, with what its `source` says its facts need: a
   transformers object the interpreter can know, or transformers imported by name) and, for the kinds
   engine/screen/gate.py decides itself, where they stand (engine/screen/gate.py `cannot_hold_finding`).

A text it screens out cannot hold a finding of the enabled rules (tests/engine/test_gate.py runs every rule
example both ways, and without its load and generate lines where the rule reads a kind recorded without a
generate call).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.facts import KINDS, FactKind, Source
from hf_cache_lint.engine.facts.removed_api_use import KIND as REMOVED_API_USE
from hf_cache_lint.engine.text.text import contains, says

Kind = FactKind[Any]


def _every_keyword(name: str) -> bool:
    return True


@dataclass(frozen=True)
class Needs:
    """What the enabled rules read: the fact kinds (engine/facts), and `keyword_matters(name)`, whether one may
    report on a generate call for the keyword `name` written in it when the call carries neither a cache nor a
    `cache_implementation` (the default, every keyword, is always safe)."""

    kinds: frozenset[Kind]
    keyword_matters: Callable[[str], bool] = _every_keyword
    # An enabled rule reads the suppression comments themselves (HFC100: one that silences nothing), so a text
    # holding one may have a finding whatever else it says.
    comments: bool = False


EVERYTHING = Needs(frozenset(KINDS), comments=True)


def can_hold_finding(text: str, path: str, context: Context, needs: Callable[[], Needs] = lambda: EVERYTHING, *,
                     gate: bool = True) -> bool:
    """False only when no enabled rule can find anything in `text` (the module docstring). `needs()`: what the
    enabled rules read, asked only once the text says the words of some kind (so a run whose files all stop at
    the words never loads the rules). `gate`: also ask the compile gate (a whole file); without it only the
    text is looked at (an editor buffer)."""
    said: dict[object, bool] = {}  # by test: kinds sharing one (a generate call, a value written) ask it once

    def says(kind: Kind) -> bool:
        test = kind.might_occur or kind
        got = said.get(test)
        if got is None:
            got = said[test] = kind.said(text)
        return got

    if _may_hold_a_suppression(text) and needs().comments:
        return True
    # The text first, the kinds in registry order until one says it (cheapest first, asked only as far as it
    # decides something: the removed-API scan of the text costs as much as the interpreter on a short script).
    if not any(says(k) for k in KINDS):
        return False
    wanted = [k for k in KINDS if k in needs().kinds]
    if not gate:
        return any(says(k) for k in wanted)
    passed = [k for k in wanted if says(k)]
    if not passed:
        return False
    from hf_cache_lint.engine.screen.gate import (
        cannot_hold_finding,  # the compile gate: only for a text that gets here
    )

    # The kinds the gate decides with tests of its own (parse_names None) it is told of by flag; any other
    # kind's parse_names send the module on when the compiled module names one (and holds what the kind's
    # `source` says its facts need).
    return not cannot_hold_finding(text, path, context, needs().keyword_matters, REMOVED_API_USE in passed,
                                   _parse_names(passed, ""),
                                   {s: _parse_names(passed, s) for s in {k.source for k in passed} - {""}})


def _parse_names(kinds: list[Kind], source: Source) -> frozenset[str]:
    return frozenset[str]().union(*(k.parse_names for k in kinds if k.parse_names is not None and k.source == source))


def _may_hold_a_suppression(text: str) -> bool:
    """The words every suppression comment holds (engine/output/suppress.py reads them exactly): `noqa` in any case,
    or the tool's name."""
    return contains(text, "hf-cache-lint") or says(text, "noqa")
