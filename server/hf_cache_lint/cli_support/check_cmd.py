"""`hf-cache-lint check`: configuration, discovery, the check (and fix) run, output and exit status.

A run answered from the result cache imports no more than it uses: the rules, the engine's analysis and
parso load only when a file misses (runner.py), the chosen format alone (formats/__init__.py), --upgrade-to's
and --fix's modules only with those flags (tests/cli/test_cache.py checks what a warm run imports).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from hf_cache_lint.cli_support.cache import FolderRefused, ResultCache, cache_folder, disabled_by_env
from hf_cache_lint.cli_support.discovery import Discovery, SourceFile, discover
from hf_cache_lint.cli_support.report import Report, build_report
from hf_cache_lint.cli_support.runner import check_files, check_one
from hf_cache_lint.engine.base.findings import CheckResult, FileError
from hf_cache_lint.engine.environment.context import Context, installed_transformers, resolve_context
from hf_cache_lint.pyproject import Config, ConfigError, check_target, check_version, load_config
from hf_cache_lint.selection import Selection, per_file_codes, relative
from hf_cache_lint.settings import Settings

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2

# The codes of the rules that are off by default in the CLI (Rule.cli_default False: HFC006), written out so
# that a run answered from the cache does not import the rule registry to learn them. A test compares it with
# the registry (tests/cli/test_cache.py), so a new off-by-default rule cannot be forgotten here.
CLI_QUIET = ("HFC006",)


def _error(message: str) -> int:
    print(f"hf-cache-lint: error: {message}", file=sys.stderr)
    return EXIT_ERROR


def effective_settings(config: Config, args: argparse.Namespace) -> Settings:
    """pyproject settings with the flags on top (a --select resets the configured lists, as in Ruff).

    The rules that are off by default in the CLI (HFC006) stay off unless a selection names them.
    """
    settings = replace(config.settings, quiet=CLI_QUIET)
    if args.select is not None:
        settings = replace(settings, select=args.select, ignore=args.ignore or ())
    elif args.ignore is not None:
        settings = replace(settings, ignore=settings.ignore + args.ignore)
    if getattr(args, "extend_select", None):
        settings = replace(settings, extend_select=settings.extend_select + args.extend_select)
    if args.transformers_version:
        settings = replace(settings, transformers_version=args.transformers_version)
    if args.interpreter:
        settings = replace(settings, interpreter=args.interpreter)
    return settings


def _which(program: str) -> str | None:
    import shutil  # only with an interpreter

    return shutil.which(program)


def target_origin(args: argparse.Namespace, config: Config) -> str:
    """Where an explicit target came from, for the user: the flag, else the project's settings file."""
    if args.transformers_version:
        return "--transformers-version"
    where = config.source.name if config.source is not None else "pyproject.toml"
    return f"transformers-version in {where} [tool.hf-cache-lint]"


def make_context(settings: Settings, args: argparse.Namespace, root: Path, origin: str = "--transformers-version",
                 project: Path | None = None) -> Context:
    """The target (engine/environment/target_plan.py): --transformers-version or pyproject's transformers-version, else the
    transformers installed where the code runs (--interpreter's environment, the active venv, the project's
    .venv, this process's), else the project's requirement, else the newest known. Nothing is run to find it."""
    interpreter = settings.interpreter
    if interpreter and not _which(interpreter):
        raise ConfigError(f"interpreter not found: {interpreter}")
    context = resolve_context(transformers_version=settings.transformers_version, interpreter=interpreter,
                              workspace=root, extra_paths=settings.extra_paths, setting_origin=origin,
                              project=project)
    if interpreter and not settings.transformers_version and installed_transformers(interpreter) is None:
        print(f"hf-cache-lint: note: no transformers installed for {interpreter}; "
              f"checking for {context.describe_target()}", file=sys.stderr)
    return context


