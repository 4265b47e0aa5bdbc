"""The runner itself: each outcome kind, the HFC001 keyword per version (docs/facts.md §1), and the simulation."""

from __future__ import annotations

import pytest

from .conftest import Oracle, selected
from .own_cases import RUNNER, raising_line
from .runner import Snippet
from .suites import VERSIONS

pytestmark = pytest.mark.oracle


def _as_of(table: dict[str, str], version: str) -> str | None:
    """The entry for `version`, else for the newest checked release before it that has one: a case written before
    a release was checked (5.25.0) expects what it did on the release before, and the run there proves it."""
    earlier = [v for v in VERSIONS[:VERSIONS.index(version) + 1] if v in table]
    return table[earlier[-1]] if earlier else None


def check_own(oracle: Oracle, name: str, case: dict[str, object], version: str) -> None:
    got = oracle.outcome(version, f"own:{name}")
    expected = _as_of(case["expect"], version)  # type: ignore[arg-type]
    assert expected is not None, f"{name}: no expectation for {version} or a release before it"
    kind, _, detail = expected.partition(":")
    assert got.kind == kind, f"{name} on {version}: expected {expected}, got {got.describe()}\n{got.output}"
    if detail:
        assert got.detail == detail, got.message
    contains = _as_of(case.get("contains", {}), version)  # type: ignore[attr-defined]
    if contains and kind != "OK":
        assert contains in got.message, got.message
    if kind != "OK":
        assert got.line == raising_line(case["source"]), got.describe()  # type: ignore[arg-type]


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("name", sorted(RUNNER))
def test_runner_case(oracle: Oracle, name: str, version: str) -> None:
    check_own(oracle, f"runner:{name}", RUNNER[name], version)


def test_oracle_only_keeps_the_snippets_its_prefixes_name() -> None:
    snippets = [Snippet("heldout3:a:probe_x", ""), Snippet("recall:b:probe_y", ""), Snippet("own:c", "")]
    assert [s.id for s in selected(snippets, ("heldout3:", "own:"))] == ["heldout3:a:probe_x", "own:c"]
    assert selected(snippets, ()) == snippets  # unset: the whole batch
