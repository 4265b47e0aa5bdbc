"""`check`'s output flags against snapshots (tests/cli/snapshots/, rewritten with HFC_UPDATE_SNAPSHOTS=1 and
then reviewed in the diff): every --output-format, --statistics, --quiet/--silent, --output-file, colour,
--diff/--show-fixes, stdin, --show-settings, --watch; SARIF validated against the SARIF 2.1.0 schema."""

from __future__ import annotations

import io
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from cli_helpers import CONFLICT, CONFLICT_FIXED, RunFn, notebook, write

SNAPSHOTS = Path(__file__).parent / "snapshots"
SARIF_SCHEMA = json.loads((Path(__file__).parents[1] / "data" / "sarif" / "sarif-2.1.0-subset.schema.json")
                          .read_text(encoding="utf-8"))
# The OASIS schema itself, fetched by scripts/fetch-sarif-schema.sh (scripts/test-all.sh runs it).
OASIS_SARIF_SCHEMA = Path(__file__).parents[2] / ".cache" / "sarif" / "sarif-2.1.0-rtm.5.json"
NB_CONFLICT = notebook(("markdown", "# Demo\n"), ("code", CONFLICT.split("\n\n", 1)[0] + "\n"),
                       ("code", CONFLICT.split("\n\n", 1)[1]))


def _normalised(text: str, root: Path) -> str:
    """Machine-specific parts out: the project folder and the tool's version."""
    from hf_cache_lint import __version__

    text = text.replace(root.as_uri(), "file:///PROJECT").replace(str(root), "/PROJECT")
    return re.sub(rf'"{re.escape(__version__)}"', '"VERSION"', text)


def snapshot(name: str, text: str) -> None:
    path = SNAPSHOTS / name
    if os.environ.get("HFC_UPDATE_SNAPSHOTS"):
        path.write_text(text, encoding="utf-8")
    assert path.is_file(), f"no snapshot {name}: run with HFC_UPDATE_SNAPSHOTS=1 and review it"
    assert text == path.read_text(encoding="utf-8")


@pytest.fixture
def demo(project: Path) -> Path:
    write(project / "demo.py", CONFLICT)
    write(project / "nb.ipynb", NB_CONFLICT)
    write(project / "broken.py", b"x = '\xff'\n")  # not UTF-8: a file that cannot be checked
    return project


FORMATS = ["full", "concise", "json", "json-lines", "sarif", "github", "gitlab"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_each_format_against_its_snapshot(demo: Path, run: RunFn, fmt: str) -> None:
    r = run("check", "--output-format", fmt)
    assert r.code == 1
    out = r.out
    if fmt == "sarif":  # the rules' full docs are the docs pages' business (tests/rules/test_docs.py): ids here
        log = json.loads(out)
        driver = log["runs"][0]["tool"]["driver"]
        driver["rules"] = [rule["id"] for rule in driver["rules"]]
        out = json.dumps(log, indent=2, ensure_ascii=False) + "\n"
    snapshot(f"format-{fmt}.txt", _normalised(out, demo))


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_carries_the_file_that_could_not_be_checked(demo: Path, run: RunFn, fmt: str) -> None:
    r = run("check", "--output-format", fmt)
    assert r.err.startswith("broken.py: error: not valid UTF-8")  # stderr, whatever the format
    if fmt in ("full", "concise"):  # for a person: named on stderr, counted in the summary
        assert r.out.endswith("1 file could not be checked.\n")
    else:  # for a machine: in the output itself
        assert "broken.py" in r.out and "not valid UTF-8" in r.out


def test_format_is_an_alias_and_text_the_old_name_of_full(demo: Path, run: RunFn) -> None:
    full = run("check", "--output-format", "full").out
    assert run("check", "--format", "text").out == full
    assert run("check").out == full
    assert run("check", "--format", "concise").out == run("check", "--output-format", "concise").out


def test_sarif_is_valid_sarif_2_1_0(demo: Path, run: RunFn) -> None:
    log = json.loads(run("check", "--output-format", "sarif").out)
    jsonschema.Draft7Validator(SARIF_SCHEMA).validate(log)
    results = log["runs"][0]["results"]
    [nb] = [r for r in results if r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "nb.ipynb"]
    # The notebook's finding names the line of the .ipynb file that holds the cell's line.
    line = nb["locations"][0]["physicalLocation"]["region"]["startLine"]
    assert "past_key_values=DynamicCache()" in NB_CONFLICT.splitlines()[line - 1]
    assert nb["locations"][0]["properties"]["cell"] == 3
    [py] = [r for r in results if r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "demo.py"]
    assert {f["description"]["text"]: f["properties"]["applicability"] for f in py["fixes"]} == {
        "Set `cache_implementation=None` in this call": "safe", "Remove `past_key_values=`": "unsafe",
        "Remove `cache_implementation=`": "safe", "Ignore HFC001 on this line": "safe"}


def oasis_validator() -> jsonschema.Draft4Validator:
    assert OASIS_SARIF_SCHEMA.is_file(), f"no {OASIS_SARIF_SCHEMA}: run scripts/fetch-sarif-schema.sh"
    schema = json.loads(OASIS_SARIF_SCHEMA.read_text(encoding="utf-8"))
    assert schema["title"].startswith("Static Analysis Results Format (SARIF) Version 2.1.0"), schema["title"]
    return jsonschema.Draft4Validator(schema)  # the OASIS schema is draft-04


def test_sarif_is_valid_against_the_oasis_schema(demo: Path, run: RunFn) -> None:
    """The whole log, fixes and notebook locations included, against the published SARIF 2.1.0 schema."""
    log = json.loads(run("check", "--output-format", "sarif").out)
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in oasis_validator().iter_errors(log)]
    assert not errors, errors
    assert any(r.get("fixes") for r in log["runs"][0]["results"]), "the log under test carries no fix"


