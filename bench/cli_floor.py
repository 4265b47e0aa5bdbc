"""The floor of a CPython `check`: what a tool of our design costs before it analyses anything (not a test).

    python bench/cli_floor.py bytes|read|compile|parse|gated TREE [--jobs N] [--parse-only LIST]

The issue 14 target is `hf-cache-lint check` (cold) at or under `ruff check --select F --no-cache`. This
command does only the part of our check that no design in Python can leave out, in the cheapest
process set-up (a fork pool of N workers, default one per CPU, the files dealt round-robin), so that
bench_cli.py `--mode floor` can time it against Ruff in the same rounds:

- bytes: walk TREE for *.py, read every file and look for the prefilter's words in its bytes (no decode, no
  test of where they stand): reading the tree in Python at all;
- read: walk TREE for *.py, read and decode every file (engine/text/text.py `decode_source`) and run our text
  prefilter on it exactly as the CLI does (engine/text/prefilter.py `might_use_removed_api`, `code_hits`);
- compile: read, then `compile()` each file the prefilter passes: the first step of the gate
  (engine/screen/gate.py), CPython's parser and code generator, all in C;
- parse: read, then `ast.parse` each file the prefilter passes: the least an interpreter running on CPython's
  `ast` instead of parso (issue 14's item 1) would have to parse with no gate in front of it;
- gated: read, `compile()` each file the prefilter passes, and `ast.parse` only those listed in the file
  `--parse-only` names (one path per line: bench_cli.py lists the files our gate passes to the engine): a
  gate that costs one compile and an interpreter on `ast` that would cost nothing.

Nothing is interpreted and no rule runs, so each figure is a lower bound for the matching design.
"""

from __future__ import annotations

import argparse
import ast
import os
import sys
import warnings
from multiprocessing import get_context
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "server"))

from hf_cache_lint.engine.text.prefilter import TRIGGERS, code_hits, might_use_removed_api
from hf_cache_lint.engine.text.text import decode_source


def python_files(tree: str) -> list[str]:
    found: list[str] = []
    for folder, dirs, names in os.walk(tree):
        dirs.sort()
        found += (os.path.join(folder, n) for n in sorted(names) if n.endswith(".py"))
    return found


# The words of engine/text/prefilter.py's first tests (code_hits' TRIGGERS, might_use_removed_api's), as bytes.
_WORDS = tuple(w.encode() for w in (*TRIGGERS, "Cache", "_legacy_cache(", "return_dict_in_generate"))


def work(job: tuple[str, list[str], frozenset[str]]) -> tuple[int, int]:
    """(files the prefilter passed, of them those that compiled or parsed)."""
    stage, paths, parse_only = job
    passed = done = 0
    warnings.simplefilter("ignore")  # invalid escapes in the tree's strings: the gate ignores them too
    for path in paths:
        with open(path, "rb") as f:
            data = f.read()
        if stage == "bytes":
            passed += any(w in data for w in _WORDS)
            continue
        text = decode_source(data)
        if not (might_use_removed_api(text) or code_hits(text, 1)):
            continue
        passed += 1
        try:
            if stage in ("compile", "gated"):
                compile(text, path, "exec", dont_inherit=True)
            if stage == "parse" or (stage == "gated" and path in parse_only):
                ast.parse(text, path)
            done += stage != "read"
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            pass
    return passed, done


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("stage", choices=("bytes", "read", "compile", "parse", "gated"))
    ap.add_argument("tree")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--parse-only", metavar="LIST", help="gated: the files to parse, one absolute path a line")
    args = ap.parse_args()
    files = python_files(os.path.abspath(args.tree))
    listed = frozenset(Path(args.parse_only).read_text().split("\n")) if args.parse_only else frozenset()
    jobs = [(args.stage, files[i::args.jobs], listed) for i in range(args.jobs)]
    with get_context("fork").Pool(args.jobs) as pool:
        counts = pool.map(work, jobs)
    print(f"{len(files)} files, {sum(c[0] for c in counts)} passed the prefilter, "
          f"{sum(c[1] for c in counts)} compiled or parsed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
