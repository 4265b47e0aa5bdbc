"""What `check` prints and where: the format (with colour on a terminal), --statistics, --diff, --show-fixes,
--quiet/--silent, --output-file; and --show-settings. check_cmd.py decides what to check; this prints it."""

from __future__ import annotations

import argparse
import difflib
import json
import os
import sys
from collections import Counter
from typing import TYPE_CHECKING, TextIO

from hf_cache_lint.cli_support.formats import FORMATS, TERMINAL
from hf_cache_lint.cli_support.report import Report

if TYPE_CHECKING:
    from hf_cache_lint.cli_support.check_cmd import FixRun

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def statistics(report: Report, as_json: bool) -> str:
    """Ruff's --statistics: per rule, how many findings and whether `--fix` fixes them, most frequent first."""
    counts: Counter[tuple[str, str]] = Counter((i.finding.code, i.finding.name) for i in report.items)
    fixable = {(i.finding.code, i.finding.name) for i in report.items if i.fixable}
    rows = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    if as_json:
        return json.dumps([{"code": code, "name": name, "count": n, "fixable": (code, name) in fixable}
                           for (code, name), n in rows], indent=2) + "\n"
    width = max((len(str(n)) for _, n in rows), default=1)
    return "".join(f"{n:>{width}}\t{code}\t{'[*] ' if (code, name) in fixable else ''}{name}\n"
                   for (code, name), n in rows)


def show_fixes(fix_run: FixRun) -> str:
    """Ruff's --show-fixes: what --fix changed, per file and code."""
    if not fix_run.codes:
        return ""
    total = sum(sum(c.values()) for _, c in fix_run.codes)
    lines = [f"Fixed {_plural(total, 'finding')}:"]
    for path, codes in fix_run.codes:
        lines.append(f"- {path}:")
        # The sign Ruff's --show-fixes prints.
        lines.extend(f"    {n} \u00d7 {code} ({name})" for (code, name), n in sorted(codes.items()))
    return "\n".join(lines) + "\n\n"


def diff(fix_run: FixRun) -> str:
    """--diff: a unified diff per file --fix would change (Ruff's layout: `--- path` / `+++ path`)."""
    out = []
    for path, before, after in fix_run.changes:
        out.extend(difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                        fromfile=path, tofile=path))
        if out and not out[-1].endswith("\n"):
            out[-1] += "\n\\ No newline at end of file\n"
        out.append("\n")
    return "".join(out)


def encodable(text: str, stream: TextIO) -> str:
    """`text`, or where the stream's encoding cannot write a character, that character as a backslash escape: a file
    name that is not UTF-8 reaches here as surrogates (Python's reading of its bytes), which a UTF-8 stream refuses
    unless the locale is C (the whole report was lost to an internal error). In JSON the escape reads back as the
    same name (`"caf\\udce9.py"`); other text stays byte for byte."""
    encoding = getattr(stream, "encoding", None) or "utf-8"
    try:
        text.encode(encoding, getattr(stream, "errors", None) or "strict")
    except UnicodeEncodeError:
        return text.encode(encoding, "backslashreplace").decode(encoding)
    except LookupError:
        pass
    return text


def _writer(args: argparse.Namespace) -> tuple[TextIO, bool]:
    """Where the output goes, and whether that is a terminal (for colour)."""
    if getattr(args, "output_file", None):
        folder = os.path.dirname(args.output_file)
        if folder:
            os.makedirs(folder, exist_ok=True)
        return open(args.output_file, "w", encoding="utf-8"), False
    return sys.stdout, sys.stdout.isatty()


def emit(args: argparse.Namespace, report: Report, fix_run: FixRun, nothing_found: bool) -> int:
    """Print the run's output and return the exit status."""
    from hf_cache_lint.cli_support.formats.paint import use_color

    silent = getattr(args, "silent", False)
    quiet = getattr(args, "quiet", False) or silent
    if not quiet:
        if nothing_found:
            print("hf-cache-lint: warning: no Python files found under the given paths", file=sys.stderr)
        for note in report.notes:
            print(f"{note.path}: note: {note.message}", file=sys.stderr)
    if not silent:  # every format also carries them; stderr says it to whoever watches the run
        for err in report.errors:
            print(f"{err.path}: error: {err.message}", file=sys.stderr)
    if getattr(args, "diff", False):
        text = diff(fix_run)
        if not quiet and fix_run.fixed:
            print(f"Would fix {_plural(fix_run.fixed, 'finding')}.", file=sys.stderr)
        status = EXIT_FINDINGS if fix_run.changes or report.errors else EXIT_CLEAN
    else:
        stream_tty = getattr(args, "output_file", None) is None and sys.stdout.isatty()
        color = use_color(getattr(args, "color", "auto"), stream_tty, dict(os.environ))
        if getattr(args, "statistics", False):
            text = statistics(report, args.format in ("json", "json-lines"))
        elif args.format in TERMINAL:
            text = FORMATS[args.format](report, color=color, quiet=quiet)
        else:
            text = FORMATS[args.format](report)
        if getattr(args, "show_fixes", False) and args.format in TERMINAL and not quiet:
            text = show_fixes(fix_run) + text
        status = EXIT_FINDINGS if report.fails else EXIT_CLEAN
    if not silent:
        try:
            stream, _ = _writer(args)
            try:
                stream.write(encodable(text, stream))
                stream.flush()
            finally:
                if stream is not sys.stdout:
                    stream.close()
        except BrokenPipeError:  # `| head`: the reader is gone, the status still matters
            pass
        except OSError as exc:
            print(f"hf-cache-lint: error: cannot write {args.output_file}: {exc.strerror or exc}", file=sys.stderr)
            return EXIT_ERROR
    if args.exit_zero:
        return EXIT_CLEAN
    return status


def show_settings(args: argparse.Namespace) -> int:
    """Ruff's --show-settings: what a check of the first PATH would use, and where each part comes from."""
    from dataclasses import asdict

    from hf_cache_lint.cli_support.check_cmd import effective_settings, make_context, selection
    from hf_cache_lint.pyproject import load_config

    paths = [p for p in args.paths if p != "-"] or ([args.stdin_filename] if args.stdin_filename else ["."])
    config = load_config(paths)
    settings = effective_settings(config, args)
    context = make_context(settings, args, config.root)
    chosen = selection(settings, args)
    lines = [f"Resolved settings for: {os.path.abspath(paths[0])}",
             f"Settings path: {config.source or '(none: defaults)'}",
             f"Project root: {config.root}",
             f"Target transformers: {context.target} ({context.version_source})", ""]
    for name, value in asdict(settings).items():
        lines.append(f"{name} = {json.dumps(value, default=str)}")
    lines += ["", f"excluded names = {json.dumps(sorted(chosen.names))}",
              f"excluded patterns = {json.dumps(list(chosen.exclude.lines) if chosen.exclude else [])}",
              f"respect_gitignore = {json.dumps(chosen.respect_gitignore)}",
              f"force_exclude = {json.dumps(chosen.force_exclude)}",
              f"cache = {json.dumps(config.cache)}", f"cache_dir = {json.dumps(config.cache_dir)}"]
    print("\n".join(lines))
    return EXIT_CLEAN
