"""The oracle worker: `python main.py TF_DIR IN.json OUT.json` (runs in .cache/oracle/venv).

Imports torch + transformers (from TF_DIR, first on sys.path) once, installs the simulation, then forks
one child per snippet. The child writes the snippet's files into a fresh temp dir (its cwd), runs the
source as `__main__`, calls any recorded web handlers, and reports what was raised through a pipe.
The parent enforces the per-snippet timeout. Snippet stdout/stderr go to a log whose tail is reported.
"""

from __future__ import annotations

import contextlib
import faulthandler
import json
import logging
import os
import resource
import select
import signal
import sys
import tempfile
import time
import traceback
import types
import warnings
from collections.abc import Iterator
from typing import Any

TF_DIR = sys.argv[1]
sys.path.insert(0, TF_DIR)
for key, value in {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false",
                   "OMP_NUM_THREADS": "1", "HF_HUB_DISABLE_TELEMETRY": "1"}.items():
    os.environ[key] = value

import sim  # noqa: E402
import tiny  # noqa: E402
import transformers  # noqa: E402
import web  # noqa: E402
from classifier import classify, classify_warnings  # noqa: E402  (the table of runtime error classes)

# OMP_NUM_THREADS=1 (set above, before torch loads) keeps OpenMP from starting threads a fork would orphan.
# Do NOT call torch.set_num_threads here: then every new thread in a forked child (5.x loads weights on a
# thread pool) re-applies it and trips "pool INTERNAL ASSERT FAILED ... Invalid thread pool!".

CHILD_MEMORY_BYTES = 6 << 30  # address-space cap per snippet (tiny models need well under 1 GiB)
class _Recorder(logging.Handler):
    """Collects transformers' logged warnings (`logger.warning_once` never goes through `warnings`)."""

    def __init__(self, into: list[str]) -> None:
        super().__init__(logging.WARNING)
        self.into = into

    def emit(self, record: logging.LogRecord) -> None:
        self.into.append(record.getMessage())


@contextlib.contextmanager
def recording_warnings(into: list[str]) -> Iterator[None]:
    """Record every `warnings.warn` (still shown as usual) and transformers warning log record."""
    shown = warnings.showwarning

    def show(message: Warning | str, category: type[Warning], *args: Any, **kwargs: Any) -> None:
        into.append(f"{category.__name__}: {message}")
        shown(message, category, *args, **kwargs)

    handler = _Recorder(into)
    logger = logging.getLogger("transformers")
    warnings.showwarning = show
    logger.addHandler(handler)
    try:
        yield
    finally:
        warnings.showwarning = shown
        logger.removeHandler(handler)


def snippet_line(exc: BaseException, path: str) -> int | None:
    """The innermost traceback frame that belongs to the snippet file."""
    line = exc.lineno if isinstance(exc, SyntaxError) and exc.filename == path else None
    for frame, lineno in traceback.walk_tb(exc.__traceback__):
        if frame.f_code.co_filename == path:
            line = lineno
    return line


