"""`[tool.hf-cache-lint]` in the nearest pyproject.toml, read into `Settings`: the one loader of project config.

The CLI (`load_config`, cli_support/check_cmd.py) and the language server (`settings_at`, lsp/settings.py, per
workspace folder) both read it here, with the same keys, validation and messages. What each does with a bad
file differs: the CLI stops with the message (exit 2); the server drops the bad keys, keeps the valid rest and
tells the user (window/showMessage and the log).
"""

from __future__ import annotations

import difflib
import logging
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hf_cache_lint.engine.environment.release_version import Version
from hf_cache_lint.settings import Settings, code_problem

TABLE = "hf-cache-lint"

# The keys a pyproject may set (kebab-case, as TOML tables usually are; snake/camel also accepted). The JSON
# Schema schemas/hf-cache-lint.schema.json describes the same keys (tests/cli/test_schema.py holds them equal).
KNOWN_KEYS = ("select", "extend-select", "ignore", "severity", "transformers-version", "exclude", "extra-paths",
              "interpreter", "cache", "cache-dir", "extend-exclude", "per-file-ignores", "force-exclude",
              "respect-gitignore")
LIST_KEYS = ("select", "extend-select", "ignore", "exclude", "extra-paths", "extend-exclude")
BOOL_KEYS = ("cache", "force-exclude", "respect-gitignore")


class ConfigError(ValueError):
    """The configuration cannot be used; the message says where and why."""


@dataclass(frozen=True)
class Config:
    """Settings from pyproject (defaults when none) and the directory they are relative to."""

    settings: Settings = field(default_factory=Settings)
    root: Path = field(default_factory=Path.cwd)
    source: Path | None = None
    # The CLI's result cache (cli_support/cache.py): `cache = false` turns it off, `cache-dir` moves it.
    cache: bool = True
    cache_dir: str | None = None


def _table(path: Path) -> Mapping[str, Any] | None:
    # Imported here, once a pyproject.toml is found: tomllib (and the datetime it imports) is ~6 ms of a language
    # server's start-up or a CLI run, spent for nothing in a folder without one (tests/lsp/test_startup_imports.py).
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    tool = doc.get("tool")
    table = tool.get(TABLE) if isinstance(tool, dict) else None
    if table is None:
        return None
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.{TABLE}] must be a table")
    return table


