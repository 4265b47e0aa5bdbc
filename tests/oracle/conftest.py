"""One session-wide batch: every oracle snippet (corpus, rule examples, own cases) runs once per version.

The three version workers run side by side; the first test that needs an outcome waits for all of them.
A missing environment FAILS under CI=true (the CI must run scripts/setup-oracle.sh) and skips locally.

ORACLE_ONLY=prefix[,prefix...] runs only the snippets whose id starts with one of the prefixes (e.g.
`ORACLE_ONLY=heldout3:` for one real-code set's probes: seconds instead of the whole batch's minutes); every
other test skips, saying so. Unset (the default, and CI), the whole batch runs.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence

import pytest

from .runner import Outcome, Snippet, finish, missing, start
from .suites import VERSIONS, all_snippets, versions_of


class Oracle:
    """Outcomes of all snippets for all versions, computed on first use."""

    def __init__(self, versions: Sequence[str], snippets: Sequence[Snippet]) -> None:
        self.versions = tuple(versions)
        self.snippets = list(snippets)
        self._results: dict[str, dict[str, Outcome]] | None = None
        self._error: str | None = None
        self.seconds = 0.0

    def _run(self) -> None:
        reasons = [r for v in self.versions if (r := missing(v))]
        if reasons:
            self._error = reasons[0]
            return
        began = time.monotonic()
        started = {v: start(v, [s for s in self.snippets if v in versions_of(s.id)]) for v in self.versions}
        results = {}
        try:
            for v, (proc, work) in started.items():
                results[v] = finish(v, proc, work)
        except RuntimeError as exc:
            self._error = str(exc)
            for proc, _ in started.values():
                proc.kill()
            return
        self._results = results
        self.seconds = time.monotonic() - began

    def outcome(self, version: str, snippet_id: str) -> Outcome:
        if self._results is None and self._error is None:
            self._run()
        if self._error is not None:
            if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
                pytest.fail(f"oracle unavailable under CI: {self._error}", pytrace=False)
            pytest.skip(f"oracle unavailable: {self._error}")
        assert self._results is not None
        if snippet_id not in self._results[version] and ONLY:
            pytest.skip(f"snippet {snippet_id} not selected by ORACLE_ONLY={','.join(ONLY)}")
        return self._results[version][snippet_id]


def selected(snippets: Sequence[Snippet], only: Sequence[str]) -> list[Snippet]:
    """The snippets whose id starts with one of `only` (all of them when `only` is empty)."""
    return [s for s in snippets if not only or s.id.startswith(tuple(only))]


ONLY = tuple(p.strip() for p in os.environ.get("ORACLE_ONLY", "").split(",") if p.strip())
_ORACLE = Oracle(VERSIONS, selected(all_snippets(), ONLY))


@pytest.fixture(scope="session")
def oracle() -> Oracle:
    return _ORACLE


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if _ORACLE.seconds:
        terminalreporter.write_line(
            f"oracle: {len(_ORACLE.snippets)} snippets x {len(VERSIONS)} transformers versions "
            f"ran in {_ORACLE.seconds:.1f}s")
