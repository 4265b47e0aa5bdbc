"""HFC007's write to a read-only property of a transformers cache: `cache.max_cache_len = 0` (HeadInfer resets it on
its own `DynamicCache` subclass). The release table says what each member of a cache class is at each release
(scripts/release_table.py `class_members`, read from the wheels): `Cache.max_cache_len` and `Cache.max_batch_size`
are properties on 4.54.0-5.19.0 (plain attributes a write may set before and after), `is_sliding`,
`is_compileable`, ... from their first release on. No `transformers/cache_utils.py` of the 106 wheels the table reads
defines a property setter (checked: no `.setter` in any of them), so a write to one of them raises
`AttributeError: property 'max_cache_len' of 'OffloadedCache' object has no setter` (Python 3.11+'s wording; the
oracle runs 3.11+; 3.10 says "can't set attribute").

Precision: the receiver is a transformers cache of `transformers.cache_utils` (the interpreter's `cache_use`: a class
the code builds, a model's output, the project's own subclass that does not define the member itself), the member
is the table's `property` at the target, and no `try` catching AttributeError nor a `hasattr` probe surrounds it."""

from __future__ import annotations

from functools import partial

from hf_cache_lint.engine.base.findings import Finding, Severity
from hf_cache_lint.engine.environment import releases
from hf_cache_lint.engine.environment.release_version import Version
from hf_cache_lint.engine.facts.cache_use import CacheUse
from hf_cache_lint.engine.output.analysis import Analysis
from hf_cache_lint.engine.syntax.use_scope import scope_at
from hf_cache_lint.rules.base import Rule

_CU = "transformers.cache_utils"


def _read_only(cls: str, name: str, version: Version) -> bool:
    return releases.member(_CU, cls, name, version) == "property"


def _run(cls: str, name: str, target: Version) -> tuple[Version, Version | None]:
    """The first release of the run of releases up to `target` where `cls.name` is a property, and the first
    release after `target` where it is not (None: it still is at the newest)."""
    known = releases.known_releases()
    first = target
    for r in reversed([r for r in known if r <= target]):
        if not _read_only(cls, name, r):
            break
        first = r
    after = next((r for r in known if r > target and not _read_only(cls, name, r)), None)
    return first, after


def finding(rule: Rule, analysis: Analysis, use: CacheUse) -> Finding | None:
    if use.what != "cache" or use.op != "write" or use.module != _CU or use.name.startswith("_"):
        return None
    target = analysis.context.target
    cls = use.receiver_class or "DynamicCache"  # a model output's cache: DynamicCache by default
    if not _read_only(cls, use.name, target.version):
        return None
    scope = scope_at(analysis.tree, use.span, use.guard)
    if scope.duck_typed or scope.handles("AttributeError"):
        return None
    first, after = _run(cls, use.name, target.version)
    shown = use.subclass or cls
    error = f"AttributeError: property '{use.name}' of '{shown}' object has no setter"
    last = [r for r in releases.known_releases() if after is not None and r < after][-1:]
    span = f"from {first}" if not last else f"{first} to {last[0]}"
    back = "" if after is None else f"; {after} dropped the property, and a write there sets a plain attribute"
    message = (f"`{use.receiver}.{use.name} = ...`: on transformers {target} `{use.name}` is a read-only property of "
               f"`{cls}` ({span}{back}), so this write raises {error}. Instead, drop the write (the property reads "
               f"`{use.name}` off the cache's layers), or guard it with `try: ... except AttributeError: pass`")
    severity = Severity.ERROR
    if scope.condition:
        severity = Severity.WARNING
        message += f" This happens only if `{scope.condition}` holds."
    return rule.report(use.span, message, severity=severity, story=partial(_story, use, str(target), error))


def _story(use: CacheUse, target: str, error: str) -> str:
    return "\n".join([
        f"**HFC007 removed-cache-api**: `{use.receiver}.{use.name} = ...` writes a member transformers {target} "
        "defines as a property without a setter.", "",
        f"It raises when this line runs (transformers {target}):", "", f"```\n{error}\n```"])
