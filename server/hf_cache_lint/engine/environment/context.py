"""Where an analysis runs: target transformers version, workspace root, Hugging Face cache dirs."""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from hf_cache_lint.engine.environment.confine import real
from hf_cache_lint.engine.environment.target import Target

if TYPE_CHECKING:
    from hf_cache_lint.engine.environment.target_plan import TargetPlan

log = logging.getLogger("hf_cache_lint")


@dataclass(frozen=True)
class Context:
    """Everything outside the source text that an analysis may consult (all read-only)."""

    target: Target = field(default_factory=lambda: Target.of(None))
    workspace: Path | None = None
    hf_hub_cache: Path | None = None
    interpreter: str | None = None
    # Where the target version came from: "setting", "environment", "requirement" or "default" (hovers);
    # `plan` says it in full (the requirement, the file, every release a range is checked at).
    version_source: str = "default"
    # Extra import roots (absolute, inside the workspace): where `import x` also looks for workspace
    # modules, for cross-module facts and for jedi (the `extraPaths` setting, e.g. a src/ layout).
    extra_paths: tuple[Path, ...] = ()
    # An untrusted workspace: no interpreter is run at all (no version probe, jedi infers in-process).
    restricted: bool = False
    plan: TargetPlan | None = None

    def describe_target(self) -> str:
        """`transformers 4.57.6 (installed in .venv)`: what this context's target is and where it came from (of a
        range, the one release this context checks at; the CLI names every release it checks, TargetPlan.describe)."""
        plan = self.plan
        if plan is not None and plan.primary == self.target:
            if plan.is_range:
                return f"transformers {self.target} (the newest release `transformers{plan.spec}` ({plan.origin}) admits)"
            return plan.describe()
        return f"transformers {self.target} ({self.version_source})"


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


def installed_transformers(interpreter: str | None) -> str | None:
    """The transformers version installed for `interpreter`, read from its environment's files: the interpreter
    is never started (a venv's `.pth` files and `sitecustomize` would run, issue 33; engine/environment/environments.py)."""
    if not interpreter:
        return None
    from hf_cache_lint.engine.environment.environments import of_interpreter

    return of_interpreter(interpreter)


def resolve_context(
    *, transformers_version: str | None = None, interpreter: str | None = None, workspace: Path | None = None,
    extra_paths: Sequence[str] = (),
    restricted: bool = False,
    setting_origin: str = "the transformersVersion setting",
    project: Path | None = None,
    environ: Mapping[str, str] | None = None,
    own_environment: bool = True,
) -> Context:
    """The target (engine/environment/target_plan.py): the setting, else the transformers installed where the code runs,
    else the project's requirement (`project`: the folder whose venv and requirement files are read; the
    workspace when not given), else the newest known. Nothing is run to find it.

    `restricted` (an untrusted workspace): the interpreter is not kept (jedi then runs in-process)."""
    from hf_cache_lint.engine.environment.target_plan import resolve

    if restricted:
        interpreter = None
    plan = resolve(setting=transformers_version, setting_origin=setting_origin, interpreter=interpreter,
                   environ=environ, root=project if project is not None else workspace,
                   own_environment=own_environment)
    return Context(target=plan.primary, workspace=workspace, hf_hub_cache=default_hub_cache(),
                   interpreter=interpreter, version_source=plan.kind, restricted=restricted,
                   extra_paths=import_roots(extra_paths, workspace), plan=plan)
