"""`hf-cache-lint check` in a child process that cannot hang or eat the machine: a wall-clock timeout (a FIFO
that blocks the run fails the test instead of hanging it) and an address-space limit (a read of /dev/zero fails
with MemoryError in the child instead of growing until the OOM killer picks a process). The child reports its
own peak RSS, so a test can tell a bounded read from one that loaded a file whole."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ADDRESS_SPACE = 3 * 1024 ** 3  # far above a check's needs (~100 MB resident), far below the machine's memory

# The child's own peak RSS is its VmHWM: `ru_maxrss` would report the forking pytest process's size, since Linux
# keeps the pre-exec memory's high-water mark in it (a 300 MB parent gives a 13 MB child a ru_maxrss of 310 MB).
_CHILD = ("import sys\n"
          "from hf_cache_lint.cli import main\n"
          "try:\n"
          "    code = main(sys.argv[1:])\n"
          "finally:\n"
          "    with open('/proc/self/status') as status:\n"
          "        hwm = next(line.split()[1] for line in status if line.startswith('VmHWM:'))\n"
          "    print('\\nMAXRSS', hwm, file=sys.stderr)\n"
          "sys.exit(code)\n")


@dataclass(frozen=True)
class Child:
    code: int
    out: str
    err: str
    maxrss_mb: float

    def codes(self) -> list[str]:
        return [f["code"] for f in json.loads(self.out)]


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def check(cwd: Path, *args: str, timeout: float = 60, env: dict[str, str] | None = None) -> Child:
    """`hf-cache-lint check --format json *args` in `cwd`; raises subprocess.TimeoutExpired on a hang."""
    full_env = {**os.environ, "PYTHONPATH": str(REPO / "server"), "HF_HUB_OFFLINE": "1", **(env or {})}
    full_env.pop("HF_CACHE_LINT_NO_CACHE", None)
    proc = subprocess.run([sys.executable, "-c", _CHILD, "check", "--format", "json", *args], cwd=cwd,
                          env=full_env, capture_output=True, text=True, timeout=timeout, preexec_fn=_limit,
                          stdin=subprocess.DEVNULL)
    rss = [line.split()[1] for line in proc.stderr.splitlines() if line.startswith("MAXRSS ")]
    return Child(proc.returncode, proc.stdout, proc.stderr, int(rss[-1]) / 1024 if rss else -1.0)
