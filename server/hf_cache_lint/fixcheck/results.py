"""A CLI result with only the fixes that pass verification (JSON/SARIF `fixes`, text `[*]`)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from hf_cache_lint.engine.base.findings import CheckResult
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.text.notebook import join_cells, read_ipynb, split_findings
from hf_cache_lint.engine.text.text import UndecodableError, decode_source
from hf_cache_lint.fixcheck.rechecks import file_recheck, notebook_recheck, recheck_key
from hf_cache_lint.fixcheck.verifier import Verifier
from hf_cache_lint.settings import Settings


def verify_result(result: CheckResult, path: Path, settings: Settings | None, context: Context | None) -> CheckResult:
    """A CLI result (from checking.files.check_file) with only the fixes that pass verification. Drops the tree
    kept under `recheck_key(result.path)` when done, whether or not a fix was verified."""
    key = recheck_key(result.path)
    try:
        return _verify_result(result, path, settings, context, key)
    finally:
        from hf_cache_lint.engine.interpreter.interp import forget

        forget(key)


def _verify_result(result: CheckResult, path: Path, settings: Settings | None, context: Context | None,
                   key: str) -> CheckResult:
    if result.error is not None or not any(f.fixes for f in result.findings):
        return result
    # The re-checks keep a parse tree of their own and re-parse only what changed since the last (a large
    # module's fixes are mostly a few keywords apart: parsing was two thirds of each re-check).
    try:
        text = decode_source(path.read_bytes())
        if path.suffix == ".ipynb":
            cells = read_ipynb(text)
            joined = join_cells(cells)
            items = split_findings(result.findings, joined)
            recheck = notebook_recheck(result.path, settings, context, key)
            notebook = True
        else:
            cells, items, notebook = [text], [(0, f) for f in result.findings], False
            recheck = file_recheck(result.path, settings, context, key, kept=text)
    except (OSError, UndecodableError, ValueError):  # it changed under us: offer no fix rather than a wrong one
        return replace(result, findings=tuple(replace(f, fixes=()) for f in result.findings))
    verifier = Verifier(cells, recheck, notebook, result.path)
    verifier.prime((cell, moved, fix) for cell, moved in items for fix in moved.fixes)
    findings = []
    for f, (cell, moved) in zip(result.findings, items, strict=True):
        ok = {x.title for x in verifier.keep(cell, moved).fixes}
        findings.append(replace(f, fixes=tuple(x for x in f.fixes if x.title in ok)))
    return replace(result, findings=tuple(findings))
