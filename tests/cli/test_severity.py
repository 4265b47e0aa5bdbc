"""Deprecations (HFC006) in the CLI: off unless selected, counted by severity, never a failing exit."""

from __future__ import annotations

from pathlib import Path

from cli_helpers import CLEAN, CONFLICT, TARGET, TARGET_LINE, RunFn, pyproject_text, write

from hf_cache_lint.cli_support.discovery import SourceFile
from hf_cache_lint.cli_support.formats import text
from hf_cache_lint.cli_support.report import build_report
from hf_cache_lint.engine.base.findings import CheckResult, Finding, Severity, Span

# CLEAN's `past_key_values=` is deprecated at 5.24 (works, with a FutureWarning): a hint and nothing else.
V524 = ("--transformers-version", "5.24.0")


def test_deprecation_is_off_by_default_in_the_cli(project: Path, run: RunFn) -> None:
    write(project / "ok.py", CLEAN)
    r = run("check", *V524, "ok.py")
    assert (r.code, r.out) == (0, "Target: transformers 5.24.0 (--transformers-version)\nAll checks passed!\n")


def test_extend_select_shows_the_deprecation_as_a_hint_and_still_exits_0(project: Path, run: RunFn) -> None:
    write(project / "ok.py", CLEAN)
    r = run("check", *V524, "--extend-select", "HFC006", "ok.py")
    assert r.code == 0
    # No [*]: its fix, the rename to `cache=`, is unsafe (it fails before 5.24); the summary says how to get it.
    assert r.out.splitlines()[0].startswith("ok.py:4:22: HFC006 `past_key_values=` is deprecated in "
                                            "transformers 5.24.0")
    assert r.out.splitlines()[-1] == "Found 1 hint (1 more with --unsafe-fixes)."
    [f] = run("check", *V524, "--extend-select", "HFC006", "--format", "json", "ok.py").json()
    assert (f["code"], f["name"], f["severity"]) == ("HFC006", "deprecated-cache-usage", "hint")
    assert f["fixes"][0]["title"] == "Rename to `cache=`"


def test_select_names_the_deprecation_rule_alone(project: Path, run: RunFn) -> None:
    write(project / "demo.py", CONFLICT)
    write(project / "ok.py", CLEAN)
    r = run("check", *V524, "--select", "HFC006", "--format", "json", ".")
    # The conflict's own `past_key_values=` is covered by an Error only when HFC001 runs: here it does not.
    assert sorted((f["filename"], f["code"]) for f in r.json()) == [("demo.py", "HFC006"), ("ok.py", "HFC006")]
    assert r.code == 0


def test_pyproject_extend_select_turns_it_on_and_ignore_wins(project: Path, run: RunFn) -> None:
    write(project / "pyproject.toml", pyproject_text('transformers-version = "5.24.0"\nextend-select = ["HFC006"]'))
    write(project / "ok.py", CLEAN)
    assert [f["code"] for f in run("check", "--format", "json", "ok.py").json()] == ["HFC006"]
    assert run("check", "--ignore", "HFC006", "ok.py").out == TARGET_LINE.replace(TARGET, "5.24.0") + \
        "All checks passed!\n"


def test_a_deprecation_is_not_stacked_on_the_error_of_the_same_keyword(project: Path, run: RunFn) -> None:
    write(project / "demo.py", CONFLICT)
    r = run("check", *V524, "--extend-select", "HFC006", "--format", "json", "demo.py")
    assert [f["code"] for f in r.json()] == ["HFC001"]
    assert r.code == 1


def test_a_hint_fails_the_run_only_when_the_user_raises_its_severity(project: Path, run: RunFn) -> None:
    write(project / "pyproject.toml", pyproject_text(
        'transformers-version = "5.24.0"\nextend-select = ["HFC006"]\nseverity = {HFC006 = "warning"}'))
    write(project / "ok.py", CLEAN)
    r = run("check", "ok.py")
    assert (r.code, r.out.splitlines()[-1]) == (1, "Found 1 warning (1 more with --unsafe-fixes).")


def _finding(line: int, severity: Severity) -> Finding:
    return Finding("HFC001", "cache-conflict", "boom", severity, Span.of(line, 0, line, 1))


def test_summary_counts_each_severity_in_plain_english(tmp_path: Path) -> None:
    p = write(tmp_path / "s.py", "a\nb\nc\nd\ne\n")

    def summary(*severities: Severity) -> str:
        found = tuple(_finding(i + 1, s) for i, s in enumerate(severities))
        return text.summary(build_report([SourceFile(p, "s.py")], [CheckResult("s.py", found)]))

    e, w, i, h = Severity.ERROR, Severity.WARNING, Severity.INFO, Severity.HINT
    assert summary(e, e, w) == "Found 2 errors and 1 warning."
    assert summary(w, w) == "Found 2 warnings."
    assert summary(e, w, h, h) == "Found 1 error, 1 warning and 2 hints."
    assert summary(i) == "Found 1 info finding."
    assert summary(h, e) == "Found 1 error and 1 hint."


def test_only_errors_and_warnings_fail_the_report(tmp_path: Path) -> None:
    p = write(tmp_path / "s.py", "a\n")
    for severity, fails in ((Severity.ERROR, True), (Severity.WARNING, True), (Severity.INFO, False),
                            (Severity.HINT, False)):
        report = build_report([SourceFile(p, "s.py")], [CheckResult("s.py", (_finding(1, severity),))])
        assert report.fails is fails, severity
