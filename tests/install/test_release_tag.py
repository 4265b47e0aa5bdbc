"""The README's pre-commit snippet names a release that exists: `rev:` is the package's version, and that tag is
an annotated tag of a commit whose `.pre-commit-hooks.yaml` has the hook the snippet names.

A clone may carry no tags (`git clone --no-tags`, a CI checkout of one commit): then the tags of `origin` are
asked (offline when origin is a local path, as a clone of a local repository has). The tag check skips only
when neither the clone nor its origin has any tag to look at (CI clones from a copy of the branch that carries
no tags at all); when any tag is there, the snippet's must be. The version check never depends on tags.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # the package's own dependency on 3.10 (pyproject.toml)
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[2]


def _git(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True, timeout=30, check=False)


def snippet() -> tuple[str, str]:
    """(rev, hook id) of the README's `.pre-commit-config.yaml` snippet."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    block = next(b for b in re.findall(r"^```yaml\n(.*?)^```$", text, re.M | re.S) if "hooks:" in b)
    rev = re.search(r"^\s*rev:\s*(\S+)\s*$", block, re.M)
    hook = re.search(r"^\s*-\s*id:\s*(\S+)\s*$", block, re.M)
    assert rev and hook, block
    return rev.group(1), hook.group(1)


def package_version(pyproject: str) -> str:
    return str(tomllib.loads(pyproject)["project"]["version"])


def hook_ids(manifest: str) -> list[str]:
    return re.findall(r"^-\s*id:\s*(\S+)\s*$", manifest, re.M)


def test_the_snippet_names_the_package_version_and_a_hook_the_manifest_has() -> None:
    rev, hook = snippet()
    version = package_version((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert rev == f"v{version}", f"README pre-commit rev {rev} is not v{version} (pyproject.toml)"
    assert hook in hook_ids((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))


def test_the_snippet_rev_is_an_annotated_release_tag_with_the_hook() -> None:
    rev, hook = snippet()
    local = _git("tag", "--list").stdout.split()
    if not local:
        remote = _git("ls-remote", "--tags", "origin")
        if remote.returncode != 0:
            pytest.skip("this clone has no tags and its origin cannot be asked (a --no-tags or one-commit "
                        "checkout): the tag cannot be checked here; the version check above still ran")
        tags = {line.split("refs/tags/", 1)[1].removesuffix("^{}") for line in remote.stdout.splitlines()}
        if not tags:
            pytest.skip("neither this clone nor its origin carries any tag (a copy of the branch alone): the "
                        "tag cannot be checked here; the version check above still ran")
        assert rev in tags, f"origin has no tag {rev}: {sorted(tags)}"
        return
    assert rev in local, f"no tag {rev} in this clone (tags: {local}); create it: git tag -a {rev} -m ..."
    assert _git("cat-file", "-t", rev).stdout.strip() == "tag", f"{rev} is a lightweight tag, not annotated"
    manifest = _git("show", f"{rev}:.pre-commit-hooks.yaml")
    assert manifest.returncode == 0, f"{rev} has no .pre-commit-hooks.yaml: pre-commit cannot install from it"
    assert hook in hook_ids(manifest.stdout)
    at_tag = _git("show", f"{rev}:pyproject.toml").stdout
    assert f"v{package_version(at_tag)}" == rev, "the tag's pyproject.toml has another version"
