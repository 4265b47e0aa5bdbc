"""The real-code recall set's labels (tests/realcode/cases/sites.tsv), each proved on real transformers: every
site's probe, at every release, does what its row says (OK; the exception and message at the site's line or one
of its observe lines; or, for a silent effect, the probe's assertion naming the site)."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import Oracle
from .suites import VERSIONS, recall_set

pytestmark = pytest.mark.oracle

RS = recall_set()
SITES: list[Any] = RS.load_sites()


def test_table_covers_the_oracle_releases() -> None:
    assert tuple(RS.versions()) == VERSIONS


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("site", SITES, ids=[f"{s.case}:{s.id}" for s in SITES])
def test_site_label_is_what_transformers_does(oracle: Oracle, site: Any, version: str) -> None:
    out = oracle.outcome(version, f"recall:{site.case.removesuffix('.py')}:{site.probe}")
    want = site.at(version)
    where = f"{site.case}:{site.line} {site.id} at {version}: expected {want}, got {out.describe()}"
    if want.outcome == "OK":
        assert out.kind == "OK", where
    elif want.outcome == "silent":
        assert out.exc_type == "AssertionError" and out.message.startswith(site.id), where
        assert out.line in site.observe, where
    else:
        assert out.exc_type == want.exc_type and want.text in out.message, where
        assert out.line in site.lines, where
