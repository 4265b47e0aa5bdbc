"""`[tool.hf-cache-lint]` in pyproject.toml: found above the first path, validated, overridden by flags."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import CONFLICT, RunFn, pyproject_text, write


def pyproject(root: Path, table: str) -> None:
    write(root / "pyproject.toml", pyproject_text(table))


def test_ignore_in_pyproject_disables_the_rule(project: Path, run: RunFn) -> None:
    pyproject(project, 'ignore = ["HFC001"]')
    write(project / "demo.py", CONFLICT)
    assert run("check").code == 0


def test_config_is_found_above_the_first_path(project: Path, run: RunFn) -> None:
    pyproject(project, 'ignore = ["HFC001"]')
    write(project / "pkg" / "sub" / "demo.py", CONFLICT)
    assert run("check", "pkg/sub/demo.py").code == 0
    assert run("check", "pkg/sub").code == 0


def test_a_pyproject_without_the_table_is_passed_over(project: Path, run: RunFn) -> None:
    pyproject(project, 'ignore = ["HFC001"]')
    write(project / "pkg" / "pyproject.toml", '[project]\nname = "inner"\n')
    write(project / "pkg" / "demo.py", CONFLICT)
    assert run("check", "pkg").code == 0


def test_cli_select_wins_over_pyproject_ignore(project: Path, run: RunFn) -> None:
    pyproject(project, 'ignore = ["HFC001"]')
    write(project / "demo.py", CONFLICT)
    assert run("check", "--select", "HFC001").code == 1


def test_cli_ignore_adds_to_pyproject_ignore(project: Path, run: RunFn) -> None:
    pyproject(project, 'ignore = ["HFC001"]')
    write(project / "demo.py", CONFLICT)
    assert run("check", "--ignore", "HFC002").code == 0


def test_severity_from_pyproject_changes_the_reported_level(project: Path, run: RunFn) -> None:
    pyproject(project, 'severity = { HFC001 = "warning" }')
    write(project / "demo.py", CONFLICT)
    [f] = run("check", "--format", "json").json()
    assert f["severity"] == "warning"
    [line] = run("check", "--format", "github").out.splitlines()
    assert line.startswith("::warning file=demo.py,")


def test_transformers_version_from_pyproject_and_flag_precedence(project: Path, run: RunFn) -> None:
    pyproject(project, 'transformers-version = "4.30.0"')
    write(project / "demo.py", CONFLICT)
    assert run("check").code == 0
    assert run("check", "--transformers-version", "5.23.0").code == 1


def test_exclude_patterns_apply_relative_to_the_pyproject(project: Path, run: RunFn) -> None:
    pyproject(project, 'exclude = ["generated/", "/scripts/*.py", "*_old.py"]')
    for name in ("generated/a.py", "pkg/generated/b.py", "scripts/c.py", "pkg/d_old.py",
                 "pkg/scripts/kept.py", "kept.py"):
        write(project / name, CONFLICT)
    names = [f["filename"] for f in run("check", "--format", "json").json()]
    assert names == ["kept.py", "pkg/scripts/kept.py"]


def test_snake_and_camel_case_keys_are_accepted(project: Path, run: RunFn) -> None:
    pyproject(project, 'transformers_version = "4.30.0"\nextraPaths = ["src"]')
    write(project / "demo.py", CONFLICT)
    assert run("check").code == 0


@pytest.mark.parametrize(("table", "needle"), [
    ("selekt = [\"HFC001\"]", "unknown key 'selekt'"),
    ("select = 1", "'select' must be a list of strings"),
    ("select = [\"XYZ\"]", "'XYZ' is not a rule code"),
    ("severity = { HFC001 = \"fatal\" }", "fatal"),
    ("severity = \"error\"", "'severity' must be a table"),
    ("transformers-version = \"five\"", "not a transformers version"),
    ("exclude = [", "invalid TOML"),
])
def test_invalid_config_exits_2_with_a_clear_message(project: Path, run: RunFn, table: str, needle: str) -> None:
    pyproject(project, table)
    write(project / "demo.py", CONFLICT)
    r = run("check")
    assert r.code == 2
    assert r.out == ""
    assert r.err.startswith("hf-cache-lint: error: ") and "pyproject.toml" in r.err and needle in r.err
    assert "Traceback" not in r.err
