"""Which files `check` walks: recursion, skipped folders, excludes, order and printed paths."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from cli_helpers import CONFLICT, TARGET_LINE, RunFn, pyproject_text, write

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
    assert [(f["filename"], f["code"]) for f in r.json()] == [("demo.py", "HFC001"), ("missing.py", None)]
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


def _git(root: Path) -> None:
    (root / ".git").mkdir()  # a work tree is what makes .gitignore count (as in Ruff's walker)


def test_default_excludes_are_ruffs(project: Path) -> None:
    for name in ("build/b.py", "dist/d.py", "site-packages/s.py", "_build/x.py", "buck-out/y.py", "src/build/z.py",
                 "keep.py", "src/keep.py"):
        write(project / name, "x = 1\n")
    assert names(project, ".") == ["keep.py", "src/keep.py"]


def test_gitignore_counts_in_a_git_work_tree_and_ignore_files_everywhere(project: Path, run: RunFn) -> None:
    for name in ("gen/g.py", "pkg/out.py", "pkg/keep.py", "pkg/sub/tmp_x.py", "local.py", "keep.py"):
        write(project / name, "x = 1\n")
    write(project / ".gitignore", "gen/\n")
    write(project / "pkg" / ".gitignore", "out.py\ntmp_*\n")
    write(project / ".ignore", "local.py\n")
    # Not a git work tree: only .ignore applies.
    assert run("check", "--show-files").out.splitlines() == [
        "gen/g.py", "keep.py", "pkg/keep.py", "pkg/out.py", "pkg/sub/tmp_x.py"]
    _git(project)
    assert run("check", "--show-files").out.splitlines() == ["keep.py", "pkg/keep.py"]
    # From inside pkg/, the .gitignore above still applies (up to the work tree's top), and a deeper file's
    # `!` re-includes what a shallower one excluded.
    write(project / "pkg" / "sub" / ".gitignore", "!tmp_x.py\n")
    assert run("check", "--show-files", "pkg").out.splitlines() == ["pkg/keep.py", "pkg/sub/tmp_x.py"]
    assert run("check", "--show-files", "--no-respect-gitignore", "pkg").out.splitlines() == [
        "pkg/keep.py", "pkg/out.py", "pkg/sub/tmp_x.py"]


def test_git_info_exclude_applies(project: Path, run: RunFn) -> None:
    _git(project)
    write(project / ".git" / "info" / "exclude", "scratch.py\n")
    write(project / "scratch.py", "x = 1\n")
    write(project / "keep.py", "x = 1\n")
    assert run("check", "--show-files").out.splitlines() == ["keep.py"]


def test_exclude_replaces_the_defaults_and_extend_exclude_adds(project: Path, run: RunFn) -> None:
    for name in ("build/b.py", "gen/g.py", "keep.py"):
        write(project / name, "x = 1\n")
    assert run("check", "--show-files").out.splitlines() == ["gen/g.py", "keep.py"]
    assert run("check", "--show-files", "--extend-exclude", "gen/").out.splitlines() == ["keep.py"]
    assert run("check", "--show-files", "--exclude", "gen/").out.splitlines() == ["build/b.py", "keep.py"]
    write(project / "pyproject.toml", pyproject_text('extend-exclude = ["gen"]'))
    assert run("check", "--show-files").out.splitlines() == ["keep.py"]


def test_force_exclude_applies_the_excludes_to_named_files(project: Path, run: RunFn) -> None:
    # The pre-commit hook names each staged file: without force-exclude, `exclude` did nothing there.
    write(project / "pyproject.toml", pyproject_text('extend-exclude = ["gen/", "*_pb2.py"]'))
    write(project / "gen" / "g.py", CONFLICT)
    write(project / "api_pb2.py", CONFLICT)
    write(project / "build" / "b.py", CONFLICT)
    write(project / "keep.py", "x = 1\n")
    named = ("gen/g.py", "api_pb2.py", "build/b.py", "keep.py")
    assert run("check", "--show-files", *named).out.splitlines() == list(named)
    assert run("check", "--show-files", "--force-exclude", *named).out.splitlines() == ["keep.py"]
    assert run("check", "--force-exclude", *named).code == 0
    write(project / "pyproject.toml", pyproject_text('extend-exclude = ["gen/"]\nforce-exclude = true'))
    assert run("check", "--show-files", "gen/g.py", "keep.py").out.splitlines() == ["keep.py"]


def test_per_file_ignores(project: Path, run: RunFn) -> None:
    write(project / "pyproject.toml", pyproject_text('per-file-ignores = { "tests/*" = ["HFC001"], "x.py" = ["HFC00"] }'))
    for name in ("tests/t.py", "x.py", "sub/x.py", "app.py"):
        write(project / name, CONFLICT)
    assert [f["filename"] for f in run("check", "--format", "json").json()] == ["app.py"]
    # --fix leaves what they hide alone.
    assert run("check", "--fix").code == 0
    assert (project / "tests" / "t.py").read_text() == CONFLICT
    assert (project / "app.py").read_text() != CONFLICT


def test_show_files_lists_and_exits(project: Path, run: RunFn) -> None:
    write(project / "a.py", CONFLICT)
    r = run("check", "--show-files")
    assert (r.code, r.out) == (0, "a.py\n")
    r = run("check", "--show-files", "missing.py")
    assert r.code == 2 and "missing.py: error: no such file or directory" in r.err
