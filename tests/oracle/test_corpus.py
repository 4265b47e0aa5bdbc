"""The labelled corpus (tests/data/corpus): (a) real transformers does what labels.tsv says; (b) our engine agrees with the label.

Kept as two tests so an engine gap never hides runtime truth. A label that real runs contradict is not
edited here: that one test is xfail(strict=True) in KNOWN_LABEL_DISAGREEMENTS with the evidence.
"""

from __future__ import annotations

import pytest

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.target import Target

from .conftest import Oracle
from .suites import CorpusCase, corpus_cases

CODES = ("HFC001", "HFC002", "HFC004", "HFC005")
CASES = corpus_cases()

# (case, version) -> why the real run disagrees with labels.tsv.
KNOWN_LABEL_DISAGREEMENTS: dict[tuple[str, str], str] = {
    ("008_mamba_compile_cache_impl_plus_cache_params.py", "5.23.0"):
        "labels.tsv has one `line` (22) for all versions; on 5.x the OTHER is the ImportError of MambaCache "
        "at line 9 (the generate on line 22 is never reached)",
    ("008_mamba_compile_cache_impl_plus_cache_params.py", "5.24.0"):
        "labels.tsv has one `line` (22) for all versions; on 5.x the OTHER is the ImportError of MambaCache "
        "at line 9 (the generate on line 22 is never reached)",
}


def params() -> list[object]:
    out: list[object] = []
    for case in CASES:
        for version in case.labels:
            marks = []
            reason = KNOWN_LABEL_DISAGREEMENTS.get((case.name, version))
            if reason:
                marks.append(pytest.mark.xfail(strict=True, reason=reason))
            out.append(pytest.param(case, version, marks=marks, id=f"{case.name}@{version}"))
    return out


def expected_kind(label: str) -> str:
    return "OK" if label == "-" else label


@pytest.mark.oracle
@pytest.mark.parametrize(("case", "version"), params())
def test_runtime_matches_label(oracle: Oracle, case: CorpusCase, version: str) -> None:
    label = case.labels[version]
    got = oracle.outcome(version, case.snippet.id)
    # labels.tsv predates HFC007: a removed cache API's ImportError/AttributeError is labelled OTHER there.
    kind = "OTHER" if got.kind == "HFC007" else got.kind
    assert kind == expected_kind(label), (
        f"{case.name} on transformers {version}: label {label}, real run {got.describe()}\n{got.output}")
    if label != "-" and case.line is not None:
        assert got.line == case.line, f"raised at line {got.line}, label says {case.line}: {got.describe()}"


@pytest.mark.parametrize(("case", "version"), [pytest.param(c, v, id=f"{c.name}@{v}") for c in CASES
                                               for v in c.labels])
def test_engine_matches_label(case: CorpusCase, version: str) -> None:
    # Not marked `oracle`: it needs no transformers, only the labels, so it runs everywhere.
    label = case.labels[version]
    result = check_source(case.path.read_text(), str(case.path), context=Context(target=Target.of(version)))
    # A top-level import that fails at this release (HFC007) ends the real run there; the engine reports it and
    # checks the rest as if it had succeeded (issue 29 item 7), so what it finds below that line has no runtime
    # label here: the label is the import's OTHER.
    stop = min((f.span.start.line for f in result.findings if f.code == "HFC007" and "ImportError" in f.message),
               default=None)
    codes = sorted({f.code for f in result.findings if f.code in CODES and (stop is None or f.span.start.line < stop)})
    expected = [label] if label in CODES else []
    assert codes == expected, (
        f"{case.name} for {version}: label {label}, engine reported {codes or 'nothing'}: "
        + "; ".join(f"{f.code} {f.message}" for f in result.findings))
