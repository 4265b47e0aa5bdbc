"""Where an analysis runs: target transformers version, workspace root, Hugging Face cache dirs."""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from hf_cache_lint.engine.confine import real
from hf_cache_lint.engine.versions import Target

log = logging.getLogger("hf_cache_lint")


@dataclass(frozen=True)
class Context:
    """Everything outside the source text that an analysis may consult (all read-only)."""

    target: Target = field(default_factory=lambda: Target.of(None))
    workspace: Path | None = None
    hf_hub_cache: Path | None = None
    interpreter: str | None = None
    # Where the target version came from: "environment", "setting" or "default" (shown in hovers).
    version_source: str = "default"
    # Extra import roots (absolute, inside the workspace): where `import x` also looks for workspace
    # modules, for cross-module facts and for jedi (the `extraPaths` setting, e.g. a src/ layout).
    extra_paths: tuple[Path, ...] = ()
    # An untrusted workspace: no interpreter is run at all (no version probe, jedi infers in-process).
    restricted: bool = False


def import_roots(extra_paths: Sequence[str], workspace: Path | None) -> tuple[Path, ...]:
    """`extraPaths` as absolute folders: relative entries are relative to the workspace; entries outside
    the workspace are dropped (the analysis reads nothing outside the workspace and the HF cache)."""
    if workspace is None:
        return ()
    base = Path(real(workspace))
    roots: list[Path] = []
    for entry in extra_paths:
        path = Path(real(base / Path(entry).expanduser()))  # realpath: a symlink loop must not raise
        if path == base or base in path.parents:
            if path not in roots:
                roots.append(path)
        else:
            log.warning("ignoring extraPaths entry %r: outside the workspace %s", entry, base)
    return tuple(roots)


def default_hub_cache() -> Path:
    """The Hugging Face hub cache, as huggingface_hub resolves it (HF_HUB_CACHE, HF_HOME, ~/.cache)."""
    if os.environ.get("HF_HUB_CACHE"):
        return Path(os.environ["HF_HUB_CACHE"])
    home = os.environ.get("HF_HOME") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "huggingface"
    )
    return Path(home) / "hub"


@lru_cache(maxsize=16)
def installed_transformers(interpreter: str | None) -> str | None:
    """The transformers version installed for `interpreter`, read from dist-info (never imported).

    Asking the interpreter for its site-packages runs only the standard library's `sysconfig`.
    """
    if not interpreter:
        return None
    import subprocess  # only with an interpreter: ~5 ms of every other start

    try:
        out = subprocess.run(
            [interpreter, "-I", "-c", "import site,sysconfig;print(sysconfig.get_paths()['purelib']);"
             "print('\\n'.join(site.getsitepackages()))"],
            # stdin not inherited: in the language server it is the protocol stream (lsp/wire.py reads it on
            # the event loop), and a child must never take its bytes.
            stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=10, check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    for line in out.splitlines():
        for dist in sorted(Path(line.strip()).glob("transformers-*.dist-info")) if line.strip() else ():
            return dist.name[len("transformers-"):-len(".dist-info")]
    return None


def resolve_context(
    *, transformers_version: str | None = None, interpreter: str | None = None, workspace: Path | None = None,
    extra_paths: Sequence[str] = (),
    restricted: bool = False,
) -> Context:
    """Target version: installed in the interpreter's environment, else the setting, else the newest known.

    `restricted` (an untrusted workspace): the interpreter is neither run nor kept.
    """
    if restricted:
        interpreter = None
    found = installed_transformers(interpreter)
    if found:
        target, source = Target.of(found), "environment"
    elif transformers_version:
        target, source = Target.of(transformers_version), "setting"
    else:
        target, source = Target.of(None), "default"
    return Context(target=target, workspace=workspace, hf_hub_cache=default_hub_cache(),
                   interpreter=interpreter, version_source=source, restricted=restricted,
                   extra_paths=import_roots(extra_paths, workspace))
