"""The checks the held-out sets (heldout/, heldout2/, heldout3/, heldout4/, heldout5/, heldout6/, heldout7/,
heldout8/, heldout9/, heldout10/, heldout11/, heldout12/, heldout13/, heldout14/, heldout15/, heldout16/, heldout17/, heldout18/, heldout19/, heldout20/, heldout21/, heldout22/, heldout23/, heldout24/, heldout25/, heldout26/, heldout27/, heldout28/) run, each test module holding its own floors and history."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from realcode_support import Target, run_cli
from recall_set import CLEAN, case_files, load_sites, probes, score, versions

from hf_cache_lint.rules.base import CHECKED_VERSIONS


@dataclass(frozen=True)
class Floor:
    found: int  # breaking sites with a finding, at least
    precision: float  # at least


def check_shape(folder: Path, min_breaking: int = 15, min_per_release: int = 5) -> None:
    """Every case has labelled sites; clean sites outnumber none; each checked release has breaking sites."""
    sites = load_sites(folder / "sites.tsv")
    breaking = [s for s in sites if s.kind != CLEAN]
    clean = [s for s in sites if s.kind == CLEAN]
    assert len(case_files(folder)) >= 8
    assert len(breaking) >= min_breaking and len(clean) >= 15
    assert {s.case for s in sites} == {p.name for p in case_files(folder)}, "a case without a labelled site"
    for version in versions(folder / "sites.tsv"):
        assert sum(s.breaks_at(version) for s in breaking) >= min_per_release, version


def check_releases(folder: Path) -> None:
    assert versions(folder / "sites.tsv") == CHECKED_VERSIONS


def check_probes(folder: Path) -> None:
    sites = load_sites(folder / "sites.tsv")
    runs = probes(sites, folder)
    assert len({p.id for p in runs}) == len(runs)
    for p in runs:
        text = (folder / p.case).read_text()
        assert p.source.startswith(text.rstrip("\n")) and p.source.rstrip().endswith(f"{p.name}()")
        assert {name for name, _ in p.files} == {h.name for h in folder.glob("_*.py")}
    assert {(s.case, s.probe) for s in sites} == {(p.case, p.name) for p in runs}


def check_floor(name: str, folder: Path, floor: Floor, version: str) -> None:
    sites = load_sites(folder / "sites.tsv")
    run = run_cli(Target(name, folder, tuple(p.name for p in case_files(folder))), version)
    assert not run.errors, run.errors
    sc = score(sites, ((f.path, f.line, f.code, f.severity) for f in run.findings), version)
    missed = sorted(f"{s.case}:{s.id} ({s.kind})" for s in sc.missed)
    assert len(sc.found) >= floor.found, f"recall fell to {len(sc.found)}/{sc.sites}; missed: {missed}"
    assert sc.precision >= floor.precision - 1e-9, f"precision fell to {sc.precision:.2f}: {sc.false_findings}"


def held_out_tests(name: str, folder: Path, floors: dict[str, Floor],
                   min_breaking: int = 15, min_per_release: int = 5) -> tuple[Callable[..., None], ...]:
    """The four tests every held-out set's module runs, bound to its folder and floors; the module assigns them to
    its `test_*` names (set shape, releases, probes, and the recall/precision floor per checked release).
    `min_breaking` and `min_per_release` lower the shape's 15 breaking sites (5 at each release) for a set whose repositories broke less (its module says why)."""

    def test_set_shape() -> None:
        # A module copied from another set's must not go on checking that set (heldout26's did until its merge).
        assert folder.name == name, f"test module of {name} checks {folder.name}/"
        check_shape(folder, min_breaking, min_per_release)

    def test_table_releases_are_the_checked_ones() -> None:
        check_releases(folder)

    def test_every_probe_runs_its_case_unchanged() -> None:
        check_probes(folder)

    @pytest.mark.parametrize("version", CHECKED_VERSIONS)
    def test_recall_and_precision_floor(version: str) -> None:
        check_floor(name, folder, floors[version], version)

    return (test_set_shape, test_table_releases_are_the_checked_ones, test_every_probe_runs_its_case_unchanged,
            test_recall_and_precision_floor)
