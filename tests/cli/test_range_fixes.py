"""Issue 30 item 4 over every rule's INVALID example: fixing for a range of releases never introduces what some
admitted release lacks. Each example is fixed with the range's recheck (cli_support/fixer.py: a fix applies only
when it is the same on every release where its finding fails), then checked at every admitted release: an Error
or Warning there that the unfixed code did not have is on text the unfixed code already held (a fix can uncover
what another finding hid: a `cache=` under a conflict that raises first), never on text a fix wrote."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.cli_support.fixer import _recheck, fix_cells
from hf_cache_lint.engine.base.findings import Severity
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.target_plan import plan_for
from hf_cache_lint.fixcheck import file_recheck
from hf_cache_lint.rules import ALL_RULES
from hf_cache_lint.settings import Settings

PLAN = plan_for(">=4.45,<6", "test", "setting")
EXAMPLES = [pytest.param(ex.code, id=f"{rule.code}-{i}") for rule in ALL_RULES for i, ex in enumerate(rule.invalid)
            if not ex.files]
FAILING = (Severity.ERROR, Severity.WARNING)


def failing(text: str, path: str, context: Context) -> Counter[str]:
    return Counter(f.code for f in check_source(text, path, Settings(), context).findings if f.severity in FAILING)


def flagged(text: str, path: str, context: Context) -> set[tuple[str, str]]:
    """(code, the text under the finding's first line) of every Error or Warning."""
    lines = text.splitlines()
    out = set()
    for f in check_source(text, path, Settings(), context).findings:
        if f.severity in FAILING:
            line = lines[f.span.start.line - 1]
            end = f.span.end.column if f.span.end.line == f.span.start.line else len(line)
            out.add((f.code, line[f.span.start.column:end]))
    return out


@pytest.mark.parametrize("code", EXAMPLES)
def test_a_range_fix_runs_on_every_admitted_release(code: str, tmp_path: Path) -> None:
    path = str(tmp_path / "example.py")
    context = Context(target=PLAN.primary, workspace=tmp_path, plan=PLAN)
    recheck, guard = _recheck(file_recheck, path, Settings(), context)
    (fixed,), _ = fix_cells([code], recheck, path=path, guard=guard)
    for release in PLAN.releases:
        at = Context(target=release, workspace=tmp_path)
        new = flagged(fixed, path, at) - flagged(code, path, at)
        written = [(c, text) for c, text in new if text not in code]
        assert not written, (str(release), written, fixed)


def test_the_range_fix_keeps_the_keyword_every_release_takes(tmp_path: Path) -> None:
    """The check above can fail: fixed for 5.24 alone, the typo becomes `cache=`, which 4.x rejects."""
    code = ("from transformers import AutoModelForCausalLM, DynamicCache\n"
            'model = AutoModelForCausalLM.from_pretrained("x")\n'
            "model.generate(past_key_value=DynamicCache())\n")
    path = str(tmp_path / "example.py")
    newest = Context(target=PLAN.primary, workspace=tmp_path)
    (alone,), _ = fix_cells([code], file_recheck(path, Settings(), newest), path=path)
    assert "cache=DynamicCache()" in alone and "past_key_values" not in alone
    old = Context(target=PLAN.releases[0], workspace=tmp_path)
    assert failing(alone, path, old)["HFC003"] == 1  # 4.45 rejects `cache=`
    context = Context(target=PLAN.primary, workspace=tmp_path, plan=PLAN)
    recheck, guard = _recheck(file_recheck, path, Settings(), context)
    (ranged,), _ = fix_cells([code], recheck, path=path, guard=guard)
    assert "past_key_values=DynamicCache()" in ranged and not failing(ranged, path, old)
