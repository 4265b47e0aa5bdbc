"""`hf-cache-lint check`: every format, the rule-selection flags and the exit statuses."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from cli_helpers import (
    CLEAN,
    CONFLICT,
    CONFLICT_COL,
    CONFLICT_END_COL,
    CONFLICT_ROW,
    PREFERRED_TITLE,
    TARGET,
    TARGET_LINE,
    RunFn,
    write,
)


def test_text_format_prints_ruff_like_line_snippet_and_summary(project: Path, run: RunFn) -> None:
    write(project / "demo.py", CONFLICT)
    r = run("check", "demo.py")
    assert r.code == 1
    lines = r.out.splitlines()
    assert lines[0].startswith(f"demo.py:{CONFLICT_ROW}:{CONFLICT_COL}: HFC001 [*] ")
    assert lines[1:4] == [
        "  |",
        f"{CONFLICT_ROW} | " + CONFLICT.splitlines()[3],
        "  | " + " " * (CONFLICT_COL - 1) + "^" * (CONFLICT_END_COL - CONFLICT_COL) + " HFC001",
    ]
    assert f"  = help: {PREFERRED_TITLE}" in lines
    assert lines[-1] == "Found 1 error (1 fixable with --fix)."
    assert r.err == ""


def test_clean_file_passes_with_exit_0(project: Path, run: RunFn) -> None:
    write(project / "ok.py", CLEAN)
    r = run("check", "ok.py")
    assert (r.code, r.out) == (0, TARGET_LINE + "All checks passed!\n")


def test_json_format_matches_the_contract(project: Path, run: RunFn) -> None:
    write(project / "demo.py", CONFLICT)
    r = run("check", "--format", "json", "demo.py")
    assert r.code == 1
    [f] = r.json()
    assert list(f)[:5] == ["code", "name", "message", "severity", "filename"]
    assert set(f) == {"code", "name", "message", "severity", "filename", "location", "end_location", "url",
                      "fixes", "related"}
    assert (f["code"], f["name"], f["severity"], f["filename"]) == ("HFC001", "cache-conflict", "error", "demo.py")
    assert f["location"] == {"row": CONFLICT_ROW, "column": CONFLICT_COL}
    assert f["end_location"] == {"row": CONFLICT_ROW, "column": CONFLICT_END_COL}
    assert f["url"].endswith("docs/rules/HFC001.md")
    titles = [fix["title"] for fix in f["fixes"]]
    assert titles[0] == PREFERRED_TITLE
    assert "Ignore HFC001 on this line" in titles
    for fix in f["fixes"]:
        for edit in fix["edits"]:
            assert set(edit) == {"content", "location", "end_location"}
            assert edit["location"]["row"] >= 1 and edit["location"]["column"] >= 1
    for rel in f["related"]:
        assert {"filename", "location", "message"} <= set(rel)


def test_json_format_prints_empty_array_when_clean(project: Path, run: RunFn) -> None:
    write(project / "ok.py", CLEAN)
    r = run("check", "--format", "json")
    assert (r.code, r.json()) == (0, [])


def test_github_format_prints_workflow_command(project: Path, run: RunFn) -> None:
    write(project / "demo.py", CONFLICT)
    r = run("check", "--format", "github", "demo.py")
    [line] = r.out.splitlines()
    head, message = line.split("::", 2)[1:]
    assert head == (f"error file=demo.py,line={CONFLICT_ROW},col={CONFLICT_COL},endLine={CONFLICT_ROW},"
                    f"endColumn={CONFLICT_END_COL},title=HFC001 cache-conflict")
    assert "cache_implementation" in message and "\n" not in message
    assert r.code == 1


def test_sarif_format_has_rules_results_and_fixes(project: Path, run: RunFn) -> None:
    write(project / "demo.py", CONFLICT)
    r = run("check", "--format", "sarif", "demo.py")
    log = r.json()
    assert log["version"] == "2.1.0"
    [sarif_run] = log["runs"]
    driver = sarif_run["tool"]["driver"]
    assert driver["name"] == "hf-cache-lint"
    rule = next(x for x in driver["rules"] if x["id"] == "HFC001")
    assert rule["name"] == "cache-conflict" and rule["helpUri"].endswith("HFC001.md")
    assert rule["fullDescription"]["text"]
    [result] = sarif_run["results"]
    assert (result["ruleId"], result["level"]) == ("HFC001", "error")
    assert driver["rules"][result["ruleIndex"]]["id"] == "HFC001"
    [loc] = result["locations"]
    assert loc["physicalLocation"]["artifactLocation"]["uri"] == "demo.py"
    assert loc["physicalLocation"]["region"] == {"startLine": CONFLICT_ROW, "startColumn": CONFLICT_COL,
                                                 "endLine": CONFLICT_ROW, "endColumn": CONFLICT_END_COL}
    assert result["fixes"][0]["description"]["text"] == PREFERRED_TITLE
    assert sarif_run["columnKind"] == "unicodeCodePoints"


def test_select_and_ignore_flags_choose_rules(project: Path, run: RunFn) -> None:
    write(project / "demo.py", CONFLICT)
    assert run("check", "--select", "HFC001", "demo.py").code == 1
    assert run("check", "--select", "hfc00", "demo.py").code == 1
    assert run("check", "--select", "HFC002", "demo.py").code == 0
    assert run("check", "--ignore", "HFC001", "demo.py").code == 0
    assert run("check", "--select", "HFC001", "--ignore", "HFC001", "demo.py").code == 0


def test_bad_rule_code_is_a_usage_error(project: Path, run: RunFn) -> None:
    write(project / "demo.py", CONFLICT)
    r = run("check", "--select", "E501", "demo.py")
    assert r.code == 2
    assert "E501" in r.err and r.out == ""


def test_exit_zero_keeps_findings_but_exits_0(project: Path, run: RunFn) -> None:
    write(project / "demo.py", CONFLICT)
    r = run("check", "--exit-zero", "--format", "json", "demo.py")
    assert r.code == 0 and len(r.json()) == 1


def test_transformers_version_flag_reaches_the_engine(project: Path, run: RunFn) -> None:
    # Before 4.39 generate raised nothing when both met (docs/facts.md §1), so there is nothing to report.
    write(project / "demo.py", CONFLICT)
    assert run("check", "--transformers-version", "4.30.0", "demo.py").code == 0
    assert run("check", "--transformers-version", "5.23.0", "demo.py").code == 1


def test_invalid_transformers_version_is_a_usage_error(project: Path, run: RunFn) -> None:
    write(project / "demo.py", CONFLICT)
    r = run("check", "--transformers-version", "latest", "demo.py")
    assert r.code == 2 and "latest" in r.err


def test_interpreter_flag_must_exist(project: Path, run: RunFn) -> None:
    write(project / "demo.py", CONFLICT)
    r = run("check", "--interpreter", str(project / "no-such-python"), "demo.py")
    assert r.code == 2 and "interpreter not found" in r.err


@pytest.mark.skipif(importlib.util.find_spec("transformers") is not None,
                    reason="this environment has transformers: its version would be the target")
def test_interpreter_without_transformers_falls_back_and_says_so(project: Path, run: RunFn) -> None:

    write(project / "demo.py", CONFLICT)
    write(project / "pyproject.toml", '[project]\nname = "demo"\n')  # no transformers-version: nothing decides
    r = run("check", "--interpreter", sys.executable, "--format", "json", "demo.py")
    # No transformers for this interpreter (nor anywhere else): the newest known, with a note on stderr.
    assert r.code == 1 and len(r.json()) == 1
    assert "no transformers installed" in r.err and "the newest release hf-cache-lint knows" in r.err


def test_the_setting_wins_over_the_interpreters_transformers(project: Path, run: RunFn, tmp_path: Path) -> None:
    """Issue 30: an explicit target wins; the installed one decides only when none is set."""
    site = tmp_path / "env" / "lib" / "python3.11" / "site-packages" / "transformers-4.57.6.dist-info"
    site.mkdir(parents=True)
    (tmp_path / "env" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    python = tmp_path / "env" / "bin" / "python"
    python.parent.mkdir()
    python.symlink_to(sys.executable)
    write(project / "demo.py", CONFLICT)
    assert f"Target: transformers {TARGET} (transformers-version in" in run("check", "--interpreter", str(python),
                                                                           "demo.py").out
    write(project / "pyproject.toml", '[project]\nname = "demo"\n')
    assert f"Target: transformers 4.57.6 (installed for {python})" in run("check", "--interpreter", str(python),
                                                                          "demo.py").out


def test_unknown_format_is_a_usage_error(project: Path, run: RunFn) -> None:
    r = run("check", "--format", "xml")
    assert r.code == 2 and "xml" in r.err


def test_default_path_is_the_current_folder_and_findings_are_ordered(project: Path, run: RunFn) -> None:
    write(project / "b.py", CONFLICT)
    write(project / "a" / "z.py", CONFLICT)
    write(project / "a.py", CONFLICT)
    r = run("check", "--format", "json")
    assert [f["filename"] for f in r.json()] == ["a/z.py", "a.py", "b.py"]


def test_suppression_comments_silence_findings(project: Path, run: RunFn) -> None:
    lines = CONFLICT.splitlines()
    coded = "\n".join([*lines[:3], lines[3] + "  # hf-cache-lint: ignore[HFC001]"]) + "\n"
    bare = "\n".join([*lines[:3], lines[3] + "  # hf-cache-lint: ignore"]) + "\n"
    other = "\n".join([*lines[:3], lines[3] + "  # hf-cache-lint: ignore[HFC002]"]) + "\n"
    write(project / "coded.py", coded)
    write(project / "bare.py", bare)
    write(project / "other.py", other)
    r = run("check", "--format", "json")
    assert [f["filename"] for f in r.json()] == ["other.py"]


def test_ignore_fix_inserts_a_comment_that_silences(project: Path, run: RunFn) -> None:
    from cli_helpers import edits_from_json

    from hf_cache_lint.engine.text.text import apply_edits

    write(project / "demo.py", CONFLICT)
    [f] = run("check", "--format", "json", "demo.py").json()
    ignore = next(x for x in f["fixes"] if x["title"] == "Ignore HFC001 on this line")
    write(project / "demo.py", apply_edits(CONFLICT, edits_from_json(ignore["edits"])))
    assert "# hf-cache-lint: ignore[HFC001]" in (project / "demo.py").read_text()
    assert run("check", "demo.py").code == 0


@pytest.mark.parametrize("flag", ["--select", "--extend-select", "--ignore"])
def test_a_mistyped_code_in_a_flag_is_a_usage_error_with_a_did_you_mean(project: Path, run: RunFn, flag: str) -> None:
    # Ruff rejects an unknown code; before, `--select HFC01` printed "All checks passed!" and exited 0.
    write(project / "demo.py", CONFLICT)
    r = run("check", flag, "HFC01", "demo.py")
    assert r.code == 2 and r.out == ""
    assert f"argument {flag}: unknown rule code or prefix 'HFC01'; did you mean 'HFC001'?" in r.err


def test_noqa_silences_and_hfc100_fix_removes_a_stale_one(project: Path, run: RunFn) -> None:
    write(project / "demo.py", CONFLICT.rstrip("\n") + "  # noqa: HFC001\n")
    write(project / "stale.py", "import os  # noqa: HFC001, E501\n")
    assert run("check").code == 0  # HFC100 is opt-in, as Ruff's RUF100
    r = run("check", "--extend-select", "HFC100", "--format", "json")
    assert r.code == 1 and [(f["code"], f["filename"]) for f in r.json()] == [("HFC100", "stale.py")]
    assert run("check", "--extend-select", "HFC100", "--fix").code == 0
    assert (project / "stale.py").read_text() == "import os  # noqa: E501\n"
    assert (project / "demo.py").read_text().endswith("  # noqa: HFC001\n")