def find_config(start: Path) -> tuple[Path, Mapping[str, Any]] | None:
    """The nearest pyproject.toml at or above `start` that has a [tool.hf-cache-lint] table."""
    here = start.resolve()
    if not here.is_dir():
        here = here.parent
    for folder in (here, *here.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            table = _table(candidate)
            if table is not None:
                return candidate, table
    return None


def _norm(key: str) -> str:
    """Any spelling (kebab, snake, camel) -> kebab-case, to compare with KNOWN_KEYS."""
    return re.sub(r"(?<!^)(?=[A-Z])", "-", key).replace("_", "-").lower()


def ignored_interpreter(table: Mapping[str, Any], where: str) -> str | None:
    """The warning for an `interpreter` key, which is read no more: a file in the project must not choose a
    program for hf-cache-lint to run (cloning a repository and opening it would run it). The analysed
    interpreter comes from --interpreter, the editor's settings or the editor's Python extension."""
    if not any(_norm(key) == "interpreter" for key in table):
        return None
    return (f"{where}: `interpreter` in [tool.{TABLE}] is ignored: a project file never chooses the program "
            "hf-cache-lint runs; use --interpreter or the editor's setting")


def _key_problem(key: str, value: Any) -> str | None:
    """What is wrong with one key of the table and its value (None when nothing is)."""
    name = _norm(key)
    if name not in KNOWN_KEYS:
        close = difflib.get_close_matches(name, KNOWN_KEYS, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else f" (known: {', '.join(KNOWN_KEYS)})"
        return f"unknown key {key!r} in [tool.{TABLE}]{hint}"
    if name in LIST_KEYS:
        if not (isinstance(value, str) or (isinstance(value, list) and all(isinstance(v, str) for v in value))):
            return f"{key!r} must be a list of strings"
    elif name in BOOL_KEYS:
        if not isinstance(value, bool):
            return f"{key!r} must be true or false"
    elif name == "severity":
        if not isinstance(value, dict):
            return "'severity' must be a table like {HFC003 = \"warning\"}"
    elif name == "per-file-ignores":
        if not (isinstance(value, dict) and all(isinstance(v, list) and all(isinstance(c, str) for c in v)
                                                for v in value.values())):
            return f"{key!r} must be a table of glob = [codes], like {{\"tests/*\" = [\"HFC001\"]}}"
        for codes in value.values():
            for code in codes:
                problem = code_problem(code.upper())
                if problem:
                    return f"{key}: {problem}"
    elif not isinstance(value, str):
        return f"{key!r} must be a string"
    try:
        Settings.from_mapping({key: value})
    except (ValueError, TypeError) as exc:
        return f"{key!r}: {exc}"
    if name == "transformers-version":  # a version (`4.57.6`) or a range of releases (`>=4.45,<5`)
        from hf_cache_lint.engine.environment.target_plan import parse_spec

        try:
            parse_spec(value)
        except ValueError as exc:
            return str(exc)
    return None


def settings_from_table(table: Mapping[str, Any], where: str, problems: list[str] | None = None) -> Settings:
    """Validate the table's keys and values and build Settings (errors name the key); `interpreter` is
    dropped (see ignored_interpreter).

    Raises ConfigError on the first bad key, unless `problems` is given: then each bad key is dropped, its
    message (`where: ...`) appended there, and the valid rest kept (the language server, which cannot stop).
    """
    table = {k: v for k, v in table.items() if _norm(k) != "interpreter"}
    good: dict[str, Any] = {}
    for key, value in table.items():
        problem = _key_problem(key, value)
        if problem is None:
            good[key] = value
        elif problems is None:
            raise ConfigError(f"{where}: {problem}")
        else:
            problems.append(f"{where}: {problem}")
    return Settings.from_mapping(good)


def check_code(code: str, where: str) -> None:
    """A rule code or a prefix of one (`HFC`, `HFC00`, `HFC001`); else ConfigError with a did-you-mean."""
    problem = code_problem(code.upper())
    if problem:
        raise ConfigError(f"{where}: {problem}")


def check_version(text: str, where: str) -> None:
    try:
        Version.parse(text)
    except ValueError as exc:
        raise ConfigError(f"{where}: {exc}") from None


def check_target(text: str, where: str) -> None:
    """A target transformers version (`4.57.6`) or range of releases (`>=4.45,<5`, engine/environment/target_plan.py)."""
    from hf_cache_lint.engine.environment.target_plan import parse_spec

    try:
        parse_spec(text)
    except ValueError as exc:
        raise ConfigError(f"{where}: {exc}") from None


def settings_at(start: Path) -> tuple[Settings, tuple[str, ...]]:
    """The settings of the nearest [tool.hf-cache-lint] at or above `start` (defaults when none), and the
    warnings about it (an ignored `interpreter` key, each invalid key: dropped, the valid rest kept). Raises
    ConfigError (and OSError) as `find_config` does, for a file that cannot be read as TOML."""
    found = find_config(start)
    if not found:
        return Settings(), ()
    note = ignored_interpreter(found[1], str(found[0]))
    problems: list[str] = []
    settings = settings_from_table(found[1], str(found[0]), problems)
    return settings, ((note,) if note else ()) + tuple(problems)


def load_config(paths: Sequence[str]) -> Config:
    """The configuration for a run over `paths`: found above the first path, else the defaults."""
    found = find_config(Path(paths[0]) if paths else Path.cwd())
    if found is None:
        return Config()
    path, table = found
    note = ignored_interpreter(table, str(path))
    if note:
        logging.getLogger("hf_cache_lint").warning("%s", note)
    options = {_norm(k): v for k, v in table.items()}
    return Config(settings_from_table(table, str(path)), path.parent, path,
                  cache=options.get("cache", True), cache_dir=options.get("cache-dir"))
