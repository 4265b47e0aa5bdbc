"""Where the target transformers comes from (engine/environment/target_plan.py, environments.py, requirements.py): one test
per source, each on files laid out as the real tool leaves them, and the order between sources."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from hf_cache_lint.engine.environment import environments, requirements
from hf_cache_lint.engine.environment.release_version import NEWEST, Version
from hf_cache_lint.engine.environment.target_plan import parse_spec, plan_for, releases_to_check, resolve


def venv(folder: Path, version: str | None, *, windows: bool = False, python: str = "3.11") -> Path:
    """A venv as `python -m venv` lays it out, with transformers `version` installed (dist-info only)."""
    site = folder / ("Lib/site-packages" if windows else f"lib/python{python}/site-packages")
    site.mkdir(parents=True)
    (folder / "pyvenv.cfg").write_text(f"home = /usr/bin\ninclude-system-site-packages = false\nversion = {python}.7\n")
    scripts = folder / ("Scripts" if windows else "bin")
    scripts.mkdir()
    (scripts / ("python.exe" if windows else "python")).write_text("")
    if version:
        dist = site / f"transformers-{version}.dist-info"
        dist.mkdir()
        (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: transformers\nVersion: {version}\n\nREADME\n")
    return folder


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


def plan(root: Path, environ: dict[str, str] | None = None, **kw: object) -> tuple[str, str, str, tuple[str, ...]]:
    p = resolve(environ=environ or {}, root=root, own_environment=False, **kw)  # type: ignore[arg-type]
    return p.spec, p.origin, p.kind, tuple(str(t) for t in p.releases)


# -- installed ------------------------------------------------------------------------------------------------

def test_a_project_venv_is_read_from_its_dist_info(tmp_path: Path) -> None:
    venv(tmp_path / ".venv", "4.57.6")
    assert plan(tmp_path) == ("4.57.6", "installed in .venv", "environment", ("4.57.6",))


def test_a_windows_venv_and_a_venv_folder(tmp_path: Path) -> None:
    venv(tmp_path / "venv", "5.23.0", windows=True)
    assert plan(tmp_path)[:2] == ("5.23.0", "installed in venv")


def test_the_active_virtual_env_and_conda_prefix(tmp_path: Path) -> None:
    active = venv(tmp_path / "elsewhere", "5.0.0")
    conda = venv(tmp_path / "conda", "4.50.0")
    venv(tmp_path / "proj" / ".venv", "4.57.6")
    assert plan(tmp_path / "proj", {"VIRTUAL_ENV": str(active)})[:2] == ("5.0.0", f"installed in VIRTUAL_ENV={active}")
    assert plan(tmp_path / "proj", {"CONDA_PREFIX": str(conda)})[0] == "4.50.0"
    # A venv without transformers does not decide: the next source does.
    empty = venv(tmp_path / "empty", None)
    assert plan(tmp_path / "proj", {"VIRTUAL_ENV": str(empty)})[:2] == ("4.57.6", "installed in .venv")


def test_the_analysed_interpreter_wins_over_the_environment_variables(tmp_path: Path) -> None:
    chosen = venv(tmp_path / "chosen", "4.56.0")
    active = venv(tmp_path / "active", "5.0.0")
    got = plan(tmp_path, {"VIRTUAL_ENV": str(active)}, interpreter=str(chosen / "bin" / "python"))
    assert got[0] == "4.56.0" and "chosen" in got[1]


def test_a_venv_including_the_system_site_packages_reads_its_base(tmp_path: Path) -> None:
    base = tmp_path / "base"
    (base / "lib/python3.11/site-packages/transformers-4.55.0.dist-info").mkdir(parents=True)
    (base / "bin").mkdir()
    env = venv(tmp_path / "env", None)
    (env / "pyvenv.cfg").write_text(f"home = {base / 'bin'}\ninclude-system-site-packages = true\nversion = 3.11.7\n")
    assert environments.in_prefix(env) == "4.55.0"


def test_this_process_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI's own environment: importlib.metadata of the running process (its sys.path)."""
    site = tmp_path / "site"
    (site / "transformers-4.57.6.dist-info").mkdir(parents=True)
    (site / "transformers-4.57.6.dist-info" / "METADATA").write_text("Name: transformers\nVersion: 4.57.6\n")
    monkeypatch.syspath_prepend(str(site))
    got = resolve(environ={}, root=tmp_path / "nothing", own_environment=True)
    assert (got.spec, got.origin) == ("4.57.6", "installed where hf-cache-lint runs")


