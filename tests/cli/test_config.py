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
    ("selekt = [\"HFC001\"]", "unknown key 'selekt' in [tool.hf-cache-lint]; did you mean 'select'?"),
    ("select = 1", "'select' must be a list of strings"),
    ("select = [\"XYZ\"]", "unknown rule code or prefix 'XYZ' (known: HFC001,"),
    ("select = [\"HFC0001\"]", "unknown rule code or prefix 'HFC0001'; did you mean 'HFC001'?"),
    ("extend-select = [\"HFC999\"]", "unknown rule code or prefix 'HFC999'"),
    ("ignore = [\"HFC0001\"]", "unknown rule code or prefix 'HFC0001'; did you mean 'HFC001'?"),
    ("severity = { HFC999 = \"warning\" }", "unknown rule code 'HFC999'"),
    ("severity = { HFC00 = \"warning\" }", "unknown rule code 'HFC00'"),
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


def test_select_in_pyproject_keeps_only_those_rules(project: Path, run: RunFn) -> None:
    write(project / "demo.py", CONFLICT)
    pyproject(project, 'select = ["HFC002"]')
    assert run("check").code == 0
    pyproject(project, 'select = ["HFC00"]')  # a prefix
    assert run("check").code == 1


SRC_MODELS = ('from transformers import AutoModelForCausalLM\n'
              'model = AutoModelForCausalLM.from_pretrained("x")\n'
              'model.generation_config.cache_implementation = "static"\n')
IMPORTS_MODEL = ("from transformers import DynamicCache\nfrom pkg.models import model\n"
                 "out = model.generate(past_key_values=DynamicCache())\n")


def test_extra_paths_in_pyproject_are_import_roots(project: Path, run: RunFn) -> None:
    """A src/ layout: the model configured in src/pkg/models.py is seen only with extra-paths = ["src"]."""
    write(project / "src" / "pkg" / "__init__.py", "")
    write(project / "src" / "pkg" / "models.py", SRC_MODELS)
    write(project / "app" / "serve.py", IMPORTS_MODEL)
    assert run("check", "app").code == 0
    pyproject(project, 'extra-paths = ["src"]')
    r = run("check", "app", "--format", "json")
    assert r.code == 1
    [finding] = r.json()
    assert (finding["code"], finding["filename"], finding["location"]["row"]) == ("HFC001", "app/serve.py", 3)
