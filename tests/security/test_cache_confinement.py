"""The result cache writes only inside the project, unless the user's own environment says otherwise (issue 33, 1).

A repository controls its pyproject.toml and can commit symlinks: `cache-dir = "~"` or a committed
`.hf_cache_lint_cache -> ../sibling` made `hf-cache-lint check` (so a pre-commit hook, CI) write cache entries and
a `.gitignore` holding `*` into $HOME or the sibling folder (a `*` there hides a whole dotfiles repository from git).
Each refusal is paired with a control: the same layout inside the project is used as a cache.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from cli_run import check

from hf_cache_lint import __version__
from hf_cache_lint.cli_support.cache import DIR_ENV, FOLDER

CONFLICT = ("from transformers import AutoModelForCausalLM, DynamicCache\n\n"
            'model = AutoModelForCausalLM.from_pretrained("x")\n'
            'out = model.generate(past_key_values=DynamicCache(), cache_implementation="static")\n')


def project(tmp_path: Path, table: str = "") -> Path:
    root = tmp_path / "proj"
    root.mkdir(parents=True)
    (root / "pyproject.toml").write_text(
        f'[project]\nname = "demo"\n\n[tool.hf-cache-lint]\ntransformers-version = "5.23.0"\n{table}\n')
    (root / "a.py").write_text(CONFLICT)
    return root


def listing(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def refused(root: Path, home: Path) -> str:
    """Check `root` twice with HOME=`home`; the findings are reported both times; the warning printed."""
    for _ in range(2):
        r = check(root, env={"HOME": str(home)})
        assert r.code == 1 and r.codes() == ["HFC001"], r.err
    assert "leads outside the project" in r.err and "running without a cache" in r.err
    return r.err


def entries(folder: Path) -> list[Path]:
    return list((folder / __version__).glob("*.json"))


def test_cache_dir_home_from_pyproject_is_refused(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".bashrc").write_text("# dotfiles\n")
    root = project(tmp_path, 'cache-dir = "~"')
    refused(root, home)
    assert listing(home) == [".bashrc"]  # no .gitignore, no cache entries


def test_cache_dir_to_a_sibling_from_pyproject_is_refused(tmp_path: Path) -> None:
    sibling = tmp_path / "sibling"
    sibling.mkdir()
    root = project(tmp_path, 'cache-dir = "../sibling"')
    refused(root, tmp_path)
    assert listing(sibling) == []
    absolute = project(tmp_path / "b", f'cache-dir = "{sibling}"')
    refused(absolute, tmp_path)
    assert listing(sibling) == []


def test_a_committed_cache_symlink_out_is_refused(tmp_path: Path) -> None:
    sibling = tmp_path / "sibling"
    sibling.mkdir()
    root = project(tmp_path)
    (root / FOLDER).symlink_to("../sibling")
    refused(root, tmp_path)
    assert listing(sibling) == []


def test_a_committed_version_folder_symlink_out_is_refused(tmp_path: Path) -> None:
    sibling = tmp_path / "sibling"
    sibling.mkdir()
    root = project(tmp_path)
    (root / FOLDER).mkdir()
    (root / FOLDER / __version__).symlink_to(sibling)
    refused(root, tmp_path)
    assert listing(sibling) == []


def test_a_symlink_inside_the_project_is_used_without_a_gitignore(tmp_path: Path) -> None:
    """Control: the same symlink, leading inside the project, is a cache; the folder was there (a symlink to
    it, committed), so it gets no `.gitignore`."""
    root = project(tmp_path)
    (root / "build" / "lint").mkdir(parents=True)
    (root / FOLDER).symlink_to("build/lint")
    r = check(root)
    assert r.code == 1 and "warning" not in r.err, r.err
    assert entries(root / "build" / "lint")
    assert not (root / "build" / "lint" / ".gitignore").exists()


@pytest.mark.parametrize("setting", [".", "build"])
def test_an_existing_folder_never_gets_a_gitignore(tmp_path: Path, setting: str) -> None:
    root = project(tmp_path, f'cache-dir = "{setting}"')
    (root / "build").mkdir()
    assert check(root).code == 1
    assert entries(root / setting)  # the cache works there
    assert not (root / setting / ".gitignore").exists()


def test_a_folder_the_cache_creates_gets_its_gitignore(tmp_path: Path) -> None:
    root = project(tmp_path)
    assert check(root).code == 1
    assert (root / FOLDER / ".gitignore").read_text().splitlines()[-1] == "*"
    assert entries(root / FOLDER)


def test_the_users_environment_may_put_it_anywhere(tmp_path: Path) -> None:
    """HF_CACHE_LINT_CACHE_DIR is the user's own: outside the project is fine, and an existing folder (their
    ~/.cache/...) gets no `.gitignore`; a folder the cache creates does."""
    mine = tmp_path / "mine"
    mine.mkdir()
    root = project(tmp_path, 'cache-dir = "../ignored"')
    r = check(root, env={DIR_ENV: str(mine)})
    assert r.code == 1 and "warning" not in r.err, r.err
    assert entries(mine) and not (mine / ".gitignore").exists()
    made = tmp_path / "made" / "here"
    check(root, env={DIR_ENV: str(made)})
    assert entries(made) and (made / ".gitignore").is_file()
    assert not os.path.lexists(tmp_path / "ignored")
