"""Precision and recall of hf-cache-lint's Error/Warning findings on the real-code recall set, per release.

The set is tests/realcode/cases (reduced cases written from how public projects use caches) with its labels in
cases/sites.tsv, each proved on real transformers by tests/oracle/test_recall_set.py. The CLI runs once per
release (`check --format json --transformers-version X`) over the cases folder, as a user would run it.

    recall   = breaking sites at the release with an Error/Warning finding on one of their lines / breaking sites
    precision = Error/Warning findings on a line of a site breaking at the release / all Error/Warning findings

`--set heldout` scores the held-out set instead (tests/realcode/heldout: cases written from public repositories
nobody here had used, labelled on the oracle before the checker was run; tests/realcode/test_heldout.py).
`--set heldout2` scores the second held-out set (tests/realcode/heldout2: other public repositories, labelled the
same way and measured without changing the checker; tests/realcode/test_heldout2.py).
`--set heldout3` scores the third held-out set (tests/realcode/heldout3: other public repositories again, labelled
on the oracle before anyone ran the checker on it; tests/realcode/test_heldout3.py).
`--set heldout4` scores the fourth held-out set (tests/realcode/heldout4: other public repositories again, labelled
on the oracle before anyone ran the checker on it; tests/realcode/test_heldout4.py).
`--set heldout5` scores the fifth held-out set (tests/realcode/heldout5: other public repositories again, labelled
on the oracle before anyone ran the checker on it; tests/realcode/test_heldout5.py).
`--set heldout6` scores the sixth held-out set (tests/realcode/heldout6: other public repositories again, labelled
on the oracle before anyone ran the checker on it; tests/realcode/test_heldout6.py).
`--set heldout7` scores the seventh held-out set (tests/realcode/heldout7: other public repositories again,
labelled on the oracle before anyone ran the checker on it; tests/realcode/test_heldout7.py).
`--set heldout8` scores the eighth held-out set (tests/realcode/heldout8: other public repositories again,
labelled on the oracle before anyone ran the checker on it; tests/realcode/test_heldout8.py).
`--set heldout9` scores the ninth held-out set (tests/realcode/heldout9: other public repositories again,
labelled on the oracle before anyone ran the checker on it; tests/realcode/test_heldout9.py).
`--set heldout10` scores the tenth held-out set (tests/realcode/heldout10: other public repositories again,
labelled on the oracle before anyone ran the checker on it; tests/realcode/test_heldout10.py).
`--set heldout11` scores the eleventh held-out set (tests/realcode/heldout11: other public repositories again,
labelled on the oracle before anyone ran the checker on it; tests/realcode/test_heldout11.py).
`--set heldout12` scores the twelfth held-out set (tests/realcode/heldout12: other public repositories again,
labelled on the oracle before anyone ran the checker on it; tests/realcode/test_heldout12.py).
`--set heldout13` scores the thirteenth held-out set (tests/realcode/heldout13: other public repositories again,
labelled on the oracle before anyone ran the checker on it; tests/realcode/test_heldout13.py).
`--set heldout14` scores the fourteenth held-out set (tests/realcode/heldout14: other public repositories again,
labelled on the oracle before anyone ran the checker on it; tests/realcode/test_heldout14.py).
`--set heldout15` scores the fifteenth held-out set (tests/realcode/heldout15: other public repositories again,
labelled on the oracle before anyone ran the checker on it; tests/realcode/test_heldout15.py).
`--set heldout16` scores the sixteenth held-out set (tests/realcode/heldout16: other public repositories again,
labelled on the oracle before anyone ran the checker on it; tests/realcode/test_heldout16.py).
`--set heldout17` scores the seventeenth held-out set (tests/realcode/heldout17: other public repositories again,
labelled on the oracle before anyone ran the checker on it; tests/realcode/test_heldout17.py).
`--set heldout18` scores the eighteenth held-out set (tests/realcode/heldout18: other public repositories again,
labelled on the oracle before anyone ran the checker on it; tests/realcode/test_heldout18.py).
`--set heldout19` scores the nineteenth held-out set (tests/realcode/heldout19: other public repositories again,
labelled on the oracle before anyone ran the checker on it; tests/realcode/test_heldout19.py).
`--set heldout20` scores the twentieth held-out set (tests/realcode/heldout20: other public repositories again,
labelled on the oracle before anyone ran the checker on it; tests/realcode/test_heldout20.py).
`--set heldout21` scores the twenty-first held-out set (tests/realcode/heldout21: other public repositories again,
labelled on the oracle before anyone ran the checker on it; tests/realcode/test_heldout21.py).
`--set heldout22` scores the twenty-second held-out set (tests/realcode/heldout22: other public repositories again,
labelled on the oracle before anyone ran the checker on it; tests/realcode/test_heldout22.py).
`--set heldout23` scores the twenty-third held-out set (tests/realcode/heldout23: other public repositories again,
labelled on the oracle before anyone ran the checker on it; tests/realcode/test_heldout23.py).
`--set heldout24` scores the twenty-fourth held-out set (tests/realcode/heldout24: other public repositories again,
labelled on the oracle before anyone ran the checker on it; tests/realcode/test_heldout24.py).
`--set heldout25` scores the twenty-fifth held-out set (tests/realcode/heldout25: other public repositories again,
labelled on the oracle before anyone ran the checker on it; tests/realcode/test_heldout25.py).
`--set heldout26` scores the twenty-sixth held-out set (tests/realcode/heldout26: other public repositories again,
labelled on the oracle before anyone ran the checker on it; tests/realcode/test_heldout26.py).
`--set heldout27` scores the twenty-seventh held-out set (tests/realcode/heldout27: other public repositories again,
labelled on the oracle before anyone ran the checker on it; tests/realcode/test_heldout27.py).
`--set heldout28` scores the twenty-eighth held-out set (tests/realcode/heldout28: other public repositories again,
labelled on the oracle before anyone ran the checker on it; tests/realcode/test_heldout28.py).

The code measured is always this script's own checkout (ROOT/server is put first on the path, whatever PYTHONPATH
says): the report's first line names it and its commit, so a figure is never taken from the wrong checkout.

Usage: python scripts/recall.py [--set recall|heldout|heldout2|heldout3|heldout4|heldout5|heldout6|heldout7|heldout8|heldout9|heldout10|heldout11|heldout12|heldout13|heldout14|heldout15|heldout16|heldout17|heldout18|heldout19|heldout20|heldout21|heldout22|heldout23|heldout24|heldout25|heldout26|heldout27|heldout28] [--json]
(tests/realcode/test_recall.py, test_heldout.py and test_heldout2.py hold the floors)
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "server"), str(ROOT / "tests" / "realcode")]

from realcode_support import Target, run_cli  # noqa: E402
from recall_set import CASES, SETS, Score, Site, case_files, load_sites, score, versions  # noqa: E402


def measure(sites: list[Site], version: str, folder: Path = CASES) -> tuple[Score, tuple[str, ...]]:
    """The score at `version`, and the errors the CLI reported (a file it could not check, a crash)."""
    name = next(n for n, f in SETS.items() if f == folder)
    run = run_cli(Target(name, folder, tuple(p.name for p in case_files(folder))), version)
    return score(sites, ((f.path, f.line, f.code, f.severity) for f in run.findings), version), run.errors


def report(sites: list[Site], scores: list[Score], folder: Path = CASES) -> str:
    clean = sum(s.kind == "clean" for s in sites)
    name = next(n for n, f in SETS.items() if f == folder)
    lines = [f"{name} set: {len(case_files(folder))} cases, {len(sites) - clean} sites that break at some release, "
             f"{clean} clean sites"]
    for sc in scores:
        lines.append(f"{sc.version}: recall {len(sc.found)}/{sc.sites} = {sc.recall:.2f}, precision "
                     f"{sc.true_findings}/{sc.true_findings + len(sc.false_findings)} = {sc.precision:.2f}")
        kinds = Counter(s.kind for s in sc.missed)
        lines.append("  missed kinds: " + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())))
        for m in sc.missed:
            lines.append(f"  missed: {m.case}:{m.line} {m.id} ({m.kind})")
        for case, line, code in sc.false_findings:
            lines.append(f"  false: {case}:{line} {code}")
    return "\n".join(lines)


def measured_code() -> str:
    """Which code the figures are of: this checkout's server/ and its commit (with `+dirty` for local changes)."""
    def git(*args: str) -> str:
        run = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True, check=False)
        return run.stdout.strip() if run.returncode == 0 else ""
    commit = git("rev-parse", "--short", "HEAD") or "unknown commit"
    dirty = "+dirty" if git("status", "--porcelain", "--", "server") else ""
    return f"code measured: {ROOT / 'server'} at {commit}{dirty}"


def chosen_set(argv: list[str]) -> Path:
    """The folder `--set NAME` names (cases/ when not given)."""
    if "--set" not in argv:
        return CASES
    i = argv.index("--set")
    if i + 1 >= len(argv) or argv[i + 1] not in SETS:
        sys.exit(f"--set takes one of: {', '.join(SETS)}")
    return SETS[argv[i + 1]]


def main() -> None:
    folder = chosen_set(sys.argv[1:])
    table = folder / "sites.tsv"
    sites = load_sites(table)
    scores = []
    for version in versions(table):
        sc, errors = measure(sites, version, folder)
        if errors:
            sys.exit(f"the check failed at {version}: {errors}")
        scores.append(sc)
    if "--json" in sys.argv[1:]:
        print(json.dumps([{"version": s.version, "sites": s.sites, "found": list(s.found),
                           "missed": [f"{m.case}:{m.id} ({m.kind})" for m in s.missed],
                           "true_findings": s.true_findings, "false_findings": [list(f) for f in s.false_findings],
                           "recall": round(s.recall, 4), "precision": round(s.precision, 4)} for s in scores],
                         indent=1))
    else:
        print(measured_code())
        print(report(sites, scores, folder))


if __name__ == "__main__":
    main()
