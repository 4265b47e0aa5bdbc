"""`check --upgrade-to X`: only what is new at X compared with the current target, and the release that
brings each finding (the first behaviour change after the current target where it appears)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from hf_cache_lint.cli_support.discovery import SourceFile
from hf_cache_lint.engine.context import Context
from hf_cache_lint.engine.findings import CheckResult, Finding
from hf_cache_lint.engine.versions import Target, releases_between
from hf_cache_lint.upgrade_diff import key, new_since, note

Checker = Callable[[Sequence[SourceFile], Context], list[CheckResult]]


def new_at_upgrade(sources: Sequence[SourceFile], now: list[CheckResult], later: list[CheckResult],
                   context: Context, upgrade: Target, check: Checker) -> list[CheckResult]:
    """`later` with only the findings that `now` does not have, each saying which release brings it."""
    out: list[CheckResult] = []
    pending: list[tuple[int, list[Finding]]] = []
    for i, (before, after) in enumerate(zip(now, later, strict=True)):
        fresh = new_since(before.findings, after.findings)
        out.append(replace(after, findings=tuple(fresh)))
        if fresh:
            pending.append((i, fresh))
    if not pending:
        return out
    steps = releases_between(context.target, upgrade)
    # Files with new findings only, checked at each release between (a handful of targets at most).
    files = [sources[i] for i, _ in pending]
    seen_at = [check(files, replace(context, target=step)) for step in steps[:-1]]
    for j, (i, fresh) in enumerate(pending):
        labelled = []
        for f in fresh:
            release = next((step for step, results in zip(steps[:-1], seen_at, strict=True)
                            if key(f) in {key(g) for g in results[j].findings}), upgrade)
            labelled.append(replace(f, message=f.message + note(release, context.target)))
        out[i] = replace(out[i], findings=tuple(labelled))
    return out
