"""Every rule's VALID and INVALID examples, for every checked transformers version."""

from __future__ import annotations

from pathlib import Path

import pytest

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.base.findings import Finding
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.engine.text.text import apply_edits
from hf_cache_lint.fixcheck import Verifier, compiles, file_recheck
from hf_cache_lint.rules import ALL_RULES
from hf_cache_lint.rules.base import CHECKED_VERSIONS, Invalid, Rule, Valid
from hf_cache_lint.settings import Settings

CASES = [
    pytest.param(rule, ex, v, id=f"{rule.code}-{kind}{i}-{v}")
    for rule in ALL_RULES
    for kind, examples in (("invalid", rule.invalid), ("valid", rule.valid))
    for i, ex in enumerate(examples)
    for v in CHECKED_VERSIONS
    if isinstance(ex, Invalid) or v in ex.versions
]


def run(rule: Rule, ex: Valid | Invalid, version: str, tmp_path: Path) -> list[Finding]:
    return [f for f in check_source(ex.code, *where(ex, version, tmp_path, rule)).findings if f.code == rule.code]


def where(ex: Valid | Invalid, version: str, tmp_path: Path,
          rule: Rule | None = None) -> tuple[str, Settings | None, Context]:
    """(path, settings, context) the example is checked with, its files written beside it; the defaults, with
    an opt-in rule (HFC100) selected on top."""
    for rel, content in ex.files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(content)
    path = tmp_path / "example.py"
    path.write_text(ex.code)
    settings = Settings(extend_select=(rule.code,)) if rule is not None and not rule.default_enabled else None
    return str(path), settings, Context(target=Target.of(version), workspace=tmp_path)


def flagged_span_text(code: str, f: Finding) -> str:
    lines = code.splitlines(keepends=True)
    start = sum(len(x) for x in lines[: f.span.start.line - 1]) + f.span.start.column
    end = sum(len(x) for x in lines[: f.span.end.line - 1]) + f.span.end.column
    return code[start:end]


@pytest.mark.parametrize(("rule", "ex", "version"), CASES)
def test_example(rule: Rule, ex: Valid | Invalid, version: str, tmp_path: Path) -> None:
    findings = run(rule, ex, version, tmp_path)
    if isinstance(ex, Valid) or version not in ex.versions:  # clean where it is not flagged
        assert findings == [], f"unexpected {rule.code} on {version}: {[f.message for f in findings]}"
        return
    assert len(findings) == 1, f"expected one {rule.code} on {version}, got {[f.message for f in findings]}"
    f = findings[0]
    start = 0
    for _ in range(ex.occurrence + 1):
        start = ex.code.index(ex.flagged, start) + (1 if _ < ex.occurrence else 0)
    assert flagged_span_text(ex.code, f) == ex.flagged
    assert f.severity == ex.severity_on(version, rule.default_severity)
    assert ex.message_contains in f.message
    assert f.url.endswith(f"docs/rules/{rule.code}.md")
    if version == ex.versions[0]:
        titles = [fix.title for fix in f.fixes]
        verifier = Verifier([ex.code], file_recheck(*where(ex, version, tmp_path, rule)))
        for title, expected in ex.fixed.items():
            assert title in titles, f"fix {title!r} not offered: {titles}"
            fix = next(x for x in f.fixes if x.title == title)
            assert apply_edits(ex.code, fix.edits) == expected
            # What the user gets must compile, and pass the same verification the CLI and server apply.
            assert compiles(expected), f"fixed text of {title!r} does not compile"
            assert verifier.problem(0, f, fix) is None, f"{title!r}: {verifier.problem(0, f, fix)}"
        if f.fixes:
            assert f.fixes[0].preferred and sum(x.preferred for x in f.fixes) == 1
            assert ex.fixed, f"{rule.code} INVALID example {ex.note!r} pins no fix result"
        else:
            assert not ex.fixed, "the example pins fixes the finding does not offer"


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda r: r.code)
def test_rule_has_docs_sections_and_enough_examples(rule: Rule) -> None:
    for heading in ("## What it does", "## Why is this bad?", "## Example", "## Use instead", "## Fix safety",
                    "## Versions"):
        assert heading in rule.docs, f"{rule.code} docs lack {heading}"
    assert rule.invalid and rule.valid
    # A fix result is pinned wherever a finding offers fixes (test_example); some findings have none to offer.
    assert any(ex.fixed for ex in rule.invalid), f"{rule.code} pins no fix result at all"
