"""The one `Settings` type fed by the CLI, `[tool.hf-cache-lint]` in pyproject and the LSP.

Python uses snake_case; VS Code and LSP initializationOptions use camelCase. The mapping lives
here, once (`from_mapping` accepts either spelling).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from hf_cache_lint.engine.base.findings import Severity

RUN_MODES = ("onType", "onSave")

# Every rule code, written out so that validating a setting does not import the rule registry (and through it
# the engine's analysis: a warm CLI run never loads it). tests/engine/test_settings_codes.py compares it with
# the registry, so a new rule cannot be forgotten here.
KNOWN_CODES = ("HFC001", "HFC002", "HFC003", "HFC004", "HFC005", "HFC006", "HFC007", "HFC008", "HFC009", "HFC010",
               "HFC011", "HFC012", "HFC100")
# The rules off everywhere unless `select` or `extend-select` names them (Rule.default_enabled False): HFC100,
# unused suppressions, opt-in as Ruff's RUF100 is.
OPT_IN = ("HFC100",)
# The keys that hold rule codes or prefixes; `severity`'s keys are whole codes.
CODE_LISTS = ("select", "extend_select", "ignore")


def code_problem(code: str, prefix: bool = True) -> str | None:
    """Why `code` names no rule (None when it does), with a did-you-mean, as Ruff rejects an unknown code.

    A prefix (`HFC`, `HFC00`) is valid when it starts at least one known code; `prefix=False` (severity keys)
    asks for a whole code.
    """
    if code in KNOWN_CODES or (prefix and any(known.startswith(code) for known in KNOWN_CODES) and code):
        return None
    what = "rule code or prefix" if prefix else "rule code"
    close = difflib.get_close_matches(code.upper(), KNOWN_CODES, n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]!r}?" if close else f" (known: {', '.join(KNOWN_CODES)})"
    return f"unknown {what} {code!r}{hint}"


def _checked(codes: tuple[str, ...]) -> tuple[str, ...]:
    for code in codes:
        problem = code_problem(code)
        if problem:
            raise ValueError(problem)
    return codes


@dataclass(frozen=True)
class Settings:
    """What to check and how."""

    select: tuple[str, ...] = ()
    """Rule codes (or prefixes like `HFC00`) to enable; empty means all (but the `quiet` ones)."""
    extend_select: tuple[str, ...] = ()
    """Rule codes (or prefixes) to enable on top of `select`, e.g. the CLI's off-by-default HFC006."""
    ignore: tuple[str, ...] = ()
    """Rule codes (or prefixes) to disable; wins over `select`."""
    severity: Mapping[str, Severity] = field(default_factory=dict)
    """Per-code severity override, e.g. {"HFC003": "warning"}."""
    transformers_version: str | None = None
    """Target transformers version when none is installed in the analysed environment."""
    interpreter: str | None = None
    """Python interpreter of the analysed environment (jedi inference, version detection)."""
    run: str = "onType"
    """`onType` or `onSave` (language server only)."""
    debounce_ms: int = 150
    """Delay after the last edit before diagnostics are computed (language server only)."""
    extra_paths: tuple[str, ...] = ()
    """Extra import roots for cross-module resolution."""
    exclude: tuple[str, ...] | None = None
    """gitignore-style patterns the CLI skips when walking folders; None: Ruff's defaults (`.venv`, `venv`,
    `build`, `dist`, `site-packages`, `node_modules`, caches, ...; cli_support/discovery.py DEFAULT_EXCLUDE),
    which a list replaces, as Ruff's `exclude` does."""
    extend_exclude: tuple[str, ...] = ()
    """Patterns skipped on top of `exclude` (or of the defaults)."""
    per_file_ignores: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """gitignore-style pattern (relative to the project root) -> rule codes or prefixes ignored in those files."""
    force_exclude: bool = False
    """Apply the excludes to paths named on the command line too (pre-commit names every staged file)."""
    respect_gitignore: bool = True
    """Skip what `.gitignore` (inside a git work tree) and `.ignore` files exclude when walking folders."""
    quiet: tuple[str, ...] = field(default=(), metadata={"internal": True})
    """Rule codes off unless `select` or `extend_select` names them (set by the CLI for its off-by-default
    rules, never read from a user's settings; the editor leaves it empty, so they show there)."""

    def enabled(self, code: str) -> bool:
        # Asked for every rule at every check: no generator over an empty tuple (most settings set neither).
        if self.ignore and any(code.startswith(p) for p in self.ignore):
            return False
        if self.extend_select and any(code.startswith(p) for p in self.extend_select):
            return True
        if self.select:
            return any(code.startswith(p) for p in self.select)
        return code not in self.quiet and code not in OPT_IN

    def severity_for(self, code: str, default: Severity) -> Severity:
        return self.severity.get(code, default)

    def merged(self, overrides: Mapping[str, Any]) -> Settings:
        """These settings with the keys present in `overrides` (either spelling) replaced."""
        return replace(self, **_normalise(overrides))

    @staticmethod
    def from_mapping(data: Mapping[str, Any]) -> Settings:
        return Settings().merged(data)


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).replace("-", "_").lower()


_FIELDS = {f.name for f in fields(Settings) if not f.metadata.get("internal")}


def _severity(text: str) -> Severity:
    try:
        return Severity(text.lower())
    except ValueError:
        raise ValueError(f"{text!r} is not a severity (one of {', '.join(s.value for s in Severity)})") from None


def _normalise(data: Mapping[str, Any]) -> dict[str, Any]:
    """Keep known keys, coerce JSON-ish values into the field types, drop None (= not set)."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        name = _snake(key)
        if name not in _FIELDS or value is None:
            continue
        if name in ("force_exclude", "respect_gitignore"):
            if not isinstance(value, bool):
                raise ValueError(f"{key} must be true or false, not {value!r}")
            out[name] = value
        elif name == "per_file_ignores":
            out[name] = {str(glob): _checked(tuple(str(c).strip().upper() for c in ([codes] if isinstance(codes, str)
                                                                                    else codes)))
                         for glob, codes in dict(value).items()}
        elif name in ("select", "extend_select", "ignore", "extra_paths", "exclude", "extend_exclude"):
            items = [value] if isinstance(value, str) else list(value)
            out[name] = tuple(str(v).strip() for v in items if str(v).strip())
            if name in CODE_LISTS:
                out[name] = _checked(tuple(c.upper() for c in out[name]))
        elif name == "severity":
            out[name] = {str(k).upper(): _severity(str(v)) for k, v in dict(value).items()}
            for code in out[name]:
                problem = code_problem(code, prefix=False)
                if problem:
                    raise ValueError(problem)
        elif name == "debounce_ms":
            try:
                out[name] = max(0, int(value))
            except OverflowError:  # 1e999 (JSON's Infinity): no ValueError, so the server's per-key drop missed it
                raise ValueError(f"{key} must be a number of milliseconds, not {value!r}") from None
        elif name == "run":
            if value not in RUN_MODES:
                raise ValueError(f"run must be one of {RUN_MODES}, not {value!r}")
            out[name] = value
        else:
            out[name] = str(value) if value != "" else None
    return out
