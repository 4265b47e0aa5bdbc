"""`Version.parse` reads versions as `packaging` does, keeps a pre-release's tag for display, and checks a
pre-release, dev or local build as the release it leads to (engine/environment/release_version.py says why)."""

from __future__ import annotations

import pytest

from hf_cache_lint.engine.environment.release_version import Version


@pytest.mark.parametrize(("text", "shown", "release"), [
    ("4.57.6", "4.57.6", (4, 57, 6)),
    ("v5.1", "5.1.0", (5, 1, 0)),
    (" 5.24.0 ", "5.24.0", (5, 24, 0)),
    ("5.0.0rc1", "5.0.0rc1", (5, 0, 0)),
    ("5.0.0-rc.1", "5.0.0rc1", (5, 0, 0)),  # packaging's normal form
    ("4.58.0.dev0", "4.58.0.dev0", (4, 58, 0)),  # a source checkout of main
    ("5.24.0+cpu", "5.24.0+cpu", (5, 24, 0)),
])
def test_versions_keep_their_tag_and_compare_by_release(text: str, shown: str, release: tuple[int, int, int]) -> None:
    v = Version.parse(text)
    assert str(v) == shown
    assert (v.major, v.minor, v.patch) == release
    assert v == Version(*release) and hash(v) == hash(Version(*release))


def test_a_release_candidate_is_checked_with_the_api_of_its_release() -> None:
    assert Version.parse("5.0.0rc1") >= Version.parse("5.0.0") > Version.parse("4.57.6")
    assert Version.parse("4.58.0.dev0") > Version.parse("4.57.6")


@pytest.mark.parametrize("text", ["", "abc", "five", "1!5.0.0", "5.0.0.1", "5.0.0 rc1 x"])
def test_what_is_no_transformers_version_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="not a transformers version"):
        Version.parse(text)
