"""The real-code sets' labels (tests/realcode/cases/sites.tsv, and the held-out sets' heldout/, heldout2/, heldout3/,
heldout4/, heldout5/, heldout6/, heldout7/, heldout8/, heldout9/, heldout10/, heldout11/, heldout12/, heldout13/, heldout14/, heldout15/, heldout16/, heldout17/, heldout18/, heldout19/, heldout20/, heldout21/, heldout22/, heldout23/, heldout24/, heldout25/ and heldout26/, heldout27/ and heldout28/sites.tsv), each proved on real transformers: every site's probe, at every release, does what
its row says (OK; the exception and message at the site's line or one of its observe lines; or, for a silent
effect, the probe's assertion naming the site). One set alone: ORACLE_ONLY=heldout3: (tests/oracle/conftest.py)."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import Oracle
from .suites import VERSIONS, recall_set

pytestmark = pytest.mark.oracle

RS = recall_set()
# (set name, site): "recall" is cases/ (test ids `case:site`), "heldout" is heldout/ (`heldout/case:site`),
# "heldout2" is heldout2/ (`heldout2/case:site`), "heldout3" is heldout3/ (`heldout3/case:site`),
# "heldout4" is heldout4/ (`heldout4/case:site`), "heldout5" is heldout5/ (`heldout5/case:site`), "heldout6" is
# heldout6/ (`heldout6/case:site`), "heldout7" is heldout7/ (`heldout7/case:site`),
# "heldout8" is heldout8/ (`heldout8/case:site`), "heldout9" is heldout9/ (`heldout9/case:site`),
# "heldout10" is heldout10/ (`heldout10/case:site`),
# "heldout11" is heldout11/ (`heldout11/case:site`), "heldout12" is heldout12/ (`heldout12/case:site`),
# "heldout13" is heldout13/ (`heldout13/case:site`), "heldout14" is heldout14/ (`heldout14/case:site`),
# "heldout15" is heldout15/ (`heldout15/case:site`), "heldout16" is heldout16/ (`heldout16/case:site`),
# "heldout17" is heldout17/ (`heldout17/case:site`), "heldout18" is heldout18/ (`heldout18/case:site`),
# "heldout19" is heldout19/ (`heldout19/case:site`),
# "heldout20" is heldout20/ (`heldout20/case:site`),
# "heldout21" is heldout21/ (`heldout21/case:site`), "heldout22" is heldout22/ (`heldout22/case:site`),
# "heldout23" is heldout23/ (`heldout23/case:site`),
# "heldout24" is heldout24/ (`heldout24/case:site`), "heldout25" is heldout25/ (`heldout25/case:site`),
# "heldout26" is heldout26/ (`heldout26/case:site`), "heldout27" is heldout27/ (`heldout27/case:site`),
# "heldout28" is heldout28/ (`heldout28/case:site`).
SITES: list[tuple[str, Any]] = [(name, s) for name, folder in RS.SETS.items()
                                for s in RS.load_sites(folder / "sites.tsv")]


def _id(name: str, site: Any) -> str:
    return f"{site.case}:{site.id}" if name == "recall" else f"{name}/{site.case}:{site.id}"


@pytest.mark.parametrize("name", list(RS.SETS))
def test_table_covers_the_oracle_releases(name: str) -> None:
    assert tuple(RS.versions(RS.SETS[name] / "sites.tsv")) == VERSIONS


def test_every_set_has_sites() -> None:
    assert {name for name, _ in SITES} == set(RS.SETS)


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(("name", "site"), SITES, ids=[_id(n, s) for n, s in SITES])
def test_site_label_is_what_transformers_does(oracle: Oracle, name: str, site: Any, version: str) -> None:
    out = oracle.outcome(version, f"{name}:{site.case.removesuffix('.py')}:{site.probe}")
    want = site.at(version)
    where = f"{name}/{site.case}:{site.line} {site.id} at {version}: expected {want}, got {out.describe()}"
    if want.outcome == "OK":
        assert out.kind == "OK", where
    elif want.outcome == "silent":
        assert out.exc_type == "AssertionError" and out.message.startswith(site.id), where
        assert out.line in site.observe, where
    else:
        assert out.exc_type == want.exc_type and want.text in out.message, where
        assert out.line in site.lines, where
