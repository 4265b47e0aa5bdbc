"""Which transformers release(s) a check is for, and why: the one resolver the CLI and the language server use.

In order (the first that answers wins):
1. an explicit setting (`--transformers-version`, `transformersVersion`, pyproject's `transformers-version`):
   one version (`4.57.6`) or a PEP 440 range (`>=4.45,<5`);
2. the transformers installed where the code will run (engine/environment/environments.py, read from files);
3. the project's declared requirement (engine/environment/requirements.py): a lock file's pin, else the range it admits;
4. the newest release this tool knows.

A range is checked at several releases (`releases_to_check`): the oldest and newest admitted and every behaviour
change between them, so that a line failing on some admitted release is found.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from hf_cache_lint.engine.environment import environments, requirements
from hf_cache_lint.engine.environment.api_changes import BEHAVIOUR_CHANGES
from hf_cache_lint.engine.environment.release_version import NEWEST, Version
from hf_cache_lint.engine.environment.target import Target

if TYPE_CHECKING:
    from packaging.specifiers import SpecifierSet

# packaging is imported where a range is read (a version such as "4.57.6" needs none of it): a warm run that is
# told its target by a setting or an installed dist-info starts without it.

# Releases known besides the behaviour changes (engine/environment/api_changes.py BEHAVIOUR_CHANGES): the ones the oracle
# checks. The newest admitted of a range bounded below 5 is then 4.57.6, the last 4.x, not 4.57.0.
_ALSO_KNOWN = ("4.57.6",)

# Where each kind of source comes from, as `Context.version_source` names it (hovers, the editor status item).
KINDS = ("setting", "environment", "requirement", "default")


@dataclass(frozen=True)
class TargetPlan:
    """The release(s) to check at, the requirement they stand for and where it came from."""

    spec: str  # "4.57.6" or a specifier such as ">=4.45,<6"
    origin: str  # "installed in .venv", "pyproject.toml [project] dependencies", "--transformers-version", ...
    kind: str  # one of KINDS
    releases: tuple[Target, ...]

    @property
    def primary(self) -> Target:
        """The one target of a single-target check; the newest admitted release of a range."""
        return self.releases[-1]

    @property
    def is_range(self) -> bool:
        return len(self.releases) > 1

    def describe(self) -> str:
        """`transformers 4.57.6 (installed in .venv)`; `transformers >=4.45,<6 (pyproject.toml): checked at ...`."""
        head = f"transformers {self.spec} ({self.origin})"
        if self.is_range or str(self.primary) != self.spec:
            head += f": checked at {', '.join(str(t) for t in self.releases)}"
        return head

    def admits(self) -> str:
        """`transformers>=4.45,<6` in pyproject.toml, as a finding's range note names it."""
        return f"`transformers{self.spec}` ({self.origin})" if self.is_range else f"transformers {self.spec}"


def _is_version(text: str) -> bool:
    from packaging.version import InvalidVersion
    from packaging.version import Version as PVersion

    try:
        PVersion(text)
    except (InvalidVersion, ValueError):  # ValueError: a number past int()'s 4,300 digits (no release has one)
        return False
    return True


def parse_spec(text: str) -> SpecifierSet | Version:
    """A target as written: a version (`4.57.6`, `v5.0`) or a PEP 440 specifier (`>=4.45,<5`, `==4.57.6`).
    Raises ValueError with a message fit for the user."""
    stripped = text.strip()
    if re.search(r"\d{65}", stripped):  # no release has such a number; past 4,300 digits int() raises ValueError
        raise ValueError(f"not a transformers version or version range: {text[:40]!r}...")
    if stripped and (stripped[0].isdigit() or stripped[0] in "vV"):
        return Version.parse(stripped)
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    try:
        spec = SpecifierSet(stripped)
    except InvalidSpecifier:
        raise ValueError(f"not a transformers version or version range: {text!r}") from None
    if not stripped:
        raise ValueError("an empty transformers version")
    return spec


def _pinned(spec: SpecifierSet) -> str | None:
    """The one version an `==X.Y.Z` (or `===`) specifier admits."""
    items = list(spec)
    if len(items) == 1 and items[0].operator in ("==", "===") and "*" not in items[0].version:
        return items[0].version
    return None


def behaviour_changes(lo: Version, hi: Version) -> tuple[Version, ...]:
    """The releases after `lo` up to `hi` at which something the rules know changes: the engine's own
    BEHAVIOUR_CHANGES and every release where an answer `Target` reads from the release table changes
    (engine/environment/release_steps.py `table_changes`, the same steps `--upgrade-to` takes)."""
    from hf_cache_lint.engine.environment.release_steps import table_changes

    points = {Version.parse(c) for c in BEHAVIOUR_CHANGES} | set(table_changes())
    return tuple(sorted(v for v in points if lo < v <= hi))


