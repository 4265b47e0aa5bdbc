"""`check` over a range of transformers releases (a requirement such as `transformers>=4.45,<6`): every file
checked at each release the plan names (engine/environment/target_plan.py), the findings merged per place with the
releases each fails on (checking/across.py)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import replace

from hf_cache_lint.checking.across import key, merge
from hf_cache_lint.cli_support.discovery import SourceFile
from hf_cache_lint.engine.base.findings import CheckResult, Finding
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.target_plan import TargetPlan
from hf_cache_lint.settings import Settings

Checker = Callable[[Sequence[SourceFile], Context], list[CheckResult]]

log = logging.getLogger("hf_cache_lint")


def merged_results(plan: TargetPlan, per_release: Sequence[list[CheckResult]]) -> list[tuple[CheckResult, set[object]]]:
    """One result per file: the newest release's, with the findings of every release merged; and the keys of
    the findings that fail on some checked releases only."""
    out: list[tuple[CheckResult, set[object]]] = []
    for i, newest in enumerate(per_release[-1]):
        per_file = [(t, [(0, f) for f in results[i].findings]) for t, results in zip(plan.releases, per_release,
                                                                                   strict=True)]
        items = merge(per_file, plan.admits())
        everywhere = set.intersection(*({key(f) for _, f in found} for _, found in per_file))
        findings = sorted((f for _, f in items), key=lambda f: (f.span.start.line, f.span.start.column, f.code))
        out.append((replace(newest, findings=tuple(findings)), {key(f) for f in findings} - everywhere))
    return out


def _only_safe_fixes(source: SourceFile, result: CheckResult, partial: set[object], settings: Settings,
                     context: Context) -> CheckResult:
    """A finding that fails on some admitted releases only keeps a fix only when applying it brings nothing the
    other releases reject (cli_support/fixer.py's guard, as --fix applies it); a notebook's such fixes are
    dropped (offered nowhere rather than wrongly)."""
    if not any(key(f) in partial and f.fixes for f in result.findings):
        return result
    from hf_cache_lint.cli_support.fixer import _recheck
    from hf_cache_lint.engine.text.text import UndecodableError, decode_source
    from hf_cache_lint.fixcheck import file_recheck

    def is_ignore(fix_title: str) -> bool:
        return fix_title.startswith("Ignore ")

    guard = None
    text = ""
    if not source.is_notebook:
        try:
            text = decode_source(source.path.read_bytes())
            guard = _recheck(file_recheck, source.display, settings, context)[1]
        except (OSError, UndecodableError, ValueError):
            guard = None
    findings: list[Finding] = []
    for f in result.findings:
        if key(f) in partial and f.fixes:
            kept = tuple(x for x in f.fixes if is_ignore(x.title) or (guard is not None and guard([text], 0, x)))
            if len(kept) != len(f.fixes):
                log.debug("%s: dropped a fix of %s that some admitted release would reject", source.display, f.code)
            f = replace(f, fixes=kept)
        findings.append(f)
    return replace(result, findings=tuple(findings))


def check_across(sources: Sequence[SourceFile], context: Context, plan: TargetPlan, check: Checker,
                 settings: Settings | None = None) -> list[CheckResult]:
    """Every file at every release of the plan (oldest first), merged. With `settings`, the fixes of findings
    that fail on some releases only are checked on the others too (`_only_safe_fixes`)."""
    per_release = [check(sources, replace(context, target=t)) for t in plan.releases]
    merged = merged_results(plan, per_release)
    if settings is None:
        return [result for result, _ in merged]
    return [_only_safe_fixes(source, result, partial, settings, context)
            for source, (result, partial) in zip(sources, merged, strict=True)]
