"""jedi, run against the analysed interpreter, for the few names the interpreter cannot resolve.

Used only to refute: a `.generate` receiver the interpreter knows nothing about (a parameter, an
object from another module) is treated as a transformers model unless jedi finds it is something
else (a user class, vLLM, mamba_ssm). `load_unsafe_extensions=False`: jedi never runs user code.

Three safety rules:
- A `restricted` context (untrusted workspace) runs no interpreter: jedi infers in this process
  (`InterpreterEnvironment`), without the environment subprocess.
- The environment subprocess (`<interpreter> jedi/.../subprocess/__main__.py`) starts as a script, so the
  working directory is not on its sys.path; its environment drops relative PYTHONPATH entries (they would
  resolve against the working directory) and PYTHONSTARTUP/PYTHONINSPECT.
- jedi's on-disk cache (parso pickles in ~/.cache/jedi) is written non-atomically (`open(path, "wb")` then
  `pickle.dump`, parso/cache.py `_save_to_file_system`) and pruned by whichever process runs: two runs
  sharing a home directory read each other's half-written files and inference fails. Each process gets
  its own cache folder (removed at exit); the in-memory cache still spans a process's whole life.
- When jedi fails, the receiver is unknown: the finding on that call is dropped (never a guess).
"""

from __future__ import annotations

import atexit
import logging
import os
import shutil
import tempfile
import threading
from functools import lru_cache
from pathlib import Path
from typing import Any

from hf_cache_lint.engine import deps
from hf_cache_lint.engine.analysis import Analysis
from hf_cache_lint.engine.findings import Finding, Span
from hf_cache_lint.engine.text import split_lines

log = logging.getLogger("hf_cache_lint")

_TRANSFORMERS_LIKE = ("transformers", "peft", "unsloth", "optimum", "trl")


_JEDI_LOCK = threading.Lock()
_CACHE_DIR: tuple[int, str] | None = None  # (pid, folder): a forked pool worker makes its own


def private_cache_dir() -> str:
    """This process's jedi cache folder (created on first use, removed at exit), set as jedi's."""
    global _CACHE_DIR
    import jedi

    if _CACHE_DIR is None or _CACHE_DIR[0] != os.getpid():
        folder = tempfile.mkdtemp(prefix="hf-cache-lint-jedi-")
        _CACHE_DIR = (os.getpid(), folder)
        atexit.register(shutil.rmtree, folder, True)
    jedi.settings.cache_directory = _CACHE_DIR[1]
    return _CACHE_DIR[1]


def remove_private_cache_dir() -> None:
    """Remove this process's jedi cache folder now (a process ending with os._exit runs no atexit)."""
    if _CACHE_DIR is not None and _CACHE_DIR[0] == os.getpid():
        shutil.rmtree(_CACHE_DIR[1], ignore_errors=True)


def subprocess_env() -> dict[str, str]:
    """The environment of jedi's subprocess: ours, minus what could import from the working directory."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONSTARTUP", "PYTHONINSPECT", "PYTHONSAFEPATH")}
    if "PYTHONPATH" in env:
        kept = [p for p in env["PYTHONPATH"].split(os.pathsep) if p and os.path.isabs(p)]
        if kept:
            env["PYTHONPATH"] = os.pathsep.join(kept)
        else:
            del env["PYTHONPATH"]
    return env


@lru_cache(maxsize=8)
def _environment(interpreter: str | None, restricted: bool) -> Any:
    import sys

    from jedi.api.environment import InterpreterEnvironment, create_environment

    if restricted:
        return InterpreterEnvironment()  # an untrusted workspace: run no interpreter, infer in this process
    # None configured: what jedi would pick itself (the active virtualenv, else this Python), with our env.
    chosen = interpreter or os.environ.get("VIRTUAL_ENV") or os.environ.get("CONDA_PREFIX") or sys.executable
    try:
        return create_environment(chosen, safe=False, env_vars=subprocess_env())
    except Exception:  # an interpreter jedi cannot use: infer in this process
        log.info("jedi cannot use interpreter %s; inferring with the server's", chosen)
        return InterpreterEnvironment()


@lru_cache(maxsize=8)
def _project(root: str, extra_paths: tuple[str, ...] = ()) -> Any:
    import jedi

    # added_sys_path: the `extraPaths` import roots, so jedi follows `import x` into them as the interpreter does.
    return jedi.Project(root, load_unsafe_extensions=False, added_sys_path=list(extra_paths))


class InferenceFailed(Exception):
    """jedi raised: what the receiver is stays unknown."""


def receiver_types(text: str, path: str, callee: Span, interpreter: str | None,
                   workspace: Path | None, extra_paths: tuple[Path, ...] = (),
                   restricted: bool = False) -> list[tuple[str, str]]:
    """(full_name, module_name) of what jedi infers for the object before `.generate`.

    Raises InferenceFailed when jedi fails (a broken cache, a crashed subprocess).
    """
    import jedi

    lines = split_lines(text)
    line = lines[callee.end.line - 1] if callee.end.line - 1 < len(lines) else ""
    dot = line.rfind(".", 0, callee.end.column)
    if dot <= 0:
        return []
    root = str(workspace or (Path(path).parent if not path.startswith("<") else Path.home()))
    try:
        with _JEDI_LOCK:  # jedi is not thread-safe; the server analyses big documents on a second thread
            private_cache_dir()
            script = jedi.Script(text, path=None if path.startswith("<") else path,
                                 project=_project(root, tuple(str(p) for p in extra_paths)),
                                 environment=_environment(interpreter, restricted))
            return [(d.full_name or "", d.module_name or "") for d in script.infer(callee.end.line, dot - 1)]
    except Exception as exc:
        log.warning("jedi inference failed in %s: %r", path, exc)
        raise InferenceFailed(str(exc)) from exc


def is_foreign(text: str, path: str, callee: Span, interpreter: str | None, workspace: Path | None,
               extra_paths: tuple[Path, ...] = (), restricted: bool = False) -> bool:
    """Whether the receiver is not a transformers-family model: jedi resolves it to something else, or
    jedi failed, so nothing may be claimed about it."""
    deps.note_volatile()  # jedi reads installed packages and workspace files nobody lists: never cache this
    try:
        found = receiver_types(text, path, callee, interpreter, workspace, extra_paths, restricted)
    except InferenceFailed:
        return True
    return bool(found) and all(
        module.split(".")[0] not in _TRANSFORMERS_LIKE and full.split(".")[0] not in _TRANSFORMERS_LIKE
        for full, module in found
    )


def drop_foreign(analysis: Analysis, findings: list[Finding]) -> list[Finding]:
    """Findings minus those on a `.generate` whose unseen receiver jedi shows is not a model, for every
    rule at once. Lazy: jedi runs only for such a call that holds a finding, once per call."""
    unseen = [c for c in analysis.calls if not c.model.receiver_known]
    if not unseen:
        return findings
    verdict: dict[Span, bool] = {}
    ctx = analysis.context
    kept = []
    for f in findings:
        call = next((c for c in unseen if c.span.start <= f.span.start and f.span.end <= c.span.end), None)
        if call is not None:
            if call.span not in verdict:
                verdict[call.span] = is_foreign(analysis.text, analysis.path, call.callee_span, ctx.interpreter,
                                                ctx.workspace, ctx.extra_paths, ctx.restricted)
            if verdict[call.span]:
                continue
        kept.append(f)
    return kept
