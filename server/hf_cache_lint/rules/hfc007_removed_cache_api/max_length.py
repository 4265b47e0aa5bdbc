"""`get_max_length()`'s result tested against None on a dynamic cache: the method came back in 5.13 with another
answer for "no maximum".

Read from the wheels and run on the oracle (docs/facts.md): 4.41-4.48's `DynamicCache.get_max_length()` returned
None (no maximum; 4.46-4.48 through the deprecated alias of `get_max_cache_shape()`); the method is missing from 4.49
to 5.12 (HFC007's removed-method finding there); from 5.13.0 it returns -1 for a
DynamicCache of full-attention layers and the window for one with sliding-window layers (a StaticCache: its
`max_cache_len`, as on 4.4x). A None test (`n is None`, `not n`, `n or default`) that meant "no maximum" is never
true again: the code takes the other branch, with no error.
"""

from __future__ import annotations

from functools import partial

from hf_cache_lint.engine.base.findings import Finding, Severity
from hf_cache_lint.engine.environment import releases
from hf_cache_lint.engine.environment.release_version import Version
from hf_cache_lint.engine.facts.cache_use import CacheUse
from hf_cache_lint.engine.output.analysis import Analysis
from hf_cache_lint.rules.base import Rule

_MODULE = "transformers.cache_utils"
# The classes whose 4.4x answer was None: a DynamicCache, or a model output's cache of a class the code does not
# say (generate's and a forward's default is a DynamicCache).
_DYNAMIC = (None, "DynamicCache")
EFFECT = ("returns -1 for a DynamicCache without a maximum (the window size once it has sliding-window layers), "
          "never None, so the test takes the other branch (silent)")
INSTEAD = ("treat a negative answer as no maximum (`n is None or n < 0`); transformers 4.49-5.12 have no "
           "`get_max_length()` at all")


def returns_since(target: Version) -> Version | None:
    """The first release of the run of releases up to `target` that have `DynamicCache.get_max_length` after a
    release without it (5.13.0 on the release table), None when `target` lacks it or is in the first run (4.41-4.48,
    where the answer was None)."""
    known = [r for r in releases.known_releases() if r <= target]
    first = None
    for r in reversed(known):
        if releases.member(_MODULE, "DynamicCache", "get_max_length", r) is None:
            return first
        first = r
    return None  # the method since the oldest release: the 4.4x run that answered None


def finding(rule: Rule, analysis: Analysis, use: CacheUse) -> Finding | None:
    if use.op != "call" or use.name != "get_max_length" or use.none_test is None or use.what != "cache" \
            or use.cls not in _DYNAMIC:
        return None
    target = analysis.context.target
    since = returns_since(target.version)
    if since is None:
        return None  # the method is missing there: the removed-method finding says so
    call = f"`{use.receiver}.get_max_length()`"
    message = (f"{call} is tested against None (`{use.none_test}`), but from transformers {since} (the target is "
               f"{target}) `get_max_length()` {EFFECT}. Instead, {INSTEAD}.")
    # A Warning: nothing raises (HFC007's silent uses are Warnings too).
    return rule.report(use.span, message, severity=Severity.WARNING,
                       story=partial(_story, rule, use, call, str(since), str(target)))


def _story(rule: Rule, use: CacheUse, call: str, since: str, target: str) -> str:
    return "\n".join([
        f"**{rule.code} {rule.name}**: {call} changed its answer for a cache without a maximum.",
        "",
        f"- **Changed in**: {since} (4.41-4.48 returned None for a DynamicCache; 4.49-5.12 have no such method).",
        f"- **Tested here**: `{use.none_test}`.",
        f"- **Instead**: {INSTEAD}.",
        "",
        f"What this line does (transformers {target}): it {EFFECT}.",
    ])


__all__ = ["finding", "returns_since"]
