"""docs/facts.md claims, re-checked against real transformers on every version (see own_cases.FACTS)."""

from __future__ import annotations

import pytest

from .conftest import Oracle
from .own_cases import FACTS
from .suites import VERSIONS
from .test_runner import check_own

pytestmark = pytest.mark.oracle


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("name", sorted(FACTS))
def test_fact(oracle: Oracle, name: str, version: str) -> None:
    check_own(oracle, f"facts:{name}", FACTS[name], version)
