"""Run user-style snippets against real transformers versions (host side of the oracle).

`run_snippets(version, cases)` starts ONE worker process for the version (the oracle venv's python with
.cache/oracle/tf-VERSION first on sys.path, see worker/main.py), which imports torch + transformers once
and forks per snippet. Build the environments with scripts/setup-oracle.sh.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

# The outcome kinds (every rule error class, OTHER, OK) and the warned kinds come from the worker's table.
from .worker.classifier import KINDS as KINDS
from .worker.classifier import WARNED_KINDS as WARNED_KINDS

REPO = Path(__file__).resolve().parents[2]
ORACLE_DIR = Path(os.environ.get("ORACLE_DIR") or REPO / ".cache" / "oracle")  # same override as the setup script
VENV_PYTHON = ORACLE_DIR / "venv" / "bin" / "python"
WORKER = Path(__file__).resolve().parent / "worker" / "main.py"
SETUP_HINT = "run `bash scripts/setup-oracle.sh` (builds .cache/oracle/, ~2 min, PyPI only)"


@dataclass(frozen=True)
class Snippet:
    """User code to run: `source` is written as `filename` next to `files` in a fresh temp dir (the cwd)."""

    id: str
    source: str
    files: Mapping[str, str] = field(default_factory=dict)
    filename: str = "snippet.py"


@dataclass(frozen=True)
class Outcome:
    """What the real run raised. `detail` is the cache keyword named in an HFC001 message (for HFC007, the
    removed class or method)."""

    kind: str
    message: str = ""
    line: int | None = None
    exc_type: str = ""
    detail: str = ""
    output: str = ""  # tail of the snippet's stdout/stderr, for failure reports
    seconds: float = 0.0  # wall time of the forked run
    warned: str = ""  # "HFC006" when the run emitted a cache deprecation (FutureWarning or logged), else ""
    warnings: tuple[str, ...] = ()  # the first warnings it emitted (warnings.warn and transformers' log)

    @property
    def verdict(self) -> str:
        """The kind, with a clean run that warned of a cache deprecation told apart: "HFC006" then."""
        return (self.warned or "OK") if self.kind == "OK" else self.kind

    def describe(self) -> str:
        where = f" at line {self.line}" if self.line else ""
        if self.kind == "OK":
            return f"OK, warned {self.warned}: {self.warnings}" if self.warned else "OK"
        return f"{self.kind}{where}: {self.exc_type}: {self.message[:300]}"


def tf_dir(version: str) -> Path:
    return ORACLE_DIR / f"tf-{version}"


def missing(version: str) -> str | None:
    """Why the environment for `version` cannot run, or None when it is ready."""
    if not VENV_PYTHON.exists():
        return f"no oracle venv at {VENV_PYTHON}; {SETUP_HINT}"
    if not (tf_dir(version) / ".ok").exists():
        return f"transformers {version} not installed under {tf_dir(version)}; {SETUP_HINT}"
    return None


def start(version: str, cases: Sequence[Snippet], timeout: float = 60.0) -> tuple[subprocess.Popen[bytes], Path]:
    """Launch the worker for one version without waiting (lets several versions run side by side)."""
    reason = missing(version)
    if reason:
        raise RuntimeError(reason)
    ids = [c.id for c in cases]
    if len(set(ids)) != len(ids):
        raise ValueError("snippet ids must be unique")
    work = Path(tempfile.mkdtemp(prefix=f"oracle-{version}-"))
    request = {"timeout": timeout, "cases": [
        {"id": c.id, "source": c.source, "files": dict(c.files), "filename": c.filename} for c in cases]}
    (work / "in.json").write_text(json.dumps(request))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    (work / "tmp").mkdir()
    env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", TOKENIZERS_PARALLELISM="false", OMP_NUM_THREADS="1",
               HF_HOME=str(work / "hf-home"),  # an empty HF cache: nothing real can leak in
               TMPDIR=str(work / "tmp"))  # the worker's checkpoints and per-snippet dirs, removed in finish()
    with open(work / "worker.log", "wb") as log:  # the child keeps its own copy of the descriptor
        proc = subprocess.Popen(
            [str(VENV_PYTHON), str(WORKER), str(tf_dir(version)), str(work / "in.json"), str(work / "out.json")],
            cwd=work, env=env, stdout=subprocess.DEVNULL, stderr=log)
    return proc, work


def finish(version: str, proc: subprocess.Popen[bytes], work: Path) -> dict[str, Outcome]:
    """Wait for a worker started by `start` and read its outcomes."""
    code = proc.wait()
    out = work / "out.json"
    if code != 0 or not out.exists():
        log = (work / "worker.log").read_text(errors="replace")[-4000:]
        raise RuntimeError(f"oracle worker for transformers {version} failed (exit {code}):\n{log}")
    raw = json.loads(out.read_text())
    got = raw.pop("__version__")
    if got != version:
        raise RuntimeError(f"worker imported transformers {got}, expected {version}")
    shutil.rmtree(work, ignore_errors=True)  # kept only when the worker failed, for its log
    return {cid: Outcome(**{**data, "warnings": tuple(data.get("warnings", ()))}) for cid, data in raw.items()}


def run_snippets(version: str, cases: Sequence[Snippet], timeout: float = 60.0) -> dict[str, Outcome]:
    """Run every snippet on real transformers `version`; outcome per snippet id."""
    proc, work = start(version, cases, timeout)
    return finish(version, proc, work)