@dataclass
class FixRun:
    """What `--fix` (or `--diff`) did: the results left, the files it could not write, how many fixes, and per
    file the text before and after and the codes fixed (for --diff and --show-fixes)."""

    results: list[CheckResult]
    errors: list[FileError] = field(default_factory=list)
    fixed: int = 0
    changes: list[tuple[str, str, str]] = field(default_factory=list)
    codes: list[tuple[str, Counter[tuple[str, str]]]] = field(default_factory=list)


def _fix(sources: list[SourceFile], results: list[CheckResult], settings: Settings, context: Context,
         ignores: list[tuple[str, ...]], unsafe: bool = False, dry_run: bool = False,
         check_again: Callable[[SourceFile, Settings], CheckResult] | None = None) -> FixRun:
    """Fix the files that have a fixable finding; re-check them so the report shows what remains."""
    from hf_cache_lint.cli_support.fixer import fix_file  # the engine: only when fixing

    run = FixRun(list(results))
    for i, (source, result) in enumerate(zip(sources, results, strict=True)):
        if not any(fix.preferred and (unsafe or fix.safe) for f in result.findings for fix in f.fixes):
            continue
        # The file's per-file-ignores are its settings' ignores here: a fix pass must not fix what they hide.
        own = replace(settings, ignore=settings.ignore + ignores[i]) if ignores[i] else settings
        outcome = fix_file(source, own, context, unsafe, dry_run)
        if outcome.error:
            run.errors.append(FileError(source.display, outcome.error))
        if outcome.fixed:
            run.fixed += outcome.fixed
            run.changes.append((source.display, outcome.before, outcome.after))
            if dry_run:
                continue
            run.results[i] = check_again(source, own) if check_again else check_one(source, own, context)
            # What was fixed: the findings before less those left, by code (a fix removes its finding).
            left = Counter((f.code, f.name) for f in run.results[i].findings)
            gone = Counter((f.code, f.name) for f in result.findings) - left
            if gone:
                run.codes.append((source.display, gone))
    return run


def selection(settings: Settings, args: argparse.Namespace) -> Selection:
    """Which files a walk takes: pyproject's exclude settings with the flags on top (as Ruff's)."""
    exclude = args.exclude if getattr(args, "exclude", None) is not None else settings.exclude
    extend = settings.extend_exclude + tuple(getattr(args, "extend_exclude", None) or ())
    force = settings.force_exclude if getattr(args, "force_exclude", None) is None else args.force_exclude
    gitignore = (settings.respect_gitignore if getattr(args, "respect_gitignore", None) is None
                 else args.respect_gitignore)
    return Selection.of(exclude, extend, gitignore, force)


def per_file_ignores(sources: list[SourceFile], settings: Settings, root: Path) -> list[tuple[str, ...]]:
    """For each file, the codes its `per-file-ignores` entries ignore (selection.py)."""
    if not settings.per_file_ignores:
        return [()] * len(sources)
    return [per_file_codes(relative(source.where, root), settings.per_file_ignores) for source in sources]


def _without(result: CheckResult, codes: tuple[str, ...]) -> CheckResult:
    if not codes or not result.findings:
        return result
    return replace(result, findings=tuple(f for f in result.findings if not f.code.startswith(codes)))


