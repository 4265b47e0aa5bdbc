"""gitignore-style matching for file selection, on `pathspec` (its GitIgnoreSpec follows git's own rules).

The `.gitignore` / `.ignore` files the folder walk meets (cli_support/discovery.py), matched with
selection.py's `PathSpec` (as `exclude` and `per-file-ignores` are). What stays hand-written here
is only the layering git does between files (a deeper ignore file decides before a shallower one) and the
"inside a git repository" test (`.gitignore` counts there only, as in ripgrep's and Ruff's walker): pathspec
matches one list of patterns.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from hf_cache_lint.selection import PathSpec

# The files a folder walk reads its ignore patterns from (Ruff's `respect-gitignore`, through the `ignore`
# crate): `.gitignore` inside a git repository only, `.ignore` anywhere; `.ignore` read last, so it wins.
GITIGNORE, IGNORE = ".gitignore", ".ignore"


def _lines(path: str) -> list[str]:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read().splitlines()
    except OSError:
        return []


def folder_spec(folder: str, names: Sequence[str] | frozenset[str], in_git: bool) -> PathSpec | None:
    """The patterns of the ignore files in `folder` (whose entry names are `names`), None when it has none."""
    if GITIGNORE not in names and IGNORE not in names:
        return None
    lines: list[str] = []
    if in_git and GITIGNORE in names:
        lines += _lines(os.path.join(folder, GITIGNORE))
    if IGNORE in names:
        lines += _lines(os.path.join(folder, IGNORE))
    spec = PathSpec.of(lines) if lines else None
    return spec if spec is not None and spec.patterns else None


def git_root(folder: str) -> str | None:
    """The top of the git work tree holding `folder` (a `.git` folder or file there), else None."""
    here = os.path.abspath(folder)
    while True:
        if os.path.exists(os.path.join(here, ".git")):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def repo_specs(folder: str, root: str | None) -> list[tuple[str, PathSpec]]:
    """The ignore files above `folder` that apply to it (up to the git root, `.git/info/exclude` included),
    outermost first, each with the folder its patterns are relative to. Without a git root: `.ignore` files
    are not looked for above the walked folder (nothing says where a project ends)."""
    if root is None:
        return []
    out: list[tuple[str, PathSpec]] = []
    exclude = PathSpec.of(_lines(os.path.join(root, ".git", "info", "exclude")))
    if exclude.patterns:
        out.append((root, exclude))
    here = os.path.abspath(folder)
    chain = []
    while True:
        here = os.path.dirname(here)
        if len(here) < len(root) or not here.startswith(root):
            break
        chain.append(here)
        if here == root:
            break
    for above in reversed(chain):
        try:
            names = frozenset(os.listdir(above))
        except OSError:
            continue
        spec = folder_spec(above, names, True)
        if spec is not None:
            out.append((above, spec))
    return out


def ignored(layers: Sequence[tuple[str, PathSpec]], absolute: str, is_dir: bool) -> bool:
    """Whether the ignore files `layers` (outermost first, each folder an ancestor of `absolute`) exclude
    `absolute`: the deepest file whose patterns say anything about the path decides, as git reads them."""
    for base, spec in reversed(layers):
        rel = absolute[len(base) + 1:]
        decided = spec.decides(rel if _POSIX else rel.replace(os.sep, "/"), is_dir)
        if decided is not None:
            return decided
    return False


_POSIX = os.sep == "/"
