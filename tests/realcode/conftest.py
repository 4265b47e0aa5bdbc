"""The real-code batch's measures (realcode_support.batch) at the end of the run."""

from __future__ import annotations

import pytest
from realcode_support import BATCHES, VERSIONS


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not BATCHES:
        return
    b = BATCHES[0]
    w = terminalreporter.write_line
    w(f"real code: {len(b.targets)} packages x {len(VERSIONS)} transformers versions in {b.seconds:.1f}s")
    w(f"  {'package':32} {'files':>6} {'topic':>6} {'parsed':>6}  " + "  ".join(
        f"{v + ' E/W/I/H':>16}" for v in VERSIONS) + "   seconds")
    for pid, t in b.targets.items():
        cells = []
        for v in VERSIONS:
            r = b.runs[(pid, v)]
            n = [sum(f.severity == s for f in r.findings) for s in ("error", "warning", "info", "hint")]
            cells.append(f"{'/'.join(map(str, n)):>16}")
        secs = "/".join(f"{b.runs[(pid, v)].seconds:.0f}" for v in VERSIONS)
        w(f"  {pid:32} {len(t.files):6} {t.topical:6} {t.prefiltered:6}  " + "  ".join(cells) + f"   {secs}")
    w(f"  {'total':32} {sum(len(t.files) for t in b.targets.values()):6} "
      f"{sum(t.topical for t in b.targets.values()):6} {sum(t.prefiltered for t in b.targets.values()):6}")