def run(args: argparse.Namespace) -> tuple[Report, Discovery, FixRun]:
    paths = args.paths or ["."]
    config = load_config(paths)
    if args.transformers_version:
        check_target(args.transformers_version, "--transformers-version")
    if args.upgrade_to:
        check_version(args.upgrade_to, "--upgrade-to")
    settings = effective_settings(config, args)
    from hf_cache_lint.engine.environment.requirements import project_root

    context = make_context(settings, args, config.root, target_origin(args, config),
                           project_root(Path(paths[0])) or config.root)
    found = discover(paths, selection(settings, args), config.root)
    sources = list(found.files)
    if getattr(args, "show_files", False):
        return build_report([], [], found.errors), found, FixRun([])
    cache = None
    if config.cache and not args.no_cache and not disabled_by_env():
        try:
            cache = ResultCache(cache_folder(config.root, config.cache_dir), settings, context)
        except FolderRefused as exc:  # a project naming a folder outside itself: checked, never written there
            print(f"hf-cache-lint: warning: {exc}", file=sys.stderr)
    from hf_cache_lint.cli_support.progress import progress_for
    from hf_cache_lint.cli_support.target_runs import run_checks

    # The bar counts the first check over the files (the one a plain run makes; a range or --upgrade-to adds
    # checks the bar does not count).
    bar = [progress_for(len(sources), getattr(args, "quiet", False) or getattr(args, "silent", False))]

    def check(files: Sequence[SourceFile], ctx: Context) -> list[CheckResult]:
        progress, bar[0] = bar[0], None
        try:
            return check_files(files, settings, ctx, jobs=args.jobs, cache=cache, progress=progress)
        finally:
            if progress is not None:
                progress.close()

    ignores = per_file_ignores(sources, settings, config.root)
    dry_run = getattr(args, "diff", False)
    runs: list[FixRun] = []

    def fixer(files: list[SourceFile], found_results: list[CheckResult], own: Settings, ctx: Context,
              again: Callable[[SourceFile], CheckResult] | None) -> tuple[list[CheckResult], list[FileError], int]:
        fix_run = _fix(files, found_results, own, ctx, ignores, getattr(args, "unsafe_fixes", False), dry_run,
                       (lambda source, _settings: again(source)) if again is not None else None)
        runs.append(fix_run)
        return fix_run.results, fix_run.errors, fix_run.fixed

    results, fix_errors, fixed = run_checks(sources, settings, context, check, fixer, fix=args.fix or dry_run,
                                            upgrade_to=args.upgrade_to, jobs=args.jobs, cache=cache)
    results = [_without(r, codes) for r, codes in zip(results, ignores, strict=True)]
    fix_run = FixRun(results, list(fix_errors), fixed, [c for r in runs for c in r.changes],
                     [c for r in runs for c in r.codes])
    report = build_report(sources, results, [*found.errors, *fix_errors], fixed=fixed,
                          fixing=args.fix and not dry_run)
    upgrade_text = f"; --upgrade-to {args.upgrade_to}: what gets worse" if args.upgrade_to else ""
    plan = context.plan
    described = plan.describe() if plan is not None and plan.is_range else context.describe_target()
    report = replace(report, target=described + upgrade_text)
    return report, found, fix_run


def run_check(args: argparse.Namespace) -> int:
    """The whole `check` command; returns the exit status."""
    if args.jobs < 0:
        return _error("--jobs must be 0 (one per CPU) or more")
    if getattr(args, "watch", False):
        from hf_cache_lint.cli_support.watch import watch

        return watch(args, check_once)
    return check_once(args)


def check_once(args: argparse.Namespace) -> int:
    """One `check` run: the report printed, the exit status returned."""
    if getattr(args, "show_settings", False):
        from hf_cache_lint.cli_support.output import show_settings

        try:
            return show_settings(args)
        except ConfigError as exc:
            return _error(str(exc))
    if (args.paths == ["-"]) or getattr(args, "stdin_filename", None):
        from hf_cache_lint.cli_support.stdin import check_stdin

        try:
            return check_stdin(args)
        except ConfigError as exc:
            return _error(str(exc))
    try:
        report, found, fix_run = run(args)
    except ConfigError as exc:
        return _error(str(exc))
    if getattr(args, "show_files", False):  # Ruff's --show-files: the files a check would read, one a line
        from hf_cache_lint.cli_support.output import encodable

        for source in found.files:
            sys.stdout.write(encodable(source.display + "\n", sys.stdout))  # a name that is not UTF-8: escaped
        for err in found.errors:
            print(f"{err.path}: error: {err.message}", file=sys.stderr)
        return EXIT_ERROR if found.errors else EXIT_CLEAN
    from hf_cache_lint.cli_support.output import emit

    return emit(args, report, fix_run, nothing_found=not found.files and not found.errors)
