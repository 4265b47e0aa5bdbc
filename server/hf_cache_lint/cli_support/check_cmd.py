"""`hf-cache-lint check`: configuration, discovery, the check (and fix) run, output and exit status.

A run answered from the result cache imports no more than it uses: the rules, the engine's analysis and
parso load only when a file misses (runner.py), the chosen format alone (formats/__init__.py), --upgrade-to's
and --fix's modules only with those flags (tests/cli/test_cache.py checks what a warm run imports).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from hf_cache_lint.cli_support.cache import FolderRefused, ResultCache, cache_folder, disabled_by_env
from hf_cache_lint.cli_support.discovery import Discovery, SourceFile, discover
from hf_cache_lint.cli_support.formats import FORMATS
from hf_cache_lint.cli_support.report import Report, build_report
from hf_cache_lint.cli_support.runner import check_files, check_one
from hf_cache_lint.engine.context import Context, installed_transformers, resolve_context
from hf_cache_lint.engine.findings import CheckResult, FileError
from hf_cache_lint.pyproject import Config, ConfigError, check_target, check_version, load_config
from hf_cache_lint.settings import Settings

if TYPE_CHECKING:
    from hf_cache_lint.cli_support.gitignore import PathSpec

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
    """The target (engine/target_plan.py): --transformers-version or pyproject's transformers-version, else the
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


def _fix(sources: list[SourceFile], results: list[CheckResult], settings: Settings,
         context: Context, check_again: Callable[[SourceFile], CheckResult] | None = None,
         ) -> tuple[list[CheckResult], list[FileError], int]:
    """Fix the files that have a fixable finding; re-check them so the report shows what remains."""
    from hf_cache_lint.cli_support.fixer import fix_file  # the engine: only when fixing

    errors: list[FileError] = []
    fixed = 0
    out = list(results)
    for i, (source, result) in enumerate(zip(sources, results, strict=True)):
        if not any(fix.preferred for f in result.findings for fix in f.fixes):
            continue
        outcome = fix_file(source, settings, context)
        if outcome.error:
            errors.append(FileError(source.display, outcome.error))
        if outcome.fixed:
            fixed += outcome.fixed
            out[i] = check_again(source) if check_again else check_one(source, settings, context)
    return out, errors, fixed


def _exclude(patterns: tuple[str, ...]) -> PathSpec | None:
    if not patterns:
        return None
    from hf_cache_lint.cli_support.gitignore import PathSpec

    return PathSpec.of(patterns)


def run(args: argparse.Namespace) -> tuple[Report, Discovery]:
    paths = args.paths or ["."]
    config = load_config(paths)
    if args.transformers_version:
        check_target(args.transformers_version, "--transformers-version")
    if args.upgrade_to:
        check_version(args.upgrade_to, "--upgrade-to")
    settings = effective_settings(config, args)
    from hf_cache_lint.engine.requirements import project_root

    context = make_context(settings, args, config.root, target_origin(args, config),
                           project_root(Path(paths[0])) or config.root)
    found = discover(paths, _exclude(settings.exclude), config.root)
    sources = list(found.files)
    cache = None
    if config.cache and not args.no_cache and not disabled_by_env():
        try:
            cache = ResultCache(cache_folder(config.root, config.cache_dir), settings, context)
        except FolderRefused as exc:  # a project naming a folder outside itself: checked, never written there
            print(f"hf-cache-lint: warning: {exc}", file=sys.stderr)

    def check(files: Sequence[SourceFile], ctx: Context) -> list[CheckResult]:
        return check_files(files, settings, ctx, jobs=args.jobs, cache=cache)

    from hf_cache_lint.cli_support.target_runs import run_checks

    results, fix_errors, fixed = run_checks(sources, settings, context, check, _fix, fix=args.fix,
                                            upgrade_to=args.upgrade_to, jobs=args.jobs, cache=cache)
    report = build_report(sources, results, [*found.errors, *fix_errors], fixed=fixed, fixing=args.fix)
    upgrade_text = f"; --upgrade-to {args.upgrade_to}: what gets worse" if args.upgrade_to else ""
    plan = context.plan
    described = plan.describe() if plan is not None and plan.is_range else context.describe_target()
    report = replace(report, target=described + upgrade_text)
    return report, found


def run_check(args: argparse.Namespace) -> int:
    """The whole `check` command; returns the exit status."""
    if args.jobs < 0:
        return _error("--jobs must be 0 (one per CPU) or more")
    try:
        report, found = run(args)
    except ConfigError as exc:
        return _error(str(exc))
    if not found.files and not found.errors:
        print("hf-cache-lint: warning: no Python files found under the given paths", file=sys.stderr)
    for note in report.notes:
        print(f"{note.path}: note: {note.message}", file=sys.stderr)
    for err in report.errors:
        print(f"{err.path}: error: {err.message}", file=sys.stderr)
    try:
        sys.stdout.write(FORMATS[args.format](report))
        sys.stdout.flush()
    except BrokenPipeError:  # `| head`: the reader is gone, the status still matters
        pass
    if args.exit_zero:
        return EXIT_CLEAN
    return EXIT_FINDINGS if report.fails else EXIT_CLEAN
