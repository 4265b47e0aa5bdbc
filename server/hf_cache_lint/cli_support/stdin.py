"""`check -` (with `--stdin-filename PATH`): the text on stdin checked as if it were PATH, as Ruff does.

PATH names the file in the output, finds the pyproject.toml (its folder, else the current one), and decides the
excludes (with --force-exclude, an excluded PATH is not checked) and per-file-ignores. With --fix the fixed text
goes to stdout and the findings left to stderr (an editor or formatter pipe reads the code back); --diff prints
the diff instead. Nothing is written to disk.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from hf_cache_lint.cli_support.check_cmd import (
    FixRun,
    effective_settings,
    make_context,
    per_file_ignores,
    selection,
)
from hf_cache_lint.cli_support.discovery import SourceFile
from hf_cache_lint.cli_support.report import build_report
from hf_cache_lint.pyproject import load_config

EXIT_CLEAN = 0


def check_stdin(args: argparse.Namespace) -> int:
    from hf_cache_lint.checking.files import check_data
    from hf_cache_lint.cli_support.output import emit
    from hf_cache_lint.engine.text.text import decode_source

    name = args.stdin_filename or "-"
    data = sys.stdin.buffer.read()
    config = load_config([name] if args.stdin_filename else ["."])
    settings = effective_settings(config, args)
    context = make_context(settings, args, config.root)
    source = SourceFile(name, os.path.normpath(name) if args.stdin_filename else name)
    chosen = selection(settings, args)
    rel = os.path.relpath(os.path.abspath(name), config.root).replace(os.sep, "/")
    if chosen.force_exclude and args.stdin_filename and chosen.excludes(rel, False):
        if args.fix:
            sys.stdout.buffer.write(data)  # excluded: the text goes back as it came
        return EXIT_CLEAN
    [codes] = per_file_ignores([source], settings, config.root)
    if codes:
        from dataclasses import replace

        settings = replace(settings, ignore=settings.ignore + codes)
    result = check_data(data, Path(name), settings, context, display=source.display)
    fix_run = FixRun([result])
    if (args.fix or args.diff) and not result.error and not source.is_notebook:
        from hf_cache_lint.cli_support.fixer import fix_cells
        from hf_cache_lint.fixcheck import file_recheck

        text = decode_source(data)
        (new,), fixed = fix_cells([text], file_recheck(source.display, settings, context), path=source.display,
                                  unsafe=args.unsafe_fixes)
        if fixed:
            fix_run.fixed = fixed
            fix_run.changes.append((source.display, text, new))
            data = new.encode("utf-8")
            result = check_data(data, Path(name), settings, context, display=source.display)
        if args.fix and not args.diff:
            sys.stdout.write(new)
            sys.stdout.flush()
            # The code went to stdout: the report goes to stderr.
            args = argparse.Namespace(**{**vars(args), "silent": args.silent})
            report = build_report([source], [result], fixed=fixed, fixing=True, data=data)
            saved, sys.stdout = sys.stdout, sys.stderr
            try:
                return emit(args, report, fix_run, nothing_found=False)
            finally:
                sys.stdout = saved
    report = build_report([source], [result], data=data)
    return emit(args, report, fix_run, nothing_found=False)
