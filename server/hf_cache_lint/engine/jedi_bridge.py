"""jedi, run against the analysed interpreter, for the few names the interpreter cannot resolve.

Used only to refute: a `.generate` receiver the interpreter knows nothing about (a parameter, an
object from another module) is treated as a transformers model unless jedi finds it is something
else (a user class, vLLM, mamba_ssm). `load_unsafe_extensions=False`: jedi never runs user code.
"""

from __future__ import annotations

import logging
from functools import lru_cache
from pathlib import Path
from typing import Any

from hf_cache_lint.engine.analysis import Analysis
from hf_cache_lint.engine.findings import Finding, Span

log = logging.getLogger("hf_cache_lint")

_TRANSFORMERS_LIKE = ("transformers", "peft", "unsloth", "optimum", "trl")


@lru_cache(maxsize=8)
def _project(root: str, interpreter: str | None, extra_paths: tuple[str, ...] = ()) -> Any:
    import jedi

    env = None
    if interpreter:
        try:
            env = jedi.create_environment(interpreter, safe=False)
        except Exception:  # an interpreter jedi cannot use: fall back to the server's own
            log.info("jedi cannot use interpreter %s; using the server's", interpreter)
    # added_sys_path: the `extraPaths` import roots, so jedi follows `import x` into them as the interpreter does.
    return jedi.Project(root, environment_path=env.executable if env else None, load_unsafe_extensions=False,
                        added_sys_path=list(extra_paths))


def receiver_types(text: str, path: str, callee: Span, interpreter: str | None,
                   workspace: Path | None, extra_paths: tuple[Path, ...] = ()) -> list[tuple[str, str]]:
    """(full_name, module_name) of what jedi infers for the object before `.generate`."""
    import jedi

    line = text.splitlines()[callee.end.line - 1] if callee.end.line - 1 < len(text.splitlines()) else ""
    dot = line.rfind(".", 0, callee.end.column)
    if dot <= 0:
        return []
    root = str(workspace or (Path(path).parent if not path.startswith("<") else Path.cwd()))
    try:
        script = jedi.Script(text, path=None if path.startswith("<") else path,
                             project=_project(root, interpreter, tuple(str(p) for p in extra_paths)))
        return [(d.full_name or "", d.module_name or "") for d in script.infer(callee.end.line, dot - 1)]
    except Exception:  # jedi failing must never hide other findings
        log.exception("jedi inference failed in %s", path)
        return []


def is_foreign(text: str, path: str, callee: Span, interpreter: str | None, workspace: Path | None,
               extra_paths: tuple[Path, ...] = ()) -> bool:
    """Whether jedi resolves the receiver to something that is not a transformers-family model."""
    found = receiver_types(text, path, callee, interpreter, workspace, extra_paths)
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
                                                ctx.workspace, ctx.extra_paths)
            if verdict[call.span]:
                continue
        kept.append(f)
    return kept