def test_the_interpreter_is_never_started_and_its_pth_never_runs(tmp_path: Path) -> None:
    """Issue 33 item 3: a venv whose `.pth` and `sitecustomize` write a marker when Python starts. Its python
    is the real interpreter (a symlink, as venv makes it), so starting it would fire both."""
    env = venv(tmp_path / ".venv", "4.57.6")
    (env / "bin" / "python").unlink()
    (env / "bin" / "python").symlink_to(sys.executable)
    site = env / "lib/python3.11/site-packages"
    marker = tmp_path / "MARKER"
    (site / "evil.pth").write_text(f"import pathlib; pathlib.Path({str(marker)!r}).write_text('pth')\n")
    (site / "sitecustomize.py").write_text(f"import pathlib; pathlib.Path({str(marker)!r}).write_text('site')\n")
    from hf_cache_lint.engine.environment.context import installed_transformers, resolve_context

    assert installed_transformers(str(env / "bin" / "python")) == "4.57.6"
    context = resolve_context(interpreter=str(env / "bin" / "python"), workspace=tmp_path, environ={})
    assert str(context.target) == "4.57.6" and context.version_source == "environment"
    assert not marker.exists(), marker.read_text()


# -- declared -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("name", "text", "spec", "where"), [
    ("pyproject.toml", '[project]\ndependencies = ["torch", "transformers[torch]>=4.45,<6"]\n', ">=4.45,<6",
     "pyproject.toml [project] dependencies"),
    ("pyproject.toml", '[project]\ndependencies = []\n[project.optional-dependencies]\nhf = ["transformers==4.57.6"]\n',
     "4.57.6", "pyproject.toml [project.optional-dependencies] hf"),
    ("pyproject.toml", '[dependency-groups]\ndev = ["transformers~=5.0"]\n', "~=5.0", None),
    ("pyproject.toml", '[tool.poetry.dependencies]\npython = "^3.10"\ntransformers = "^4.45"\n', ">=4.45,<5",
     "pyproject.toml [tool.poetry.dependencies]"),
    ("pyproject.toml", '[tool.poetry.group.ml.dependencies]\ntransformers = {version = "4.57.6", extras=["torch"]}\n',
     "4.57.6", "pyproject.toml [tool.poetry.group.ml.dependencies]"),
    ("pyproject.toml", '[tool.pdm.dev-dependencies]\ntest = ["transformers>=5.23"]\n', ">=5.23", None),
    ("pyproject.toml", '[tool.uv]\ndev-dependencies = ["transformers==5.23.0"]\n', "5.23.0", "pyproject.toml [tool.uv] dev-dependencies"),
    ("requirements.txt", "-r base.txt\n# pinned\ntransformers==4.57.6  # the server runs it\ntorch\n", "4.57.6", "requirements.txt"),
    ("requirements-dev.txt", "--index-url x\ntransformers >= 5.0, < 5.24\n", ">=5.0,<5.24", "requirements-dev.txt"),
    ("setup.cfg", "[options]\ninstall_requires =\n    numpy\n    transformers>=4.50,<5\n", ">=4.50,<5",
     "setup.cfg [options] install_requires"),
    ("setup.py", "from setuptools import setup\nREQ = ['numpy', 'transformers==4.56.0']\nsetup(name='x', install_requires=REQ)\n",
     "4.56.0", "setup.py install_requires"),
    ("setup.py", "import setuptools\nsetuptools.setup(extras_require={'hf': ['transformers>=5.0']})\n", ">=5.0",
     "setup.py extras_require hf"),
])
def test_each_requirement_format(tmp_path: Path, name: str, text: str, spec: str, where: str | None) -> None:
    write(tmp_path / name, text)
    got = plan(tmp_path)
    assert got[0] == spec and got[2] == "requirement"
    if where:
        assert got[1] == where


