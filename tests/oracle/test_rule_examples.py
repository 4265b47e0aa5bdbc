"""Every rule example, run for real on every checked version (hf_cache_lint.rules.base.CHECKED_VERSIONS).

- Valid: must run clean (OK) on each of its `versions`. Any exception is a broken example, even one that
  is not this rule's error: examples are shown to users as code that works.
- Invalid: must raise `runtime or rule.code` on each of its `versions`, and must NOT raise it on the
  other checked versions (when it is an HFC code). When `runtime` maps versions to outcomes, a version it names must give exactly
  that outcome ("OK" and "OTHER" included), wherever the version is listed.
- A deprecation rule (HFC006) predicts a warning, not an exception: its examples are judged on the outcome's
  `verdict`, where a clean run that warned of a cache deprecation counts as "HFC006" and a silent one as "OK".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

import pytest

from hf_cache_lint.rules.base import CHECKED_VERSIONS, Invalid

from .conftest import Oracle
from .runner import WARNED_KINDS
from .suites import Example, FixedExample, fixed_examples, rule_examples

pytestmark = pytest.mark.oracle

EXAMPLES = rule_examples()
FIXED = fixed_examples()


def params() -> list[object]:
    return [pytest.param(ex, v, id=f"{ex.id}@{v}") for ex in EXAMPLES for v in CHECKED_VERSIONS]


@pytest.mark.parametrize(("ex", "version"), params())
def test_example_runtime(oracle: Oracle, ex: Example, version: str) -> None:
    outcome = oracle.outcome(version, ex.snippet.id)
    # A deprecation rule's examples must tell "warned" from "ran silently"; the others only look at exceptions.
    got = replace(outcome, kind=outcome.verdict) if ex.rule.code in WARNED_KINDS else outcome
    where = f"{ex.id} on transformers {version} ({ex.example.note or 'no note'})\n--- code ---\n{ex.example.code}"
    if isinstance(ex.example, Invalid):
        runtime = ex.example.runtime
        if isinstance(runtime, Mapping) and version in runtime:
            # Stated explicitly for this version (it may be "OK" or "OTHER"): that is what must happen.
            expected = runtime[version]
            assert got.kind == expected, f"{where}\nexpected {expected}, real run: {got.describe()}\n{got.output}"
        elif version in ex.example.versions:
            expected = runtime if isinstance(runtime, str) else ex.rule.code
            assert got.kind == expected, f"{where}\nexpected {expected}, real run: {got.describe()}\n{got.output}"
        elif (expected := runtime if isinstance(runtime, str) else ex.rule.code).startswith("HFC"):
            # Only an error code can be "not raised" elsewhere; "OK"/"OTHER" say nothing about other versions.
            assert got.kind != expected, f"{where}\nmust not raise {expected} here, real run: {got.describe()}"
    elif version in ex.example.versions:
        assert got.kind == "OK", f"{where}\nvalid example must run clean, real run: {got.describe()}\n{got.output}"


@pytest.mark.parametrize("fx", FIXED, ids=lambda fx: fx.id)
def test_fixed_example_runs_clean(oracle: Oracle, fx: FixedExample) -> None:
    """A fix must leave code that runs: the error is gone and no other one took its place."""
    got = oracle.outcome(fx.version, fx.snippet.id)
    where = f"{fx.id} on transformers {fx.version}\n--- fixed code ---\n{fx.snippet.source}"
    if got.kind == "OTHER" and "offloaded" in fx.snippet.source and "not compiled with CUDA" in got.message:
        # The fix leaves an offloaded cache in use, which needs a real GPU; the harness's GPU is the CPU
        # (tests/oracle/README.md). The cache error is gone, which is what this test is about.
        return
    assert got.kind == "OK", f"{where}\nthe fixed code must run clean, real run: {got.describe()}\n{got.output}"
    if fx.rule.code in WARNED_KINDS:  # a deprecation's fix must also silence the warning it predicted
        assert got.verdict == "OK", f"{where}\nthe fixed code still warns: {got.describe()}\n{got.output}"
