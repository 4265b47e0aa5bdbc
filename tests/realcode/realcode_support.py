"""The real-code silence test's machinery: the pinned packages, one CLI run per package and version, and
what is expected of the results (see test_realcode.py).

Each package's unpacked wheel is checked the way its maintainers would check their repository: the CLI
(`python -m hf_cache_lint check --format json`) run in the package's folder, so that folder is the
workspace (cross-module imports resolve inside it). Runs go one per CPU at a time, largest first, each a
separate process with a capped address space, so a runaway analysis fails its run instead of the machine.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path

import pytest

from hf_cache_lint.engine.text.prefilter import might_matter
from hf_cache_lint.rules.base import CHECKED_VERSIONS

ROOT = Path(__file__).resolve().parents[2]
PACKAGES_TSV = Path(__file__).with_name("packages.tsv")
DEFAULT_DIR = ROOT / ".cache" / "realcode"
VERSIONS: tuple[str, ...] = CHECKED_VERSIONS
FAILING = ("error", "warning")
# Words of files "about" generate and caches (the measure the issue counts in), wider than the prefilter.
TOPIC_WORDS = ("generate", "past_key_values", "cache_implementation", "cache_params", "generation_config")
# One CLI process's address space: far above what a healthy check of one package needs (< 1 GiB).
MEMORY_CAP = 4 * 2**30
RUN_TIMEOUT = 900.0


def realcode_dir() -> Path:
    return Path(os.environ.get("REALCODE_DIR") or DEFAULT_DIR)


@dataclass(frozen=True)
class Package:
    name: str
    version: str
    sha256: str

    @property
    def id(self) -> str:
        return f"{self.name}-{self.version}"


def packages(listing: Path = PACKAGES_TSV) -> tuple[Package, ...]:
    rows = (line.split("\t") for line in listing.read_text().splitlines()
            if line.strip() and not line.startswith("#"))
    return tuple(Package(r[0], r[1], r[2]) for r in rows)


def setup_missing(base: Path, pkgs: Sequence[Package]) -> str | None:
    """Why the set-up's output cannot be used (None when it can)."""
    stamp = base / "stamp"
    if not stamp.is_file():
        return f"{stamp} is missing: run scripts/setup-realcode.sh"
    if stamp.read_text().strip() != hashlib.sha256(PACKAGES_TSV.read_bytes()).hexdigest():
        return f"{base}/src was unpacked from another packages.tsv: run scripts/setup-realcode.sh"
    absent = [p.id for p in pkgs if not (base / "src" / p.id).is_dir()]
    return f"not unpacked: {', '.join(absent)}: run scripts/setup-realcode.sh" if absent else None


@dataclass(frozen=True)
class Finding:
    """One finding as the JSON output gives it (path relative to the package folder)."""

    package: str
    path: str
    line: int
    code: str
    severity: str
    message: str

    def key(self) -> tuple[str, str, int, str]:
        return (self.package, self.path, self.line, self.code)


@dataclass(frozen=True)
class Run:
    package: str
    version: str
    files: int  # .py/.ipynb files given to the CLI
    topical: int  # of those, files that mention generate or caches (TOPIC_WORDS)
    prefiltered: int  # of those, files the engine's prefilter lets through to a parse
    exit_code: int
    findings: tuple[Finding, ...]
    errors: tuple[str, ...]  # stderr lines that report an error (internal error, a file not checked)
    notes: tuple[str, ...]  # other stderr lines (e.g. a file analysed only in part)
    seconds: float

    def failing(self) -> list[Finding]:
        return [f for f in self.findings if f.severity in FAILING]


@dataclass(frozen=True)
class Target:
    """What to check for one package: its folder and its files (some may be left to a separate test)."""

    package: str
    folder: Path
    files: tuple[str, ...]
    topical: int = 0
    prefiltered: int = 0
    weight: int = field(default=0, compare=False)  # bytes the prefilter lets through: the scheduling order


def source_files(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for suffix in ("*.py", "*.ipynb") for p in folder.rglob(suffix)
                  if p.is_file() and "__pycache__" not in p.parts)


def target(package: str, folder: Path, leave_out: Iterable[str] = ()) -> Target:
    skip = set(leave_out)
    files = [f for f in source_files(folder) if f not in skip]
    topical = prefiltered = weight = 0
    for rel in files:
        text = (folder / rel).read_text(encoding="utf-8", errors="replace")
        topical += any(w in text for w in TOPIC_WORDS)
        if might_matter(text):
            prefiltered += 1
            weight += len(text)
    return Target(package, folder, tuple(files), topical, prefiltered, weight)