def known_releases() -> tuple[Version, ...]:
    """Every release this tool can name (the behaviour changes, the oracle's releases, the newest)."""
    return tuple(sorted({Version.parse(v) for v in (*BEHAVIOUR_CHANGES, *_ALSO_KNOWN, NEWEST)}))


def _released(bound: Version) -> Version:
    """A range's lower bound as a release the release table holds: itself, else the first one above it (`>=4.52`
    admits 4.52.1 first: 4.52.0 is not on the package index), so that no release the table lacks is named as
    checked. A bound past the table's newest stays as written."""
    from hf_cache_lint.engine.environment import releases

    return next((r for r in releases.known_releases() if r >= bound), bound)


def releases_to_check(spec: SpecifierSet) -> tuple[Version, ...]:
    """The releases a range is checked at: its oldest and newest admitted and each behaviour change between.

    The oldest admitted is the range's own lower bound when it names one (`>=4.45` admits 4.45.0; a bound the
    release table holds no release of, its next release: `>=4.57` admits 4.57.1), else the oldest known release it
    admits; the newest is the newest known it admits. Empty when it admits none."""
    bounds = [s.version for s in spec if s.operator in (">=", "==", "~=", "===") and "*" not in s.version]
    candidates = {*known_releases(), *(_released(Version.parse(b)) for b in bounds if _is_version(b))}
    admitted = sorted(v for v in candidates if spec.contains(str(v), prereleases=True))
    if not admitted:
        return ()
    lo, hi = admitted[0], admitted[-1]
    known = (v for v in known_releases() if lo < v < hi and spec.contains(str(v), prereleases=True))
    return tuple(sorted({lo, hi, *(v for v in behaviour_changes(lo, hi) if spec.contains(str(v))), *known}))


_OPERATOR_ORDER = (">=", ">", "~=", "==", "===", "!=", "<=", "<")


def show(spec: SpecifierSet) -> str:
    """`>=4.45,<6`: a specifier lower bounds first (packaging's own `str` sorts them as text: `<6,>=4.45`)."""
    return ",".join(str(s) for s in sorted(spec, key=lambda s: (_OPERATOR_ORDER.index(s.operator)
                                                                 if s.operator in _OPERATOR_ORDER else 9,
                                                                 s.version)))


def plan_for(text: str, origin: str, kind: str) -> TargetPlan:
    """The plan for a target written as a version or a specifier (raises ValueError when it is neither)."""
    parsed = parse_spec(text)
    if isinstance(parsed, Version):
        return TargetPlan(str(parsed), origin, kind, (Target(parsed),))
    pinned = _pinned(parsed)
    if pinned is not None:
        return TargetPlan(pinned, origin, kind, (Target.of(pinned),))
    releases = releases_to_check(parsed)
    if not releases:  # nothing known is admitted (`<4.0`): the newest known, said so
        return TargetPlan(show(parsed), f"{origin}; admits no release this tool knows", kind, (Target.of(None),))
    return TargetPlan(show(parsed), origin, kind, tuple(Target(v) for v in releases))


def _installed_plan(found: environments.Installed) -> TargetPlan | None:
    try:
        return plan_for(found.version, found.where, "environment")
    except ValueError:
        return None


def resolve(*, setting: str | None = None, setting_origin: str = "the transformersVersion setting",
            interpreter: str | None = None, environ: Mapping[str, str] | None = None, root: Path | None = None,
            own_environment: bool = True) -> TargetPlan:
    """The target, from the first source that answers (module docstring). Reads files only; runs nothing.

    `root`: the project folder (its venv folders and requirement files are read); `environ`: the environment
    variables (`VIRTUAL_ENV`, `CONDA_PREFIX`), os.environ when None; `own_environment`: whether the environment
    hf-cache-lint runs in counts as the user's (it does for the CLI and a server started from the user's env)."""
    if setting:
        return plan_for(setting, setting_origin, "setting")
    env = os.environ if environ is None else environ
    found = environments.find_installed(interpreter=interpreter, environ=env, root=root, own=own_environment)
    if found is not None and (plan := _installed_plan(found)) is not None:
        return plan
    if root is not None:
        declared = requirements.declared(root)
        if declared is not None and str(declared.specifier):
            return plan_for(str(declared.specifier), declared.where, "requirement")
        if declared is not None:  # `transformers` with no version: what a fresh install gets, the newest
            return TargetPlan(NEWEST, f"{declared.where} names no version: the newest", "requirement",
                              (Target.of(None),))
    return TargetPlan(NEWEST, "the newest release hf-cache-lint knows", "default", (Target.of(None),))
