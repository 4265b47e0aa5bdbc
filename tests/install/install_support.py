"""Helpers for the install tests: a clean copy of the tree, an offline fresh venv, the README's first command,
and the one place that says how the VS Code extension starts its bundled server.

Everything runs offline: set-up (scripts/fetch-wheelhouse.sh, run by scripts/test-all.sh) put every wheel a
fresh install needs into .cache/wheelhouse, and pip is pointed there with PIP_NO_INDEX / PIP_FIND_LINKS.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

import pytest

REPO = Path(__file__).resolve().parents[2]
WHEELHOUSE = Path(os.environ.get("HFC_WHEELHOUSE", REPO / ".cache" / "wheelhouse"))
FIGURES: dict[str, str] = {}  # printed at the end of the run (conftest's pytest_terminal_summary)


def missing(what: str, setup: str) -> NoReturn:
    """Set-up did not run: a failure under CI (the test command must prepare it), a skip elsewhere."""
    message = f"{what}: run {setup}"
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


def require_wheelhouse() -> Path:
    if not any(WHEELHOUSE.glob("pygls-*.whl")) or not any(WHEELHOUSE.glob("setuptools-*.whl")):
        missing(f"no offline wheelhouse at {WHEELHOUSE}", "scripts/fetch-wheelhouse.sh")
    return WHEELHOUSE


def user_env(*, bin_dir: Path | None = None, **extra: str) -> dict[str, str]:
    """The environment of a new user's shell: none of the test run's Python paths, pip offline.

    PYTHONPATH is dropped (the suite exports it to run the repo's sources; a user has no such thing), the user
    site is off, and with `bin_dir` the venv's bin comes first, as after `source venv/bin/activate`."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP") and not k.startswith("PIP_")}
    env.update(PYTHONNOUSERSITE="1", PIP_NO_INDEX="1", PIP_FIND_LINKS=str(WHEELHOUSE),
               PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_CACHE_DIR="1", PIP_ROOT_USER_ACTION="ignore")
    if bin_dir is not None:
        env["PATH"] = os.pathsep.join((str(bin_dir), env.get("PATH", "")))
        env["VIRTUAL_ENV"] = str(bin_dir.parent)
    env.update(extra)
    return env


def tracked_files(repo: Path = REPO) -> list[str]:
    """What a clone holds: the tracked files plus new ones not ignored (so uncommitted work is tested too),
    without deleted files; symlinks (a worktree's .cache, node_modules) are not part of a clone."""
    out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                         cwd=repo, check=True, capture_output=True).stdout.decode()
    return sorted(p for p in set(out.split("\0")) if p and (repo / p).is_file() and not (repo / p).is_symlink())


def clean_copy(dest: Path) -> Path:
    """A copy of the tree as `git clone` gives it, committed in a git repository of its own (pre-commit
    try-repo needs one)."""
    for rel in tracked_files():
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / rel, target)
    git = ["git", "-c", "user.name=hf-cache-lint tests", "-c", "user.email=tests@localhost",
           "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"]
    subprocess.run([*git, "init", "-q"], cwd=dest, check=True)
    subprocess.run([*git, "add", "-A"], cwd=dest, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "clean copy"], cwd=dest, check=True)
    return dest


def readme_first_command(readme: Path) -> list[str]:
    """The README's first set-up block (its consecutive indented lines: the venv, then the install and the first
    check), split at line ends and `&&` into the steps a shell runs one after the other."""
    text = readme.read_text(encoding="utf-8")
    section = text.split("## Set up", 1)[1]
    match = re.search(r"^    (\S.*)$(?:\n    \S.*$)*", section, re.M)
    assert match, "the README's Set up section has no indented command"
    return [step.strip() for line in match.group(0).splitlines() for step in line.split("&&")]


def install_step(steps: list[str]) -> int:
    """The index of the README's `pip install` step (the steps before it make and activate the venv)."""
    index = next((i for i, step in enumerate(steps) if " pip install " in f" {step} "), None)
    assert index is not None, f"the README's first block installs nothing: {steps}"
    return index


@dataclass(frozen=True)
class Venv:
    root: Path

    @property
    def bin(self) -> Path:
        return self.root / "bin"

    @property
    def python(self) -> Path:
        return self.bin / "python"


@dataclass(frozen=True)
class Installed:
    """A new user's state after the README's install step: the clean tree and the venv it installed into."""

    tree: Path
    venv: Venv
    steps: list[str]  # the README's first block from its install step on, split at &&; steps[0] ran already


@dataclass(frozen=True)
class Built:
    sdist: Path
    wheel: Path


def readme_install(scratch: Path) -> tuple[Installed, float]:
    """A clean copy in `scratch`, then the README's first steps exactly as written up to the install (make the
    venv, activate it, pip install) in one shell: what a new user has after installing (and the seconds the
    install took). The venv is the one the README makes, `.venv` in the tree."""
    require_wheelhouse()
    tree = clean_copy(scratch / "clone")
    steps = readme_first_command(tree / "README.md")
    until = install_step(steps)
    script = " && ".join(steps[: until + 1])
    proc, seconds = run_timed(script, cwd=tree, env=user_env(), shell=True)
    assert proc.returncode == 0, f"`{script}` failed:\n{proc.stdout}\n{proc.stderr}"
    venv = Venv(tree / ".venv")
    assert (venv.bin / "hf-cache-lint").exists(), f"`{script}` installed no hf-cache-lint into {venv.root}"
    return Installed(tree, venv, steps[until:]), seconds


def make_venv(root: Path, *, with_pip: bool = True, base: str = sys.executable) -> Venv:
    """`python -m venv` from `base` (default: the interpreter running the tests)."""
    argv = [base, "-m", "venv", str(root)] + ([] if with_pip else ["--without-pip"])
    subprocess.run(argv, check=True, env=user_env(), timeout=300)
    return Venv(root)


def run_timed(argv: list[str] | str, *, cwd: Path, env: dict[str, str], timeout: float = 600,
              shell: bool = False) -> tuple[subprocess.CompletedProcess[str], float]:
    began = time.monotonic()
    proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout,
                          shell=shell, executable="/bin/bash" if shell else None, check=False)
    return proc, time.monotonic() - began


# --- how the VS Code extension starts its bundled server ------------------------------------------------
# client/launch.json is the one definition: client/src/server.ts reads it (serverLaunch), so do these
# (test_vsix_handshake.py::test_launch_mirrors_the_extension checks server.ts still does).
LAUNCH = json.loads((REPO / "client" / "launch.json").read_text(encoding="utf-8"))
EXTENSION_SERVER_ARGS = list(LAUNCH["args"])


def extension_launch(extension_dir: Path, python: str, workspace: Path) -> tuple[list[str], dict[str, str], Path]:
    """argv, env and cwd of the server as the extension runs it from an installed .vsix: the runner Python in
    isolated mode on the bootstrap (bundled/serve.py puts bundled/tool and bundled/libs on sys.path), the
    user's environment unchanged (no PYTHONPATH added), cwd the extension's folder (never the workspace)."""
    del workspace  # the server's working directory is never the workspace (client/launch.json)
    bootstrap = next((extension_dir / b for b in LAUNCH["bootstrap"] if (extension_dir / b).exists()), None)
    assert bootstrap is not None, f"the .vsix has no server bootstrap ({LAUNCH['bootstrap']}): {extension_dir}"

    def fill(arg: str) -> str:
        return arg.replace("{bootstrap}", str(bootstrap)).replace("{extension}", str(extension_dir))

    return [python, *map(fill, EXTENSION_SERVER_ARGS)], user_env(), Path(fill(LAUNCH["cwd"]))
