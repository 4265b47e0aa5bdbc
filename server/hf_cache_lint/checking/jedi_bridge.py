"""jedi, over the analysed environment's packages, for the few names the interpreter cannot resolve.

Used only to refute: a `.generate` receiver the interpreter knows nothing about (a parameter, an
object from another module) is treated as a transformers model unless jedi finds it is something
else (a user class, vLLM, mamba_ssm).

No code of the analysed environment or the workspace ever runs (issue 33):
- jedi infers in this process (`InterpreterEnvironment`), never in its environment subprocess. That subprocess
  was the analysed interpreter itself (`<python> jedi/.../subprocess/__main__.py`, without -S: jedi starts it
  with fixed arguments), so its `site` ran the environment's `.pth` files and `sitecustomize` (a workspace
  `.venv` selected as the interpreter ran the repository's code), and it imported C extensions from that
  site-packages to infer their types: jedi's `load_unsafe_extensions=False` only keeps out extensions outside
  the environment's own sys.path, and a workspace venv's site-packages is on it (jedi/inference/imports.py
  `_load_builtin_module`).
- The environment's sys.path is read from its files (`environment_paths`): its site-packages folders, found
  from the interpreter's path (a venv's pyvenv.cfg, the `lib/python3.X/site-packages` layout), and the path
  lines of their `.pth` files (editable installs); `import` lines are never run. jedi parses those packages.
- A compiled module is imported (jedi has to, to know it) only from this Python's standard library, never from
  a site-packages or the workspace (`_SafeEnvironment`). A receiver whose type lives in a C extension is not
  inferred: it stays unknown, so the finding stays.

Also: jedi's on-disk cache (parso pickles in ~/.cache/jedi) is written non-atomically (`open(path, "wb")` then
`pickle.dump`, parso/cache.py `_save_to_file_system`) and pruned by whichever process runs: two runs sharing a
home directory read each other's half-written files and inference fails. Each process gets its own cache folder
(removed at exit); the in-memory cache still spans a process's whole life. When jedi fails, the receiver is
unknown: the finding on that call is dropped (never a guess).
"""

from __future__ import annotations

import atexit
import logging
import os
import shutil
import sys
import tempfile
import threading
from functools import lru_cache
from pathlib import Path
from typing import Any

from hf_cache_lint.engine.base.findings import Finding, Span
from hf_cache_lint.engine.environment import deps
from hf_cache_lint.engine.environment.confine import inside
from hf_cache_lint.engine.environment.reads import read_bounded
from hf_cache_lint.engine.output.analysis import Analysis
from hf_cache_lint.engine.text.text import split_lines

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


def environment_paths(interpreter: str) -> tuple[str, ...]:
    """The import folders of the environment `interpreter` belongs to (an executable, a name on PATH, or the
    environment's folder: VIRTUAL_ENV / CONDA_PREFIX), read from its files: its site-packages and the folders its
    `.pth` files name. Nothing is run."""
    exe = interpreter if (os.sep in interpreter or os.path.isdir(interpreter)) else (
        shutil.which(interpreter) or interpreter)
    exe = os.path.abspath(exe)
    # A folder is the prefix; bin/python (POSIX) or Scripts\python.exe (a Windows venv) sit under it, python.exe
    # (a Windows base install) in it.
    prefixes = [exe] if os.path.isdir(exe) else [os.path.dirname(os.path.dirname(exe)), os.path.dirname(exe)]
    sites: list[str] = []
    for prefix in prefixes:
        cfg = _pyvenv_cfg(prefix)
        if cfg is not None:  # a venv: its own site-packages, and the base's when it says so
            sites += _site_dirs(prefix)
            home = cfg.get("home")
            if cfg.get("include-system-site-packages", "").lower() == "true" and home:
                sites += _site_dirs(os.path.dirname(os.path.abspath(home)))
            break
    else:
        real = os.path.realpath(exe)
        for prefix in (os.path.dirname(os.path.dirname(real)), os.path.dirname(real), *prefixes):
            sites += _site_dirs(prefix)
    found: list[str] = []
    for site in sites:
        for path in (site, *_pth_dirs(site)):
            if path not in found:
                found.append(path)
    return tuple(found)


def _pyvenv_cfg(prefix: str) -> dict[str, str] | None:
    raw = read_bounded(os.path.join(prefix, "pyvenv.cfg"), 64 * 1024)
    if raw is None:
        return None
    pairs = (line.partition("=") for line in raw.decode("utf-8", "replace").splitlines())
    return {k.strip().lower(): v.strip() for k, sep, v in pairs if sep}


def _site_dirs(prefix: str) -> list[str]:
    patterns = ("lib/python3*/site-packages", "lib/python3*/dist-packages", "lib/python3/dist-packages",
                "Lib/site-packages", "local/lib/python3*/dist-packages")
    return [str(p) for pattern in patterns for p in sorted(Path(prefix).glob(pattern)) if p.is_dir()]


def _pth_dirs(site: str) -> list[str]:
    """The folders a site folder's `.pth` files add (as `site` reads them: one path a line, relative to the site
    folder, `#` comments); their `import` lines, which `site` would execute, are skipped."""
    found = []
    for pth in sorted(Path(site).glob("*.pth")):
        raw = read_bounded(pth, 1024 * 1024)
        for line in (raw or b"").decode("utf-8", "replace").splitlines():
            line = line.rstrip()
            if not line or line.startswith("#") or line.startswith(("import ", "import\t")):
                continue
            path = os.path.normpath(os.path.join(site, line))
            if os.path.isdir(path):
                found.append(path)
    return found


def _stdlib_paths() -> list[str]:
    """This Python's standard library folders (the zip, lib/python3.X, lib-dynload), none of its site folders."""
    bases = (sys.base_prefix, sys.base_exec_prefix)
    return [p for p in sys.path if p and inside(p, bases) and not p.rstrip(os.sep).endswith(
        ("site-packages", "dist-packages"))]


@lru_cache(maxsize=8)
def _environment(workspace: str | None) -> Any:
    from jedi.api.environment import InterpreterEnvironment

    safe = [p for p in _stdlib_paths() if workspace is None or not inside(p, (workspace,))]

    class _SafeEnvironment(InterpreterEnvironment):  # type: ignore[misc]
        """jedi in this process; the only folders it may import a compiled module from (jedi's "base sys path",
        jedi/api/project.py `_get_base_sys_path`): this Python's standard library. Not its site-packages either: an
        import there would load a library (torch: seconds, hundreds of MB) into this process."""

        def get_sys_path(self) -> list[str]:
            return safe

    return _SafeEnvironment()


@lru_cache(maxsize=8)
def _project(root: str, extra_paths: tuple[str, ...], interpreter: str | None, restricted: bool) -> Any:
    import jedi

    sys_path: list[str] | None = None
    if not restricted:  # an untrusted workspace names no environment: this process's own (as jedi's default)
        chosen = interpreter or os.environ.get("VIRTUAL_ENV") or os.environ.get("CONDA_PREFIX") or sys.executable
        sys_path = [*_stdlib_paths(), *environment_paths(chosen)]
    # added_sys_path: the `extraPaths` import roots, so jedi follows `import x` into them as the interpreter does.
    return jedi.Project(root, load_unsafe_extensions=False, sys_path=sys_path, added_sys_path=list(extra_paths))


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
                                 project=_project(root, tuple(str(p) for p in extra_paths), interpreter, restricted),
                                 environment=_environment(None if workspace is None else str(workspace)))
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
