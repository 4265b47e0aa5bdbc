"""engine/output/suppress.py: the suppression comments as Ruff reads `# noqa`, and the project's own spellings."""

from __future__ import annotations

import pytest

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.base.findings import Finding, Severity, Span
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.engine.output.suppress import is_suppressed, suppressions
from hf_cache_lint.engine.text.text import apply_edits
from hf_cache_lint.settings import Settings

CONFLICT = (
    "from transformers import AutoModelForCausalLM, DynamicCache\n"
    "\n"
    'model = AutoModelForCausalLM.from_pretrained("x")\n'
    'out = model.generate(past_key_values=DynamicCache(), cache_implementation="static")'
)
CTX = Context(target=Target.of("5.23.0"))


def finding(code: str, line: int) -> Finding:
    return Finding(code, "x", "m", Severity.ERROR, Span.of(line, 0, line, 1))


@pytest.mark.parametrize(("comment", "silenced", "kept"), [
    ("# noqa", ["HFC001", "HFC004"], []),
    ("# NOQA", ["HFC001"], []),
    ("# NoQA", ["HFC001"], []),  # any case, as the pattern says (the text shortcut once missed mixed case)
    ("# NoQa: HFC001", ["HFC001"], ["HFC004"]),
    ("# noqa: HFC001", ["HFC001"], ["HFC004"]),
    ("# noqa:HFC001,HFC004", ["HFC001", "HFC004"], ["HFC002"]),
    ("# noqa: E501 HFC001", ["HFC001"], ["HFC004"]),
    ("# noqa: hfc001", ["HFC001"], ["HFC004"]),
    ("# type: ignore  # noqa: HFC001", ["HFC001"], ["HFC004"]),
    ("# hf-cache-lint: ignore[HFC001]", ["HFC001"], ["HFC004"]),
    ("# hf-cache-lint: ignore", ["HFC001", "HFC004"], []),
    ("# it's fine  # noqa: HFC001", ["HFC001"], ["HFC004"]),  # an apostrophe in the comment is no string
])
def test_line_comments(comment: str, silenced: list[str], kept: list[str]) -> None:
    table = suppressions(f"x = 1  {comment}\n")
    for code in silenced:
        assert is_suppressed(finding(code, 1), table), (comment, code)
    for code in kept:
        assert not is_suppressed(finding(code, 1), table), (comment, code)
    assert not is_suppressed(finding("HFC001", 2), table)  # only its own line


def test_a_noqa_inside_a_string_is_not_a_comment() -> None:
    assert not suppressions('x = "# noqa: HFC001"\n')
    assert not suppressions("x = '# hf-cache-lint: ignore'\n")


@pytest.mark.parametrize(("comment", "silenced", "kept"), [
    ("# hf-cache-lint: noqa", ["HFC001", "HFC007"], []),
    ("# hf-cache-lint: noqa: HFC001", ["HFC001"], ["HFC007"]),
    ("# hf-cache-lint: NOQA: HFC001, HFC007", ["HFC001", "HFC007"], ["HFC002"]),
])
def test_file_level_comments_silence_the_whole_file(comment: str, silenced: list[str], kept: list[str]) -> None:
    table = suppressions(f"{comment}\nimport x\n\n\ny = 2\n")
    for code in silenced:
        assert is_suppressed(finding(code, 5), table)
    for code in kept:
        assert not is_suppressed(finding(code, 5), table)


def test_noqa_silences_a_real_finding_and_is_not_reported_as_unused() -> None:
    assert [f.code for f in check_source(CONFLICT, "a.py", None, CTX).findings] == ["HFC001"]
    assert check_source(CONFLICT + "  # noqa: HFC001\n", "a.py", None, CTX).findings == ()
    assert check_source(CONFLICT + "  # noqa\n", "a.py", None, CTX).findings == ()
    assert check_source("# hf-cache-lint: noqa: HFC001\n" + CONFLICT, "a.py", None, CTX).findings == ()
    on = Settings(extend_select=("HFC100",))
    assert check_source(CONFLICT + "  # noqa: HFC001\n", "a.py", on, CTX).findings == ()


def test_hfc100_is_off_unless_selected() -> None:
    text = "x = 1  # noqa: HFC001\n"
    assert check_source(text, "a.py", None, CTX).findings == ()
    [f] = check_source(text, "a.py", Settings(extend_select=("HFC100",)), CTX).findings
    assert (f.code, f.severity, f.message) == ("HFC100", Severity.WARNING, "Unused suppression (unused: `HFC001`)")
    assert check_source(text, "a.py", Settings(select=("HFC",)), CTX).findings  # a prefix selects it too


def test_hfc100_reports_in_a_file_no_other_rule_reads() -> None:
    # The prefilter skips such a file for every other rule; the stale comment is still there to report.
    on = Settings(extend_select=("HFC100",))
    [f] = check_source("import os  # hf-cache-lint: ignore[HFC01]\n", "a.py", on, CTX).findings
    assert "unknown: `HFC01`" in f.message


def test_hfc100_leaves_codes_of_rules_not_enabled_in_this_run() -> None:
    # HFC006 is off in the CLI and on in editors: its comment must survive a CLI --fix.
    text = "x = 1  # noqa: HFC006\n"
    on = Settings(extend_select=("HFC100",), quiet=("HFC006",))
    assert check_source(text, "a.py", on, CTX).findings == ()


def test_a_comment_can_silence_hfc100_on_another_comment() -> None:
    text = "# hf-cache-lint: noqa: HFC100\nx = 1  # noqa: HFC001\n"
    assert check_source(text, "a.py", Settings(extend_select=("HFC100",)), CTX).findings == ()


@pytest.mark.parametrize(("line", "fixed"), [
    ("x = 1  # noqa: HFC001\n", "x = 1\n"),
    ("x = 1  # noqa: HFC001 the old conflict\n", "x = 1  # the old conflict\n"),
    ("x = 1  # noqa: HFC001  # type: ignore\n", "x = 1  # type: ignore\n"),
    ("x = 1  # noqa: HFC001, E501\n", "x = 1  # noqa: E501\n"),
    ("x = 1  # hf-cache-lint: ignore[HFC001, HFC004]\n", "x = 1\n"),
    ("x = 1  # hf-cache-lint: ignore\n", "x = 1\n"),
    ("# hf-cache-lint: noqa: HFC001\nx = 1\n", "x = 1\n"),
    ("x = 1\n# hf-cache-lint: noqa: HFC001", "x = 1\n"),
])
def test_the_fix_removes_the_stale_part_and_leaves_code_intact(line: str, fixed: str) -> None:
    on = Settings(extend_select=("HFC100",))
    [f] = check_source(line, "a.py", on, CTX).findings
    [fix] = f.fixes
    assert fix.title == "Remove unused suppression" and fix.preferred
    assert apply_edits(line, fix.edits) == fixed
    assert check_source(fixed, "a.py", on, CTX).findings == ()
