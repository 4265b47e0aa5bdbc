"""The checks of one `check` run for its target: one release, every release of a range (cli_support/ranges.py),
and with --upgrade-to X what gets worse at X (cli_support/upgrade.py), fixing for the target, the range, or the
current target and X together (a migration)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from hf_cache_lint.cli_support.discovery import SourceFile
from hf_cache_lint.cli_support.runner import check_files, check_one
from hf_cache_lint.engine.base.findings import CheckResult, FileError, Finding
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.settings import Settings

if TYPE_CHECKING:
    from hf_cache_lint.cli_support.cache import ResultCache

Checker = Callable[[Sequence[SourceFile], Context], list[CheckResult]]
# check_cmd._fix: fix the files with a fixable finding, check each again with the callable given.
Fixer = Callable[[list[SourceFile], list[CheckResult], Settings, Context, Callable[[SourceFile], CheckResult] | None],
                 tuple[list[CheckResult], list[FileError], int]]


def _across(settings: Settings, context: Context) -> Callable[[SourceFile], CheckResult] | None:
    """How to check one file again after fixing it for a range target (None: for its one release)."""
    plan = context.plan
    if plan is None or not plan.is_range:
        return None
    from hf_cache_lint.cli_support.ranges import check_across

    def again(source: SourceFile) -> CheckResult:
        return check_across([source], context, plan, lambda files, ctx: [check_one(files[0], settings, ctx)],
                            settings)[0]

    return again


def run_checks(sources: list[SourceFile], settings: Settings, context: Context, check: Checker, fixer: Fixer, *,
               fix: bool, upgrade_to: str | None, jobs: int = 0,
               cache: ResultCache | None = None) -> tuple[list[CheckResult], list[FileError], int]:
    """The results to report, the files that could not be fixed, and how many fixes were applied (`check`
    checks with `settings`, `jobs` and `cache`; they are given too for the one check with other settings)."""
    from hf_cache_lint.pyproject import ConfigError

    plan = context.plan
    fix_errors: list[FileError] = []
    fixed = 0
    upgrade = None
    if upgrade_to:
        from hf_cache_lint.cli_support.upgrade import migration
        from hf_cache_lint.engine.environment.target import Target

        upgrade = Target.of(upgrade_to)
        if upgrade.version <= context.target.version:
            raise ConfigError(f"--upgrade-to {upgrade} is not newer than the current target {context.target} "
                              f"({context.version_source})")
        if fix:  # a migration: only the fixes that run on the current target(s) and on the upgrade alike
            from hf_cache_lint.cli_support.ranges import check_across

            moving = migration(context, upgrade)
            assert moving.plan is not None
            _, fix_errors, fixed = fixer(sources, check_across(sources, moving, moving.plan, check, settings),
                                         settings, moving, _across(settings, moving))
    if plan is not None and plan.is_range:
        from hf_cache_lint.cli_support.ranges import check_across

        results = check_across(sources, context, plan, check, settings)
    else:
        results = check(sources, context)
    if upgrade is not None:
        from hf_cache_lint.cli_support.upgrade import meaning_changes, new_at_upgrade

        later = check(sources, replace(context, target=upgrade))
        # What an upgrade changes without a finding of its own: HFC006's hints (off by default here) find it.
        hinted = replace(settings, quiet=())
        changed: list[list[Finding]] = []
        if hinted.enabled("HFC006") and not context.target.hybrid_is_reset and upgrade.hybrid_is_reset:
            hints = check_files(sources, replace(hinted, select=("HFC006",), extend_select=()), context,
                                jobs=jobs, cache=cache)
            changed = meaning_changes(hints, context.target, upgrade)
        return new_at_upgrade(sources, results, later, context, upgrade, check, changed), fix_errors, fixed
    if fix:
        results, fix_errors, fixed = fixer(sources, results, settings, context, _across(settings, context))
    return results, fix_errors, fixed
