"""The one screen (engine/screen/screen.py) for the rules the settings enable: what they read, from their own
declarations (`Rule.reads`, `Rule.reads_keyword`). check_source asks it, and the CLI asks it first in the process
that checks the file (cli_support/runner.py); this module stays light (no parser, no rules until a text says a word
of some kind), so a run whose files all stop at the words loads neither.
"""

from __future__ import annotations

from functools import lru_cache

from hf_cache_lint.engine.base import process_state
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.screen.screen import Needs, can_hold_finding
from hf_cache_lint.settings import Settings


def screen(text: str, path: str, settings: Settings, context: Context | None, *, gate: bool = True) -> bool:
    """The one screen (engine/screen/screen.py) for the rules `settings` enable: whether `text` may hold a finding.
    check_source asks it, and the CLI asks it first in the process that checks the file (cli_support/runner.py)."""
    return can_hold_finding(text, path, context or Context(), lambda: needs_of(settings), gate=gate)


def needs_of(settings: Settings) -> Needs:
    """What the rules `settings` enable read: the fact kinds each declares (`Rule.reads`), the keywords
    (`Rule.reads_keyword`) and whether one reads the suppression comments (`Rule.reads_comments`)."""
    global _LAST
    last = _LAST
    if last is not None and last[0] is settings:  # the same (frozen) settings for every file of a run
        return last[1]
    from hf_cache_lint.rules import ALL_RULES  # the rules load only when a text says a word of some kind

    got = _needs(tuple(r.code for r in ALL_RULES if settings.enabled(r.code)))
    _LAST = (settings, got)
    return got


# The settings `needs_of` last answered for, and its answer: the screen asks it up to four times a file, and
# asking every rule `enabled` each time cost ~0.4 s of CPU over transformers' tree (133,812 calls). The codes it
# reads (select, extend_select, ignore, quiet) are tuples of a frozen dataclass: they cannot change under it.
_LAST: tuple[Settings, Needs] | None = None


def _forget_last() -> None:
    global _LAST
    _LAST = None


process_state.resettable("checking/screening.py", "_LAST", _forget_last)


@lru_cache(maxsize=64)
def _needs(codes: tuple[str, ...]) -> Needs:
    from hf_cache_lint.rules import BY_CODE

    rules = tuple(BY_CODE[c] for c in codes)

    @lru_cache(maxsize=4096)
    def keyword_matters(name: str) -> bool:
        return any(rule.reads_keyword(name) for rule in rules)

    return Needs(frozenset(k for r in rules for k in r.reads), keyword_matters, any(r.reads_comments for r in rules))


@lru_cache(maxsize=4096)
def keyword_matters(name: str) -> bool:
    """Whether any rule may report on a generate call for the keyword `name` written in it, when the call has no
    cache argument and no `cache_implementation`. Each rule says so itself (`Rule.reads_keyword`; only HFC005
    does: a misspelled keyword, one the version removed, `generate_kwargs=` on a pipeline), so a new rule
    declares its keywords in its own package (tests/engine/test_gate.py runs every rule example both ways)."""
    from hf_cache_lint.rules import ALL_RULES

    return any(rule.reads_keyword(name) for rule in ALL_RULES)
