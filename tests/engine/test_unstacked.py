"""checking/source.py `_unstacked`: a yielding rule's finding goes where an Error or Warning covers it, and
finding that out costs a bisection per finding, not a scan of every covering span."""

from __future__ import annotations

import random

from hf_cache_lint.checking.source import _unstacked
from hf_cache_lint.engine.base.findings import Finding, Related, Severity, Span


def scan(findings: list[Finding], yielding: frozenset[str]) -> list[Finding]:
    """The definition, one comparison per pair: what the bisection must agree with."""
    raising = [f for f in findings if f.code not in yielding and f.severity in (Severity.ERROR, Severity.WARNING)]
    spans = [f.span for f in raising] + [r.span for f in raising for r in f.related if r.path is None]
    return [f for f in findings
            if f.code not in yielding or not any(s.start < f.span.end and f.span.start < s.end for s in spans)]


def test_the_bisection_keeps_and_drops_what_a_scan_of_every_pair_does() -> None:
    rng = random.Random(31)
    severities = list(Severity)
    for _ in range(300):
        findings = []
        for _ in range(rng.randint(0, 12)):
            line = rng.randint(1, 6)
            start = rng.randint(0, 8)
            end_line = line + rng.choice((0, 0, 1))
            end = rng.randint(start if end_line == line else 0, 10)
            related = tuple(Related(Span.of(rng.randint(1, 6), 0, 7, 0), "r", path=rng.choice((None, "o.py")))
                            for _ in range(rng.randint(0, 1)))
            findings.append(Finding(rng.choice(("HFC001", "HFC006")), "n", "m", rng.choice(severities),
                                    Span.of(line, start, end_line, end), related=related))
        yielding = frozenset({"HFC006"})
        assert _unstacked(findings, yielding) == scan(findings, yielding)