# The CLI's own entry point, with the address space capped first (no preexec_fn: runs start from threads).
LAUNCH = ("import resource, sys; resource.setrlimit(resource.RLIMIT_AS, ({cap}, {cap})); "
          "from hf_cache_lint.cli import main; sys.exit(main(sys.argv[1:]))")


@lru_cache(maxsize=1)
def _no_cache_flag() -> tuple[str, ...]:
    """`--no-cache` where this CLI has a result cache: every run must analyse, not replay."""
    from hf_cache_lint.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    check = sub.choices["check"]  # type: ignore[attr-defined]
    return ("--no-cache",) if any("--no-cache" in a.option_strings for a in check._actions) else ()


def run_cli(t: Target, version: str, timeout: float = RUN_TIMEOUT) -> Run:
    """`hf-cache-lint check --format json` over the target's files, in its folder, for one version."""
    cmd = [sys.executable, "-c", LAUNCH.format(cap=MEMORY_CAP), "check", "--format", "json", "--jobs", "1",
           "--transformers-version", version, *_no_cache_flag(), "--", *t.files]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT / "server"), os.environ.get("PYTHONPATH")]))}
    began = time.monotonic()
    try:
        proc = subprocess.run(cmd, cwd=t.folder, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return Run(t.package, version, len(t.files), t.topical, t.prefiltered, -1, (),
                   (f"timed out after {timeout:.0f}s",), (), time.monotonic() - began)
    seconds = time.monotonic() - began
    try:
        rows = json.loads(proc.stdout) if proc.stdout.strip() else []
    except json.JSONDecodeError:
        rows = None
    findings = tuple(Finding(t.package, r["filename"], r["location"]["row"], r["code"], r["severity"], r["message"])
                     for r in rows or ())
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    errors = [ln for ln in lines if ": error: " in ln or ln.startswith("Traceback")]
    if rows is None:
        errors.append(f"stdout is not JSON: {proc.stdout[:200]!r}")
    if proc.returncode not in (0, 1):
        errors.append(f"exit status {proc.returncode}: {proc.stderr[-500:]}")
    notes = [ln for ln in lines if ln not in errors]
    return Run(t.package, version, len(t.files), t.topical, t.prefiltered, proc.returncode, findings,
               tuple(errors), tuple(notes), seconds)


def run_all(targets: Sequence[Target], versions: Sequence[str], workers: int = 0) -> dict[tuple[str, str], Run]:
    """Every target at every version, `workers` CLI processes at a time (default: one per CPU), the
    heaviest first (longest-processing-time-first, as the CLI's own pool schedules files)."""
    workers = workers or max(1, len(os.sched_getaffinity(0)))
    jobs = sorted(((t, v) for t in targets for v in versions), key=lambda tv: -tv[0].weight)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        done = list(pool.map(lambda tv: run_cli(*tv), jobs))
    return {(r.package, r.version): r for r in done}


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def unavailable(reason: str) -> None:
    if in_ci():
        pytest.fail(f"real-code set-up missing under CI: {reason}", pytrace=False)
    pytest.skip(f"real-code set-up missing: {reason}")


@dataclass
class Batch:
    targets: dict[str, Target]
    runs: dict[tuple[str, str], Run]
    seconds: float


BATCHES: list[Batch] = []


def batch(leave_out: Iterable[tuple[str, str]]) -> Batch:
    """The results (computed once per session; `leave_out` = (package id, path) checked elsewhere)."""
    if BATCHES:
        return BATCHES[0]
    pkgs = packages()
    base = realcode_dir()
    reason = setup_missing(base, pkgs)
    if reason:
        unavailable(reason)
    skip = list(leave_out)
    targets = {p.id: target(p.id, base / "src" / p.id, [path for pkg, path in skip if pkg == p.id])
               for p in pkgs}
    began = time.monotonic()
    runs = run_all(list(targets.values()), VERSIONS)
    BATCHES.append(Batch(targets, runs, time.monotonic() - began))
    (base / "last-run.json").write_text(json.dumps(
        {"seconds": BATCHES[0].seconds, "runs": [asdict(r) for r in runs.values()]}, indent=1))
    return BATCHES[0]
