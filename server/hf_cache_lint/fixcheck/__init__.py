"""Fixes are verified before they are offered or written, as Ruff does: the fixed text must parse, and
checking it again must no longer report the finding at that place. A fix that fails is dropped and
logged, never applied. Also the one chooser of non-overlapping fixes that `--fix` and fixAll share.

This is orchestration, not analysis: it runs checks, so it sits above engine/ and rules/ (engine/ knows
no rules); the CLI (JSON/SARIF `fixes`, `--fix`) and the language server (code actions, fixAll) call it.

A "source" here is a list of cells: a file is one cell; a notebook's code cells are checked as one
module and its findings (and their fixes) are in the coordinates of one cell.

Parts: rechecks.py (checking a fixed text again), parses.py (does it still parse), places.py (positions through
the edits), verifier.py (`Verifier`: one fix alone, or many in a few checks), results.py (a CLI result's fixes),
choice.py (the fixes applied together).
"""

from hf_cache_lint.fixcheck.choice import apply_chosen, choose, conflicts, fix_pass, preferred
from hf_cache_lint.fixcheck.parses import compiles, python_cell, still_parses
from hf_cache_lint.fixcheck.rechecks import Recheck, file_recheck, notebook_recheck, recheck_key
from hf_cache_lint.fixcheck.results import verify_result
from hf_cache_lint.fixcheck.verifier import Verifier, verified

__all__ = [
    "Recheck", "Verifier", "apply_chosen", "choose", "compiles", "conflicts", "file_recheck", "fix_pass",
    "notebook_recheck", "preferred", "python_cell", "recheck_key", "still_parses", "verified", "verify_result",
]
