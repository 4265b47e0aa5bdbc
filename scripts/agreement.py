"""Agreement between our findings and what real transformers raises, per version (for release notes).

Runs every rule example and every tests/data/corpus case through the oracle (tests/oracle, needs
scripts/setup-oracle.sh) and through the engine, then counts, per transformers version:
  TP  we predict the error transformers raises     FP  we predict an error it does not raise
  FN  it raises an HFC error we do not predict     TN  neither
  masked: we predict an error, but the run first fails with another exception (undetermined)
A prediction is an Error finding, or an HFC001 Warning (a conflict on some path); other rules' Warnings
and Information findings are deprecations, which never raise. HFC003's wrong keyword raises the 'model_kwargs are not used' error, which the oracle files as HFC005.
Usage: python scripts/agreement.py
"""

from __future__ import annotations

import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.oracle.runner import Snippet, finish, missing, start  # noqa: E402
from tests.oracle.suites import VERSIONS, corpus_cases, rule_examples  # noqa: E402

from hf_cache_lint.checking.source import check_source  # noqa: E402
from hf_cache_lint.engine.base.findings import Severity  # noqa: E402
from hf_cache_lint.engine.environment.context import Context  # noqa: E402
from hf_cache_lint.engine.environment.target import Target  # noqa: E402

RAISES_AS = {"HFC003": "HFC005"}


def predicted(snippet: Snippet, real_path: Path | None, version: str) -> set[str]:
    with tempfile.TemporaryDirectory() as tmp:
        if real_path is None:
            for rel, content in snippet.files.items():
                (Path(tmp) / rel).parent.mkdir(parents=True, exist_ok=True)
                (Path(tmp) / rel).write_text(content)
            path = Path(tmp) / "example.py"
            path.write_text(snippet.source)
            ctx = Context(target=Target.of(version), workspace=Path(tmp))
        else:
            path, ctx = real_path, Context(target=Target.of(version))
        found = check_source(path.read_text(), str(path), context=ctx).findings
    return {RAISES_AS.get(f.code, f.code) for f in found if predicts_error(f.code, f.severity, f.message)}


def predicts_error(code: str, severity: Severity, message: str = "") -> bool:
    """An Error predicts an exception; so does an HFC001 Warning (a conflict on some path) and any Error
    made a Warning by a version test the linter cannot decide (it raises where the test lets the code run).
    Other Warnings and Information/Hint findings are deprecations that do not raise."""
    return severity == Severity.ERROR or (severity == Severity.WARNING and (
        code == "HFC001" or "only where the version test" in message))


def main() -> None:
    groups: dict[str, list[tuple[Snippet, Path | None]]] = {
        "rule examples": [(ex.snippet, None) for ex in rule_examples()],
        "corpus": [(c.snippet, c.path) for c in corpus_cases()],
    }
    if any(missing(v) for v in VERSIONS):
        raise SystemExit("oracle environments missing: run scripts/setup-oracle.sh")
    snippets = [s for items in groups.values() for s, _ in items]
    started = {v: start(v, snippets) for v in VERSIONS}
    outcomes = {v: finish(v, *started[v]) for v in VERSIONS}
    for group, items in groups.items():
        for version in VERSIONS:
            counts: Counter[str] = Counter()
            misses = []
            for snippet, real in items:
                actual = outcomes[version][snippet.id].kind
                ours = predicted(snippet, real, version)
                raised = actual if actual.startswith("HFC") else None
                if actual == "OTHER" and ours:
                    # The run fails first on something else (a removed API, the tiny model): whether our
                    # finding would have raised later is undetermined, so it counts neither way.
                    counts["masked"] += 1
                    misses.append(f"masked {snippet.id}: we say {sorted(ours)}, it fails first with OTHER")
                elif raised and raised in ours:
                    counts["TP"] += 1
                elif ours - ({raised} if raised else set()):
                    counts["FP"] += 1
                    misses.append(f"FP {snippet.id}: we say {sorted(ours)}, it raises {actual}")
                elif raised:
                    counts["FN"] += 1
                    misses.append(f"FN {snippet.id}: it raises {actual}, we say nothing")
                else:
                    counts["TN"] += 1
            tp, fp, fn = counts["TP"], counts["FP"], counts["FN"]
            precision = tp / (tp + fp) if tp + fp else 1.0
            recall = tp / (tp + fn) if tp + fn else 1.0
            print(f"{group:14} {version}: {len(items)} snippets  TP {tp}  FP {fp}  FN {fn}  TN {counts['TN']}  "
                  f"masked {counts['masked']}  precision {precision:.2f}  recall {recall:.2f}")
            for line in misses:
                print("    " + line)


if __name__ == "__main__":
    main()
