"""Which files `check` walks: recursion, skipped folders, excludes, order and printed paths."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from cli_helpers import CONFLICT, TARGET_LINE, RunFn, write

from hf_cache_lint.cli_support.discovery import discover
from hf_cache_lint.cli_support.gitignore import PathSpec


def names(root: Path, *paths: str, exclude: tuple[str, ...] = ()) -> list[str]:
    return [f.display for f in discover(list(paths), PathSpec.of(exclude), root).files]


def test_walk_is_recursive_sorted_and_takes_py_and_ipynb_only(project: Path) -> None:
    for name in ("b.py", "a/y.ipynb", "a/x.py", "a/readme.md", "a/data.json", "c.pyi", "a/b/z.py"):
        write(project / name, "x = 1\n")
    assert names(project, ".") == ["a/b/z.py", "a/x.py", "a/y.ipynb", "b.py"]


def test_walk_skips_hidden_folders_venvs_node_modules_and_caches(project: Path) -> None:
    for name in (".git/h.py", ".hidden/h.py", "__pycache__/c.py", "node_modules/pkg/n.py", "venv/lib/v.py",
                 "myenv/lib/site-packages/s.py", "conda/conda-meta/x.py", "conda/lib/c.py", ".dot.py", "keep.py"):
        write(project / name, "x = 1\n")
    write(project / "myenv" / "pyvenv.cfg", "home = /usr/bin\n")
    write(project / "conda" / "conda-meta" / "history", "")
    assert names(project, ".") == ["keep.py"]


def test_a_hidden_or_venv_folder_named_explicitly_is_walked(project: Path) -> None:
    write(project / ".tools" / "t.py", "x = 1\n")
    assert names(project, ".tools") == [".tools/t.py"]


def test_printed_paths_follow_the_given_path(project: Path) -> None:
    write(project / "src" / "pkg" / "m.py", "x = 1\n")
    assert names(project, "src") == ["src/pkg/m.py"]
    assert names(project, "./src") == ["src/pkg/m.py"]
    assert names(project, "src/") == ["src/pkg/m.py"]
    assert names(project, str(project / "src")) == [str(project / "src" / "pkg" / "m.py")]
    assert names(project / "src", "../proj/src/pkg") == ["../proj/src/pkg/m.py"]


def test_files_named_explicitly_are_checked_whatever_suffix_or_exclude(project: Path) -> None:
    write(project / "script", "x = 1\n")
    write(project / "gen" / "g.py", "x = 1\n")
    assert names(project, "./script", "gen/g.py", exclude=("gen/", "script")) == ["script", "gen/g.py"]


def test_each_file_is_checked_once_in_argument_order(project: Path) -> None:
    write(project / "a.py", "x = 1\n")
    write(project / "d" / "b.py", "x = 1\n")
    assert names(project, "d", "a.py", ".", "d/b.py") == ["d/b.py", "a.py"]


def test_symlinked_folders_are_not_followed(project: Path) -> None:
    write(project / "real" / "r.py", "x = 1\n")
    os.symlink(project / "real", project / "link", target_is_directory=True)
    os.symlink(project, project / "real" / "loop", target_is_directory=True)
    assert names(project, ".") == ["real/r.py"]


def test_missing_path_is_a_per_path_error(project: Path, run: RunFn) -> None:
    write(project / "demo.py", CONFLICT)
    r = run("check", "--format", "json", "missing.py", "demo.py")
    assert [f["filename"] for f in r.json()] == ["demo.py"]
    assert r.err.splitlines() == ["missing.py: error: no such file or directory"]
    assert r.code == 1


def test_folder_without_python_files_warns_and_passes(project: Path, run: RunFn) -> None:
    (project / "empty").mkdir()
    write(project / "empty" / "notes.txt", "hello\n")
    r = run("check", "empty")
    assert r.code == 0
    assert r.out == TARGET_LINE + "All checks passed!\n"
    assert r.err == "hf-cache-lint: warning: no Python files found under the given paths\n"


@pytest.mark.parametrize(("pattern", "path", "is_dir", "excluded"), [
    ("*.log", "a/b/x.log", False, True),
    ("build/", "build", True, True),
    ("build/", "build", False, False),
    ("build/", "src/build/x.py", False, True),
    ("/top.py", "top.py", False, True),
    ("/top.py", "sub/top.py", False, False),
    ("a/*.py", "a/x.py", False, True),
    ("a/*.py", "a/b/x.py", False, False),
    ("a/**/x.py", "a/x.py", False, True),
    ("a/**/x.py", "a/b/c/x.py", False, True),
    ("**/gen", "deep/er/gen", True, True),
    ("docs/**", "docs/r/x.py", False, True),
    ("docs/**", "docs", True, False),
    ("f?.py", "fa.py", False, True),
    ("f?.py", "f/.py", False, False),
    ("f[0-9].py", "f7.py", False, True),
    ("f[!0-9].py", "f7.py", False, False),
    ("\\#x.py", "#x.py", False, True),
    ("# comment", "# comment", False, False),
])
def test_gitignore_pattern_semantics(pattern: str, path: str, is_dir: bool, excluded: bool) -> None:
    assert PathSpec.of([pattern]).excludes(path, is_dir) is excluded


def test_gitignore_negation_and_last_match_wins() -> None:
    spec = PathSpec.of(["*.py", "!keep.py", "old/"])
    assert spec.excludes("x.py", False)
    assert not spec.excludes("keep.py", False)
    # A file below an excluded folder cannot be re-included (as in git).
    assert spec.excludes("old/keep.py", False)


def test_a_source_file_made_from_a_str_or_a_path_is_the_same(tmp_path: Path) -> None:
    from hf_cache_lint.cli_support.discovery import SourceFile

    given, named = SourceFile(tmp_path / "a.py", "a.py"), SourceFile(str(tmp_path / "a.py"), "a.py")
    assert given == named and hash(given) == hash(named)
    assert given.path == named.path == tmp_path / "a.py" and isinstance(named.path, Path)
    assert [SourceFile(n, n).is_notebook for n in ("n.ipynb", "a.py", ".ipynb", "x.ipynb.py")] == [
        Path(n).suffix == ".ipynb" for n in ("n.ipynb", "a.py", ".ipynb", "x.ipynb.py")]


def test_walked_paths_are_what_normpath_and_abspath_give(project: Path) -> None:
    """The walk joins names to the normalised folder instead of normalising every path: the same strings."""
    write(project / "src" / "pkg" / "m.py", "x = 1\n")
    for given in (".", "./src/", "src//pkg", str(project), "../proj/src"):
        (found,) = discover([given], PathSpec(), project).files
        assert found.display == os.path.normpath(os.path.join(given, os.path.relpath(found.where, given)))
        assert os.path.samefile(found.where, project / "src" / "pkg" / "m.py")
        assert found.stat is not None and found.stat.st_ino == os.stat(found.where).st_ino