def execute(case: dict[str, Any]) -> dict[str, Any]:
    """Run one snippet in this (forked) process; return its outcome."""
    workdir = tempfile.mkdtemp(prefix="oracle-case-")
    os.chdir(workdir)
    for rel, content in case.get("files", {}).items():
        os.makedirs(os.path.dirname(os.path.join(workdir, rel)) or workdir, exist_ok=True)
        with open(os.path.join(workdir, rel), "w") as f:
            f.write(content)
    path = os.path.join(workdir, case.get("filename") or "snippet.py")
    with open(path, "w") as f:
        f.write(case["source"])
    sim.SNIPPET_FILE[0] = path
    sys.argv = [path]
    # As `python path` does: the script's folder first on sys.path, so it imports the modules beside it.
    sys.path.insert(0, workdir)
    module = types.ModuleType("__main__")
    module.__file__ = path
    sys.modules["__main__"] = module
    error: BaseException | None = None
    line: int | None = None
    recorded: list[str] = []
    with sim.install_mode(), recording_warnings(recorded):
        try:
            # dont_inherit: this file's `from __future__ import annotations` must not leak into user code
            exec(compile(case["source"], path, "exec", dont_inherit=True), module.__dict__)
            for hook in list(web.STARTUP):
                web.call(hook)
            for handler in list(web.HANDLERS):
                web.call(handler)
        except SystemExit as exc:
            if exc.code not in (0, None):
                error = exc
        except BaseException as exc:
            error = exc
    if error is not None:
        line = snippet_line(error, path)
    elif sim.THREAD_ERRORS:
        error, line = sim.THREAD_ERRORS[0]
    kind, detail = classify(error)
    return {"kind": kind, "detail": detail, "line": line, "warned": classify_warnings(recorded),
            "warnings": recorded[:20],
            "exc_type": type(error).__name__ if error is not None else "",
            "message": str(error)[:2000] if error is not None else ""}


def run_child(case: dict[str, Any], out_fd: int, log_path: str, timeout: float) -> None:
    log_fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    os.dup2(log_fd, 1)
    os.dup2(log_fd, 2)
    # A runaway snippet gets a MemoryError instead of waking the kernel's OOM killer on a shared machine.
    resource.setrlimit(resource.RLIMIT_AS, (CHILD_MEMORY_BYTES, CHILD_MEMORY_BYTES))
    # Just before the parent kills a stuck child, dump every thread's stack into the log (reported).
    faulthandler.dump_traceback_later(max(timeout - 1.0, 0.5), file=sys.stderr)
    try:
        result = execute(case)
    except BaseException as exc:  # the harness itself failed: report it, never hang the parent
        result = {"kind": "OTHER", "detail": "", "line": None, "exc_type": "HarnessError",
                  "message": f"{type(exc).__name__}: {exc}"}
    sys.stdout.flush()
    sys.stderr.flush()
    with os.fdopen(out_fd, "w") as out:
        out.write(json.dumps(result))
    os._exit(0)


def tail(path: str, limit: int = 3000) -> str:
    try:
        with open(path, errors="replace") as f:
            return f.read()[-limit:]
    except OSError:
        return ""


def run_one(case: dict[str, Any], timeout: float) -> dict[str, Any]:
    read_fd, write_fd = os.pipe()
    log_path = os.path.join(tempfile.gettempdir(), f"oracle-{os.getpid()}-{abs(hash(case['id']))}.log")
    began = time.monotonic()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        run_child(case, write_fd, log_path, timeout)
    os.close(write_fd)
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout
    timed_out = False
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            timed_out = True
            os.kill(pid, signal.SIGKILL)
            break
        ready, _, _ = select.select([read_fd], [], [], left)
        if ready:
            chunk = os.read(read_fd, 65536)
            if not chunk:
                break
            chunks.append(chunk)
    os.close(read_fd)
    _, status = os.waitpid(pid, 0)
    if timed_out:
        result = {"kind": "OTHER", "detail": "", "line": None, "exc_type": "Timeout",
                  "message": f"snippet did not finish within {timeout:.0f}s"}
    elif not chunks:
        result = {"kind": "OTHER", "detail": "", "line": None, "exc_type": "Crash",
                  "message": f"child died without a result (wait status {status})"}
    else:
        result = json.loads(b"".join(chunks))
    result["output"] = tail(log_path)
    result["seconds"] = round(time.monotonic() - began, 3)
    with contextlib.suppress(OSError):
        os.unlink(log_path)
    return result


def main() -> None:
    with open(sys.argv[2]) as f:
        request = json.load(f)
    tiny.install()
    sim.install()
    web.install()
    results = {"__version__": transformers.__version__}
    for case in request["cases"]:
        results[case["id"]] = run_one(case, float(request.get("timeout", 60)))
    with open(sys.argv[3], "w") as f:
        json.dump(results, f)


if __name__ == "__main__":
    main()