@pytest.mark.parametrize(("name", "text"), [
    ("uv.lock", 'version = 1\n[[package]]\nname = "torch"\nversion = "2.13.0"\n[[package]]\nname = "transformers"\n'
                'version = "4.57.6"\n'),
    ("poetry.lock", '[[package]]\nname = "Transformers"\nversion = "4.57.6"\noptional = false\n'),
    ("pylock.toml", 'lock-version = "1.0"\n[[packages]]\nname = "transformers"\nversion = "4.57.6"\n'),
])
def test_a_lock_file_pins_exactly_and_wins_over_the_range(tmp_path: Path, name: str, text: str) -> None:
    write(tmp_path / "pyproject.toml", '[project]\ndependencies = ["transformers>=4.45"]\n')
    write(tmp_path / name, text)
    assert plan(tmp_path) == ("4.57.6", name, "requirement", ("4.57.6",))


def test_setup_py_is_read_never_run(tmp_path: Path) -> None:
    marker = tmp_path / "RAN"
    write(tmp_path / "setup.py", f"open({str(marker)!r}, 'w')\nfrom setuptools import setup\n"
                                 "setup(install_requires=['transformers==5.0.0'])\n")
    assert plan(tmp_path)[0] == "5.0.0" and not marker.exists()


def test_poetry_constraints() -> None:
    assert str(requirements.poetry_specifier("^0.2.3")) == str(parse_spec(">=0.2.3,<0.3"))
    assert set(map(str, requirements.poetry_specifier("~4.45.2") or ())) == {">=4.45.2", "<4.46"}
    assert set(map(str, requirements.poetry_specifier(">=4.45 <5") or ())) == {">=4.45", "<5"}
    assert requirements.poetry_specifier(">=4 || <3") is None


