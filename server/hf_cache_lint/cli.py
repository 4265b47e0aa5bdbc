"""`hf-cache-lint check | serve | rule`: the command line (parsing here, the work in cli_support)."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Callable, Sequence

from hf_cache_lint import __version__

# The names only: the formats (and through them the engine) load when `check` runs, so `--version`
# and `serve` start fast. cli_support.formats.FORMATS maps the same names.
FORMAT_NAMES = ("full", "concise", "json", "json-lines", "sarif", "github", "gitlab", "text")

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2

CHECK_EPILOG = """\
exit status:
  0  no Error or Warning finding (Information and Hint findings never fail a run), or --exit-zero
  1  an Error or Warning finding remains, or a file could not be checked
  2  usage error, invalid configuration or internal error

A file that cannot be checked (unreadable, not text, broken notebook JSON, too deeply
nested) is reported on stderr as `path: error: message` and counts like a finding for the
exit status (as Ruff's E902): the other files are still checked.

Configuration comes from [tool.hf-cache-lint] in the nearest pyproject.toml at or above the
first PATH. Flags win: --select replaces the configured select and ignore lists (then
--ignore applies); --ignore alone adds to the configured ignore list; --extend-select adds
to the configured extend-select list.

HFC006 (deprecated-cache-usage: code that works but warns at the target version) is off by
default here: turn it on with --select HFC006, --extend-select HFC006 or extend-select in
pyproject. Its findings are hints: they are shown and counted but never fail the run.

Target transformers version (printed above the summary): --transformers-version or pyproject's
transformers-version (a version or a range such as ">=4.45,<5"); else the transformers installed for
--interpreter, in VIRTUAL_ENV, CONDA_PREFIX, the project's .venv/venv or hf-cache-lint's own environment
(read from dist-info, nothing started); else the project's requirement (lock files, pyproject.toml,
setup.cfg, setup.py, requirements*.txt); else the newest known. A range is checked at each release in it
where behaviour changes. The only program a check runs is --interpreter (for jedi's inference): an `interpreter` key
in pyproject.toml is ignored with a warning. Files are read only under the project root (the
pyproject.toml folder, else the current folder), the given paths and the Hugging Face cache.

Notebooks (.ipynb): the code cells are checked as one module in cell order; rows are relative
to the cell, and the cell is its 1-based position among all cells (text: `nb.ipynb:cell 3:2:5`,
json: "cell": 3; sarif: the line of the .ipynb file holding the cell's line, the cell and its
region as properties, no fixes; github and gitlab: that line of the file, the cell in the title).
--fix rewrites only the changed code cells' sources and keeps the rest of the JSON.

Fixes are safe or unsafe (Ruff's applicability): --fix applies the safe ones, --unsafe-fixes the
others too (they may change behaviour beyond the finding; each rule's docs say which, under Fix
safety). Suppress a finding with `# noqa: HFC001` or `# hf-cache-lint: ignore[HFC001]` on its
line, or `# hf-cache-lint: noqa: HFC001` anywhere for the whole file; --extend-select HFC100
reports the suppressions that silence nothing.
"""


def _codes(text: str) -> tuple[str, ...]:
    from hf_cache_lint.pyproject import ConfigError, check_code

    codes = tuple(c.strip().upper() for c in text.split(",") if c.strip())
    try:
        for c in codes:
            check_code(c, "argument")
    except ConfigError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("argument: ")) from None
    return codes


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="hf-cache-lint", description="Find transformers generate() cache conflicts before they raise.")
    parser.add_argument("--version", action="version", version=f"hf-cache-lint {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="show tracebacks of internal errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    check = sub.add_parser("check", help="check files and folders", epilog=CHECK_EPILOG,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
    check.add_argument("paths", nargs="*", metavar="PATH",
                       help="files or folders (recursive: .py and .ipynb); default: .")
    check.add_argument("--output-format", "--format", dest="format", choices=FORMAT_NAMES, default="full",
                       metavar="FORMAT", help=f"output format: {', '.join(FORMAT_NAMES[:-1])} (default: full; "
                                              "`text` is the old name of full, --format of --output-format)")
    check.add_argument("--transformers-version", metavar="X.Y.Z",
                       help="target transformers version or range (\">=4.45,<5\"); wins over the installed one")
    check.add_argument("--interpreter", metavar="PY",
                       help="Python whose environment is analysed (its transformers, read from its files, is the "
                            "target unless one is set)")
    check.add_argument("--select", type=_codes, metavar="CODES", help="comma-separated rule codes or prefixes")
    check.add_argument("--extend-select", type=_codes, metavar="CODES",
                       help="rule codes or prefixes to enable on top of the selection (e.g. HFC006, off by default)")
    check.add_argument("--ignore", type=_codes, metavar="CODES", help="comma-separated rule codes or prefixes")
    check.add_argument("--fix", action="store_true", help="apply the preferred fix of each finding, if it is safe")
    check.add_argument("--unsafe-fixes", action="store_true",
                       help="also apply (with --fix, --diff) the unsafe ones: they may change behaviour beyond the "
                            "finding (each rule's docs say when, under Fix safety)")
    check.add_argument("--diff", action="store_true",
                       help="print the changes --fix would make as a unified diff, write nothing (exit 1 if any)")
    check.add_argument("--show-fixes", action="store_true", help="with --fix, list what was fixed, per file and code")
    check.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    check.add_argument("--jobs", type=int, default=0, metavar="N",
                       help="at most N worker processes (default: one per CPU not busy all the time; fewer, or "
                            "none, when the files to check are few or small; 1: no pool)")
    check.add_argument("--upgrade-to", metavar="X.Y.Z",
                       help="report only what is new at transformers X.Y.Z compared with the current target, "
                            "with the release that brings each finding")
    check.add_argument("--no-cache", action="store_true",
                       help="neither read nor write the result cache (.hf_cache_lint_cache/)")
    check.add_argument("-v", "--verbose", action="store_true", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    _file_selection(check)
    _output(check)

    serve = sub.add_parser("serve", help="run the language server (stdio unless --tcp)")
    serve.add_argument("--tcp", action="store_true", help="listen on TCP instead of stdio")
    serve.add_argument("--host", default="127.0.0.1", help="TCP host (default: 127.0.0.1)")
    serve.add_argument("--port", type=int, default=2087, help="TCP port (default: 2087)")

    rule = sub.add_parser("rule", help="show a rule's documentation")
    group = rule.add_mutually_exclusive_group(required=True)
    group.add_argument("code", nargs="?", metavar="CODE", help="a rule code, e.g. HFC001")
    group.add_argument("--all", action="store_true", help="list every rule's code, name and summary")
    return parser


def _patterns(text: str) -> tuple[str, ...]:
    return tuple(p.strip() for p in text.split(",") if p.strip())


def _file_selection(check: argparse.ArgumentParser) -> None:
    """Ruff's file-selection flags; each wins over its pyproject setting (None: not given)."""
    group = check.add_argument_group("file selection")
    group.add_argument("--exclude", type=_patterns, metavar="PATTERNS",
                       help="comma-separated gitignore-style patterns to skip, replacing the configured and "
                            "default ones (.venv, venv, build, dist, site-packages, caches, ...)")
    group.add_argument("--extend-exclude", type=_patterns, metavar="PATTERNS",
                       help="patterns to skip on top of the excludes")
    group.add_argument("--force-exclude", action=argparse.BooleanOptionalAction, default=None,
                       help="apply the excludes to paths named on the command line too (as pre-commit runs it)")
    group.add_argument("--respect-gitignore", action=argparse.BooleanOptionalAction, default=None,
                       help="skip what .gitignore (in a git work tree) and .ignore files exclude (default: on)")
    group.add_argument("--show-files", action="store_true",
                       help="print the files a check would read, one a line, and exit")


def _output(check: argparse.ArgumentParser) -> None:
    """Ruff's output and run flags."""
    group = check.add_argument_group("output")
    group.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                       help="colour the full and concise formats: auto (default) on a terminal unless NO_COLOR is set")
    group.add_argument("--statistics", action="store_true", help="print a count of findings per rule instead")
    group.add_argument("-q", "--quiet", action="store_true", help="print the findings, nothing else (no summary)")
    group.add_argument("-s", "--silent", action="store_true", help="print nothing: the exit status says it all")
    group.add_argument("-o", "--output-file", metavar="PATH", help="write the output to PATH instead of stdout")
    group.add_argument("--show-settings", action="store_true",
                       help="print the settings a check of PATH would use (pyproject, flags, target) and exit")
    group.add_argument("--stdin-filename", metavar="PATH",
                       help="with PATH `-` (the text on stdin): the file name to report, configure and exclude by")
    group.add_argument("-w", "--watch", action="store_true",
                       help="check again whenever a checked file changes (polls once a second; Ctrl-C stops)")


class _OneLine(logging.Formatter):
    """Log records as `hf-cache-lint: level: message: Error: detail`, tracebacks only when verbose."""

    def __init__(self, verbose: bool) -> None:
        super().__init__("hf-cache-lint: %(levelname)s: %(message)s")
        self.verbose = verbose

    def format(self, record: logging.LogRecord) -> str:
        if record.exc_info and not self.verbose:
            exc = record.exc_info[1]
            record = logging.makeLogRecord({**record.__dict__, "exc_info": None, "exc_text": None,
                                            "msg": f"{record.getMessage()}: {type(exc).__name__}: {exc}",
                                            "args": ()})
        return super().format(record).replace("hf-cache-lint: ERROR", "hf-cache-lint: error").replace(
            "hf-cache-lint: WARNING", "hf-cache-lint: warning")


def _setup_logging(verbose: bool) -> Callable[[], None]:
    """Send the package's log records to stderr as one line each; returns how to undo it.

    Undoing matters to in-process callers (tests, the language server): the logger is shared.
    """
    log = logging.getLogger("hf_cache_lint")
    saved = (log.level, log.propagate)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_OneLine(verbose))
    log.addHandler(handler)
    log.setLevel(logging.DEBUG if verbose else logging.WARNING)
    log.propagate = False

    def undo() -> None:
        log.removeHandler(handler)
        log.setLevel(saved[0])
        log.propagate = saved[1]

    return undo


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI and return its exit status (the console script exits with it)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: 0 after --help/--version, 2 on a usage error
        return int(exc.code or 0) if not isinstance(exc.code, str) else EXIT_ERROR
    undo_logging = _setup_logging(args.verbose)
    try:
        if args.command == "check":
            if argv is None:
                # A process that runs one check: dataclasses' methods from this front end's file of their code
                # (class_code.py; ~560 texts compiled at every run before, ~40 ms of CPU), from before the first
                # import that defines one to the end of the run. Not for in-process callers (tests), whose
                # dataclasses it would serve too.
                from pathlib import Path

                from hf_cache_lint.class_code import class_code, code_file

                with class_code(code_file(Path(__file__).resolve().parent / "cli_support")):
                    return _check(args, freeze=True)
            return _check(args, freeze=False)
        if args.command == "serve":
            return _serve(args)
        return _rule(args)
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # never a bare traceback: say what failed, exit 2
        logging.getLogger("hf_cache_lint").debug("internal error", exc_info=True)
        print(f"hf-cache-lint: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return EXIT_ERROR
    finally:
        undo_logging()


def _check(args: argparse.Namespace, freeze: bool) -> int:
    from hf_cache_lint.cli_support.check_cmd import run_check

    if freeze:
        # A process that runs one check: what the imports made is never garbage, so it is taken out of the
        # collector's sight, whose passes then walk only what the run makes (~4% of a run answered from the
        # cache). Not for in-process callers (tests), whose later garbage it would keep.
        import gc

        gc.freeze()
    return run_check(args)


def _serve(args: argparse.Namespace) -> int:
    from hf_cache_lint.lsp.startup import deferred_old_collections

    with deferred_old_collections():  # from before lsprotocol's import (lsp/startup.py)
        return _start_server(args)


def _start_server(args: argparse.Namespace) -> int:
    try:
        from hf_cache_lint.lsp.server import start
    except ImportError as exc:
        missing = (exc.name or "").split(".")[0]
        if missing in ("pygls", "lsprotocol"):
            # Both are required dependencies, so this is a broken or partial install (e.g. --no-deps).
            print(f"hf-cache-lint: error: the language server needs {missing}, a dependency missing here: "
                  "pip install --force-reinstall hf-cache-lint", file=sys.stderr)
        else:
            print(f"hf-cache-lint: error: cannot load the language server: {exc}", file=sys.stderr)
        return EXIT_ERROR
    start(tcp=args.tcp, host=args.host, port=args.port)
    return EXIT_CLEAN


def _rule(args: argparse.Namespace) -> int:
    from hf_cache_lint.rules import ALL_RULES, BY_CODE

    if args.all:
        width = max((len(r.name) for r in ALL_RULES), default=0)
        for r in ALL_RULES:
            print(f"{r.code}  {r.name.ljust(width)}  {r.summary}")
        return EXIT_CLEAN
    rule = BY_CODE.get(args.code.strip().upper())
    if rule is None:
        print(f"hf-cache-lint: error: unknown rule {args.code!r} (known: {', '.join(BY_CODE)})", file=sys.stderr)
        return EXIT_ERROR
    print(rule.full_docs(), end="")
    return EXIT_CLEAN
