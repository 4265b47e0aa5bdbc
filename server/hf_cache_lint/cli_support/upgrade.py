"""`check --upgrade-to X`: only what is new at X compared with the current target, and the release that
brings each finding (the first behaviour change after the current target where it appears)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from hf_cache_lint.cli_support.discovery import SourceFile
from hf_cache_lint.engine.base.findings import CheckResult, Finding, Severity
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.release_steps import releases_between
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.upgrade_diff import key, note

Checker = Callable[[Sequence[SourceFile], Context], list[CheckResult]]


_RANK = {Severity.HINT: 0, Severity.INFO: 1, Severity.WARNING: 2, Severity.ERROR: 3}

# `cache_implementation="hybrid"` written in a call or a passed GenerationConfig: 4.57 builds a StaticCache from it
# (with a deprecation log); 5.x resets it to None before any cache is built, so generate builds its default cache
# and says nothing (docs/facts.md §2, `facts:hybrid_keyword`; the HFC006 hint is how the check finds it).
_HYBRID = '`cache_implementation="hybrid"`'


def _note(release: Target, context: Context) -> str:
    """` [new in transformers 5.0.0; not reported for 4.57.6]`; from a range, the range's own words."""
    plan = context.plan
    if plan is not None and plan.is_range:
        return f" [new in transformers {release}; not reported for any release {plan.admits()} admits]"
    return note(release, context.target)


def _rose(before: Finding, after: Finding) -> bool:
    return _RANK.get(after.severity, 0) > _RANK.get(before.severity, 0)


def meaning_changes(hints: Sequence[CheckResult], current: Target, upgrade: Target) -> list[list[Finding]]:
    """Per file, the values whose meaning the upgrade changes without an error or a warning: an explicit
    `"hybrid"` (a static sliding-window cache on 4.x, the default dynamic cache from 5.0)."""
    if current.hybrid_is_reset or not upgrade.hybrid_is_reset:
        return [[] for _ in hints]
    out: list[list[Finding]] = []
    for result in hints:
        out.append([replace(f, severity=Severity.WARNING, fixes=(), message=(
            f"{_HYBRID} changes meaning silently: transformers {current} builds a `StaticCache` from it; from 5.0.0 "
            "it is reset to None before any cache is built, so generate builds its default dynamic cache, with no "
            "error or warning (set `\"static\"` to keep the static cache)"))
            for f in result.findings if f.code == "HFC006" and f.message.startswith(_HYBRID)])
    return out


def migration(context: Context, upgrade: Target) -> Context:
    """The context of `--upgrade-to X --fix`: the current target's release(s) and X, checked as one range, so
    a fix is applied only when it is the same on all of them (the code then runs before and after)."""
    from hf_cache_lint.engine.environment.target_plan import TargetPlan

    plan = context.plan
    releases = plan.releases if plan is not None else (context.target,)
    spec = plan.spec if plan is not None else str(context.target)
    moving = TargetPlan(f"{spec} and {upgrade}", "--upgrade-to", "setting", (*releases, upgrade))
    return replace(context, target=upgrade, plan=moving)


def new_at_upgrade(sources: Sequence[SourceFile], now: list[CheckResult], later: list[CheckResult],
                   context: Context, upgrade: Target, check: Checker,
                   changed: Sequence[Sequence[Finding]] = ()) -> list[CheckResult]:
    """`later` with only what gets worse compared with `now`: the findings that are new, those whose severity
    rises (a 4.x deprecation that is an error in 5.x), and `changed` (meaning_changes), each saying which
    release brings it."""
    out: list[CheckResult] = []
    pending: list[tuple[int, list[Finding]]] = []
    for i, (before, after) in enumerate(zip(now, later, strict=True)):
        was = {key(f): f for f in before.findings}
        worse = [f for f in after.findings if key(f) not in was or _rose(was[key(f)], f)]
        worse += [f for f in (changed[i] if i < len(changed) else ()) if key(f) not in {key(g) for g in worse}]
        out.append(replace(after, findings=tuple(worse)))
        if worse:
            pending.append((i, worse))
    if not pending:
        return out
    steps = releases_between(context.target, upgrade)
    # Files with new findings only, checked at each release between (a handful of targets at most).
    files = [sources[i] for i, _ in pending]
    seen_at = [check(files, replace(context, target=step)) for step in steps[:-1]]
    for j, (i, fresh) in enumerate(pending):
        labelled = []
        was = {key(f): f for f in now[i].findings}
        for f in fresh:
            def there(results: list[CheckResult], f: Finding = f, j: int = j,
                      was: dict[tuple[str, object], Finding] = was) -> bool:
                found = {key(g): g for g in results[j].findings}
                if f.code == "HFC006" or key(f) not in found:
                    return False
                return key(f) not in was or _rose(was[key(f)], found[key(f)])

            if f.message.startswith(_HYBRID):
                release = Target.of("5.0.0")
            else:
                release = next((step for step, results in zip(steps[:-1], seen_at, strict=True)
                                if there(results)), upgrade)
            if key(f) in was and _rose(was[key(f)], f):
                text = (f"{f.message} [severity rises from {was[key(f)].severity.value} on {context.target} to "
                        f"{f.severity.value} in transformers {release}]")
            else:
                text = f.message + _note(release, context)
            labelled.append(replace(f, message=text))
        out[i] = replace(out[i], findings=tuple(labelled))
    return out