def test_the_oasis_schema_rejects_what_sarif_forbids() -> None:
    validator = oasis_validator()
    good: dict[str, Any] = {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": [
        {"message": {"text": "m"}, "level": "error", "locations": [{"physicalLocation": {
            "artifactLocation": {"uri": "a.py"}, "region": {"startLine": 1}}}]}]}]}
    assert validator.is_valid(good)
    bad = json.loads(json.dumps(good))
    bad["runs"][0]["results"][0]["level"] = "fatal"
    assert not validator.is_valid(bad)
    bad = json.loads(json.dumps(good))
    bad["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] = 0
    assert not validator.is_valid(bad)


def test_the_schema_subset_rejects_what_sarif_forbids() -> None:
    """The vendored subset is no rubber stamp: a wrong level, a 0 line, an unknown property all fail."""
    validator = jsonschema.Draft7Validator(SARIF_SCHEMA)
    good: dict[str, Any] = {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": [
        {"message": {"text": "m"}, "level": "error", "locations": [{"physicalLocation": {
            "artifactLocation": {"uri": "a.py"}, "region": {"startLine": 1}}}]}]}]}
    assert validator.is_valid(good)
    for path, value in ((("level",), "fatal"), (("locations", 0, "physicalLocation", "region", "startLine"), 0),
                        (("colour",), "red")):
        bad = json.loads(json.dumps(good))
        target = bad["runs"][0]["results"][0]
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
        assert not validator.is_valid(bad), path


def test_github_annotates_the_notebook_line(demo: Path, run: RunFn) -> None:
    [line] = [x for x in run("check", "--output-format", "github").out.splitlines() if "nb.ipynb" in x]
    at = int(re.search(r",line=(\d+),", line).group(1))  # type: ignore[union-attr]
    assert "past_key_values=DynamicCache()" in NB_CONFLICT.splitlines()[at - 1]
    assert "cell 3" in line


def test_statistics(demo: Path, run: RunFn) -> None:
    r = run("check", "--statistics")
    assert (r.code, r.out) == (1, "2\tHFC001\t[*] cache-conflict\n")
    assert json.loads(run("check", "--statistics", "--output-format", "json").out) == [
        {"code": "HFC001", "name": "cache-conflict", "count": 2, "fixable": True}]


def test_quiet_prints_findings_only_and_silent_nothing(demo: Path, run: RunFn) -> None:
    quiet = run("check", "--quiet", "--output-format", "concise")
    [py, nb] = quiet.out.splitlines()  # no summary line
    assert quiet.code == 1 and py.startswith("demo.py:4:22: HFC001 [*] ") and nb.startswith("nb.ipynb:cell 3:2:")
    assert quiet.err.startswith("broken.py: error:")  # a file that could not be checked is still said
    assert run("check", "--quiet").out.count("Found") == 0
    silent = run("check", "--silent")
    assert (silent.code, silent.out, silent.err) == (1, "", "")


def test_output_file(demo: Path, run: RunFn) -> None:
    r = run("check", "--output-format", "json", "--output-file", "out/report.json")
    assert r.code == 1 and r.out == ""
    assert [f["filename"] for f in json.loads((demo / "out" / "report.json").read_text())] == [
        "demo.py", "nb.ipynb", "broken.py"]


