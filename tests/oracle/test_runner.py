"""The runner itself: each outcome kind, the HFC001 keyword per version (docs/facts.md §1), and the simulation."""

from __future__ import annotations

import pytest

from .conftest import Oracle
from .own_cases import RUNNER, raising_line
from .suites import VERSIONS

pytestmark = pytest.mark.oracle


def check_own(oracle: Oracle, name: str, case: dict[str, object], version: str) -> None:
    got = oracle.outcome(version, f"own:{name}")
    expected = case["expect"][version]  # type: ignore[index]
    kind, _, detail = expected.partition(":")
    assert got.kind == kind, f"{name} on {version}: expected {expected}, got {got.describe()}\n{got.output}"
    if detail:
        assert got.detail == detail, got.message
    contains = case.get("contains", {}).get(version)  # type: ignore[attr-defined]
    if contains and kind != "OK":
        assert contains in got.message, got.message
    if kind != "OK":
        assert got.line == raising_line(case["source"]), got.describe()  # type: ignore[arg-type]


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("name", sorted(RUNNER))
def test_runner_case(oracle: Oracle, name: str, version: str) -> None:
    check_own(oracle, f"runner:{name}", RUNNER[name], version)