def test_unreadable_files_do_not_decide(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", "[project\nbroken")
    write(tmp_path / "setup.py", "def (:\n")
    write(tmp_path / "requirements.txt", "transformers==4.57.6\n")
    assert plan(tmp_path)[:2] == ("4.57.6", "requirements.txt")


def test_an_unversioned_requirement_is_the_newest(tmp_path: Path) -> None:
    write(tmp_path / "requirements.txt", "transformers\n")
    assert plan(tmp_path)[0] == NEWEST and "names no version" in plan(tmp_path)[1]


HUGE = "4." + "9" * 5000  # past int()'s 4,300 digits: packaging raises a ValueError that is no InvalidVersion


@pytest.mark.parametrize(("name", "text"), [
    ("requirements.txt", f"transformers>={HUGE}\n"),
    ("pyproject.toml", f'[tool.poetry.dependencies]\ntransformers = "^{HUGE}"\n'),
    ("pyproject.toml", f'[project]\ndependencies = ["transformers=={HUGE}"]\n'),
], ids=["requirements.txt", "poetry caret", "PEP 621"])
def test_a_requirement_with_a_number_past_the_digit_limit_is_unreadable(tmp_path: Path, name: str, text: str) -> None:
    """Such a requirement stopped every run with an internal error; it is read as no requirement (the newest)."""
    write(tmp_path / name, text)
    assert plan(tmp_path)[0] == NEWEST


@pytest.mark.parametrize("text", [HUGE, ">=" + HUGE, "<5," + ">" + HUGE], ids=["version", "range", "two bounds"])
def test_a_target_with_a_number_past_the_digit_limit_is_a_usage_error(text: str) -> None:
    with pytest.raises(ValueError, match="not a transformers version"):
        plan_for(text, "--transformers-version", "setting")


# -- order ----------------------------------------------------------------------------------------------------

def test_setting_wins_then_installed_then_declared_then_newest(tmp_path: Path) -> None:
    assert plan(tmp_path)[2:] == ("default", (NEWEST,))
    write(tmp_path / "requirements.txt", "transformers==5.0.0\n")
    assert plan(tmp_path)[0] == "5.0.0"
    venv(tmp_path / ".venv", "4.57.6")
    assert plan(tmp_path)[0] == "4.57.6"
    assert plan(tmp_path, setting="5.23.0", setting_origin="--transformers-version")[:3] == \
        ("5.23.0", "--transformers-version", "setting")


# -- ranges ---------------------------------------------------------------------------------------------------

def test_a_range_is_checked_at_its_bounds_and_the_changes_inside() -> None:
    releases = releases_to_check(parse_spec(">=4.45,<6"))  # type: ignore[arg-type]
    assert releases[0] == Version.parse("4.45.0") and releases[-1] == Version.parse(NEWEST)
    assert {Version.parse(v) for v in ("4.57.6", "5.0.0", "5.23.0", "5.24.0")} <= set(releases)
    assert max(releases_to_check(parse_spec("<5"))) == Version.parse("4.57.6")  # type: ignore[arg-type]
    p = plan_for(">=4.45,<5", "--transformers-version", "setting")
    assert p.is_range and p.describe().startswith("transformers >=4.45,<5 (--transformers-version): checked at 4.45.0")
    assert not plan_for("==4.57.6", "x", "setting").is_range
    with pytest.raises(ValueError, match="not a transformers version"):
        parse_spec("latest")


def test_a_venv_whose_files_are_devices_or_fifos_is_read_with_bounds(tmp_path: Path) -> None:
    """A workspace venv's pyvenv.cfg linked to /dev/zero, its METADATA a FIFO: read never hangs nor grows."""
    import os

    env = venv(tmp_path / ".venv", "4.57.6")
    (env / "pyvenv.cfg").unlink()
    (env / "pyvenv.cfg").symlink_to("/dev/zero")
    metadata = env / "lib/python3.11/site-packages/transformers-4.57.6.dist-info/METADATA"
    metadata.unlink()
    os.mkfifo(metadata)
    assert environments.pyvenv_cfg(env) == {}
    assert environments.in_prefix(env) == "4.57.6"  # from the folder's name
    write(tmp_path / "requirements.txt", "transformers==5.0.0\n")
    (tmp_path / "uv.lock").symlink_to("/dev/zero")
    assert plan(tmp_path)[0] == "5.0.0"  # .venv has no pyvenv.cfg that reads as one: the requirement decides


def test_an_interpreter_is_placed_by_its_files(tmp_path: Path) -> None:
    """A Windows venv's Scripts\\python.exe, a Windows installation's python.exe beside Lib, a POSIX
    installation's bin/python3.11 under lib/: each environment is found without running anything."""
    win_venv = venv(tmp_path / "wv", "5.0.0", windows=True)
    assert environments.of_interpreter(str(win_venv / "Scripts" / "python.exe")) == "5.0.0"
    install = tmp_path / "Python311"
    (install / "Lib/site-packages/transformers-4.56.0.dist-info").mkdir(parents=True)
    (install / "python.exe").write_text("")
    assert environments.of_interpreter(str(install / "python.exe")) == "4.56.0"
    posix = tmp_path / "usr"
    (posix / "local/lib/python3.11/dist-packages/transformers-4.50.0.dist-info").mkdir(parents=True)
    (posix / "lib").mkdir(exist_ok=True)
    (posix / "bin").mkdir()
    (posix / "bin/python3.11").write_text("")
    assert environments.of_interpreter(str(posix / "bin/python3.11")) == "4.50.0"
    assert environments.of_interpreter(str(tmp_path / "missing" / "python")) is None


def test_a_pyenv_shim_is_followed_by_pyenvs_own_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`--interpreter python3` on a pyenv machine names a shim (a shell script): the version pyenv would pick
    (PYENV_VERSION, .python-version, <root>/version) is read, the shim never run."""
    root = tmp_path / "pyenv"
    for name, version in (("3.11.7", "4.57.6"), ("3.12.1", "5.0.0")):
        (root / "versions" / name / "bin").mkdir(parents=True)
        (root / "versions" / name / "bin" / "python3").write_text("")
        (root / "versions" / name / "lib/python3.11/site-packages" / f"transformers-{version}.dist-info").mkdir(
            parents=True)
    (root / "shims").mkdir()
    shim = root / "shims" / "python3"
    shim.write_text(f"#!/bin/sh\ntouch {tmp_path / 'RAN'}\n")
    shim.chmod(0o755)
    (root / "version").write_text("3.11.7\n")
    project = tmp_path / "proj"
    project.mkdir()
    monkeypatch.chdir(project)
    assert environments.of_interpreter(str(shim), {}) == "4.57.6"
    (project / ".python-version").write_text("3.12.1\n")
    assert environments.of_interpreter(str(shim), {}) == "5.0.0"
    assert environments.of_interpreter(str(shim), {"PYENV_VERSION": "3.11.7"}) == "4.57.6"
    assert not (tmp_path / "RAN").exists()