def test_color_honours_the_flag_and_no_color(demo: Path, run: RunFn, monkeypatch: pytest.MonkeyPatch) -> None:
    plain = run("check", "--output-format", "concise").out
    assert "\033[" not in plain  # captured output is no terminal
    coloured = run("check", "--output-format", "concise", "--color", "always").out
    assert "\033[1m" in coloured and re.sub(r"\033\[[0-9;]*m", "", coloured) == plain
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert "\033[" in run("check", "--output-format", "concise").out
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\033[" not in run("check", "--output-format", "concise").out
    assert "\033[" in run("check", "--output-format", "concise", "--color", "always").out
    assert "\033[" not in run("check", "--output-format", "json", "--color", "always").out


def test_use_color_on_a_terminal() -> None:
    from hf_cache_lint.cli_support.formats.paint import use_color

    assert use_color("auto", True, {}) and not use_color("auto", False, {})
    assert not use_color("auto", True, {"NO_COLOR": "1"}) and use_color("auto", True, {"NO_COLOR": ""})
    assert not use_color("auto", True, {"TERM": "dumb"})


def test_diff_prints_and_writes_nothing(demo: Path, run: RunFn) -> None:
    r = run("check", "--diff", "demo.py")
    assert r.code == 1
    assert r.out == ("--- demo.py\n+++ demo.py\n@@ -1,4 +1,4 @@\n"
                     " from transformers import AutoModelForCausalLM, DynamicCache\n \n"
                     ' model = AutoModelForCausalLM.from_pretrained("x")\n'
                     '-out = model.generate(past_key_values=DynamicCache(), cache_implementation="static")\n'
                     "+out = model.generate(past_key_values=DynamicCache(), cache_implementation=None)\n\n")
    assert r.err == "Would fix 1 finding.\n"
    assert (demo / "demo.py").read_text() == CONFLICT
    write(demo / "clean.py", CONFLICT_FIXED)
    assert run("check", "--diff", "clean.py").code == 0


def test_show_fixes(demo: Path, run: RunFn) -> None:
    r = run("check", "--fix", "--show-fixes", "demo.py")
    assert r.code == 0
    assert r.out.startswith("Fixed 1 finding:\n- demo.py:\n    1 \u00d7 HFC001 (cache-conflict)\n\n")


def test_stdin(demo: Path, run: RunFn, monkeypatch: pytest.MonkeyPatch) -> None:
    def stdin(text: str) -> None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode())))

    stdin(CONFLICT)
    r = run("check", "-", "--stdin-filename", "pkg/app.py", "--output-format", "json")
    assert r.code == 1 and [(f["filename"], f["location"]["row"]) for f in r.json()] == [("pkg/app.py", 4)]
    stdin(CONFLICT)
    r = run("check", "-", "--stdin-filename", "pkg/app.py", "--fix")
    assert r.code == 0 and r.out == CONFLICT_FIXED  # the fixed code on stdout, the report on stderr
    assert "1 fixed" in r.err
    assert not (demo / "pkg" / "app.py").exists()
    stdin(CONFLICT)
    r = run("check", "-", "--stdin-filename", "gen/x.py", "--extend-exclude", "gen/", "--force-exclude")
    assert (r.code, r.out) == (0, "")


def test_show_settings(demo: Path, run: RunFn) -> None:
    write(demo / "pyproject.toml", '[tool.hf-cache-lint]\ntransformers-version = "5.23.0"\nignore = ["HFC005"]\n')
    r = run("check", "--show-settings", "--extend-select", "HFC006")
    assert r.code == 0
    lines = r.out.splitlines()
    assert lines[1] == f"Settings path: {demo / 'pyproject.toml'}"
    assert lines[3].startswith("Target transformers: 5.23.0")
    assert 'ignore = ["HFC005"]' in lines and 'extend_select = ["HFC006"]' in lines


def test_watch_checks_again_after_a_change(demo: Path, run: RunFn, monkeypatch: pytest.MonkeyPatch) -> None:
    import argparse

    from hf_cache_lint.cli import build_parser
    from hf_cache_lint.cli_support import watch

    args = build_parser().parse_args(["check", "--output-format", "concise", "demo.py"])
    runs: list[int] = []

    def once(a: argparse.Namespace) -> int:
        runs.append(1)
        if len(runs) == 1:  # the first check done, the user fixes the file
            write(demo / "demo.py", CONFLICT_FIXED)
        return 0 if len(runs) > 1 else 1

    # The snapshot is taken before the first check, so the change made during it is seen; a few polls more
    # change nothing.
    assert watch.watch(args, once, polls=5, interval=0.01) == 0
    assert len(runs) == 2


def test_progress_bar_only_for_long_runs_on_a_terminal() -> None:
    from hf_cache_lint.cli_support.progress import MIN_FILES, progress_for

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert progress_for(MIN_FILES, False, io.StringIO()) is None  # not a terminal
    assert progress_for(MIN_FILES - 1, False, Tty()) is None  # short
    assert progress_for(MIN_FILES, True, Tty()) is None  # --quiet
    tty = Tty()
    bar = progress_for(MIN_FILES, False, tty)
    assert bar is not None
    bar(MIN_FILES // 2)
    bar(MIN_FILES - MIN_FILES // 2)
    assert f"] {MIN_FILES}/{MIN_FILES} files" in tty.getvalue() and "#" * 30 in tty.getvalue()
    bar.close()
    assert tty.getvalue().endswith("\r")


def test_check_files_reports_progress_for_every_file(demo: Path) -> None:
    from hf_cache_lint.cli_support.discovery import discover
    from hf_cache_lint.cli_support.runner import check_files
    from hf_cache_lint.engine.environment.context import Context
    from hf_cache_lint.settings import Settings

    sources = list(discover(["."], None, demo).files)
    seen: list[int] = []
    check_files(sources, Settings(), Context(), jobs=1, progress=seen.append)
    assert sum(seen) == len(sources) == 3
