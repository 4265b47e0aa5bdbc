"""A keystroke's CPU in process, stage by stage, for this checkout and another, alternating in one run (not a test).

    python bench/keystroke_stages.py [--before DIR] [--rounds 5] [--edits 30] [--kinds code,comment,newline,script]
    python bench/keystroke_stages.py --before DIR --instructions [--edits 10] [--kinds code]

Each round runs, for each edit kind and each checkout in turn, one process (DIR/server first on PYTHONPATH for
`--before`, else this checkout's server) that checks the text once as an editor buffer (check_source with
incremental=True and lazy_stories=True, as lsp/documents.py calls it), then makes `--edits` edits of that kind
(bench/lsp_latency.py's SCRIPT_EDITS and UTILS_EDITS: typed into code, into a comment, Enter then the lines joined
again, on transformers' generation/utils.py; typed into the 100-line script) and checks each. Per edit: the
process's CPU time of the whole check and of its stages, timed by wrapping them (no cProfile: its per-call cost
inflates the interpreter's many small calls): parso's parse, the interpreter's module run and within it the
functions nobody calls (`run_uncalled`, replays included), the hook reader, the removed-API reader; the rest (the
rules, the fact grouping, the collection the check's end makes due) is the remainder. Figures: per process the
median over its edits, then the median over rounds, and the median of each round's after/before ratio (the two ran
back to back: a change of load moves both).

`--instructions`: instead, the instructions each checkout executes per edit, counted by valgrind's callgrind
(needs valgrind; ~50x slower): the count of a process making `--edits` edits minus one making none, divided by
the edits. Unlike CPU time, it does not move with the machine's load (the shared machine's load of 6-12 moves a
keystroke's CPU time by 10-20 % between rounds, more than most single changes are worth).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent
KINDS = ("code", "comment", "newline", "script")
STAGES = ("total", "parse", "interpreter", "run_uncalled", "hooks", "removed_api")


def child(kind: str, edits: int) -> None:
    """In the measured process: check the text, then `edits` edits of `kind`; print the per-stage medians (ms)."""
    sys.path.insert(0, str(ROOT))
    from lsp_latency import SCRIPT_EDITS, UTILS_EDITS, generation_utils, script_100_lines

    from hf_cache_lint.checking import source
    from hf_cache_lint.engine.environment.context import resolve_context
    from hf_cache_lint.engine.interpreter import Interpreter, functions, interp

    spent: dict[str, float] = defaultdict(float)

    def timed(owner: Any, name: str, stage: str) -> None:
        inner: Callable[..., Any] = getattr(owner, name)

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            start = time.process_time()
            try:
                return inner(*args, **kwargs)
            finally:
                spent[stage] += time.process_time() - start

        setattr(owner, name, wrapper)

    timed(interp, "parse", "parse")
    timed(Interpreter, "run_module", "interpreter")
    timed(functions.UserFunctions, "run_uncalled", "run_uncalled")
    timed(interp, "hook_facts", "hooks")
    timed(interp, "removed_api_uses", "removed_api")
    if kind == "script":
        text, path, edit = script_100_lines(), "/tmp/keystroke_stages_script.py", SCRIPT_EDITS[0]
    else:
        utils = generation_utils()
        text, path, edit = utils.read_text(), str(utils), UTILS_EDITS[("code", "comment", "newline").index(kind)]
    context = resolve_context()
    source.check_source(text, path, None, context, incremental=True, lazy_stories=True)
    lines = text.split("\n")
    per: dict[str, list[float]] = defaultdict(list)
    for n in range(edits + edits % 2):  # even: the text ends as it began
        _, lines = edit.change(lines, n)
        changed = "\n".join(lines)
        spent.clear()
        start = time.process_time()
        source.check_source(changed, path, None, context, incremental=True, lazy_stories=True)
        per["total"].append(time.process_time() - start)
        for stage in STAGES[1:]:
            per[stage].append(spent[stage])
    print(json.dumps({stage: round(1000 * statistics.median(per[stage]), 3) for stage in STAGES} if per else {}))


def run(server: Path, kind: str, edits: int, instructions: bool) -> dict[str, float]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # an installed tool has its .pyc
    env["PYTHONPATH"] = str(server)
    command = [sys.executable, __file__, "--child", kind, "--edits", str(edits)]
    if not instructions:
        out = subprocess.run(command, env=env, capture_output=True, text=True, check=True).stdout
        return dict(json.loads(out.splitlines()[-1]))
    # Once outside valgrind first: a checkout's modules without their .pyc are compiled by whichever counted process
    # imports them first, the one making no edit (a fresh `git archive` counted 27 M a keystroke for ~193 M).
    subprocess.run([*command[:-1], "0"], env=env, capture_output=True, check=True)
    counts = []
    for n in (0, edits):
        command[-1] = str(n)
        err = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *command], env=env,
                             capture_output=True, text=True, check=True).stderr
        found = re.search(r"Collected : (\d+)", err)
        if found is None:
            raise RuntimeError(f"no callgrind count:\n{err[-2000:]}")
        counts.append(int(found[1]))
    return {"instructions (M)": round((counts[1] - counts[0]) / (edits + edits % 2) / 1e6, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", type=Path, help="another checkout: its server is measured in the same rounds")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--edits", type=int, default=30, help="edits per process")
    parser.add_argument("--kinds", default=",".join(KINDS), help="comma-separated subset of: " + ", ".join(KINDS))
    parser.add_argument("--instructions", action="store_true", help="count instructions with valgrind (one round)")
    parser.add_argument("--child", choices=KINDS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.edits)
        return
    checkouts = {"after": ROOT.parent / "server"}
    if args.before is not None:
        checkouts = {"before": args.before / "server", **checkouts}
    kinds = args.kinds.split(",")
    rounds = 1 if args.instructions else args.rounds
    got: dict[tuple[str, str], list[dict[str, float]]] = defaultdict(list)
    print(f"load average {os.getloadavg()[0]:.1f} at start", flush=True)
    for r in range(rounds):
        for kind in kinds:
            for name, server in checkouts.items():
                figures = run(server, kind, args.edits, args.instructions)
                got[(kind, name)].append(figures)
                print(f"round {r + 1}: {kind} {name} {figures}", flush=True)
    print(f"\nmedians over {rounds} round(s), load average {os.getloadavg()[0]:.1f} at the end")
    for kind in kinds:
        for name in checkouts:
            runs = got[(kind, name)]
            print(f"{kind:8s} {name:7s} " + "  ".join(f"{k}={statistics.median(f[k] for f in runs):.2f}" for k in runs[0]))
        if "before" in checkouts:
            first = next(iter(got[(kind, "after")][0]))
            ratios = [a[first] / b[first] for a, b in zip(got[(kind, "after")], got[(kind, "before")], strict=True)
                      if b[first]]
            print(f"{kind:8s} after/before ({first}, paired median): {statistics.median(ratios):.3f}")


if __name__ == "__main__":
    main()
