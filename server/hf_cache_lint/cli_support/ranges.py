"""`check` over a range of transformers releases (a requirement such as `transformers>=4.45,<6`): every file
checked at each release the plan names (engine/target_plan.py), the findings merged per place with the
releases each fails on (engine/across.py)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from hf_cache_lint.cli_support.discovery import SourceFile
from hf_cache_lint.engine.across import merge
from hf_cache_lint.engine.context import Context
from hf_cache_lint.engine.findings import CheckResult
from hf_cache_lint.engine.target_plan import TargetPlan

Checker = Callable[[Sequence[SourceFile], Context], list[CheckResult]]


def merged_results(plan: TargetPlan, per_release: Sequence[list[CheckResult]]) -> list[CheckResult]:
    """One result per file: the newest release's, with the findings of every release merged."""
    out: list[CheckResult] = []
    for i, newest in enumerate(per_release[-1]):
        items = merge([(t, [(0, f) for f in results[i].findings]) for t, results in zip(plan.releases, per_release,
                                                                                      strict=True)],
                      plan.admits())
        findings = sorted((f for _, f in items), key=lambda f: (f.span.start.line, f.span.start.column, f.code))
        out.append(replace(newest, findings=tuple(findings)))
    return out


def check_across(sources: Sequence[SourceFile], context: Context, plan: TargetPlan, check: Checker) -> list[CheckResult]:
    """Every file at every release of the plan (oldest first), merged."""
    per_release = [check(sources, replace(context, target=t)) for t in plan.releases]
    return merged_results(plan, per_release)
