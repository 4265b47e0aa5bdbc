"""What each way of parsing the modules the CLI's engine gets costs (issue 31 item 3; not a test).

    python bench/parse_costs.py [--tree DIR] [--rounds N] [--before CHECKOUT]

Runs `check --jobs 1 --no-cache` over the tree in this process once, keeping the texts the screen passes to
check_source (what the engine parses), then times over those texts, the collector off, the least of N rounds: CPython's
`compile` (the gate's step), `ast.parse`, `compile` of that `ast` tree (what one CPython parse per file would cost
where the gate needs both), the standard library's `tokenize` and parso's tokenizer (the least any Python tokenizer
costs: what a parso-shaped tree built from `ast` would still need for its leaves and prefixes), and parso's parse with
engine/syntax/fast_parser.py (this checkout's, and `--before`'s in a child process, alternating). It also counts the
tokens, parso's leaves and inner nodes and `ast`'s nodes (bench/README.md, the eleventh session's section).
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import gc
import io
import json
import subprocess
import sys
import tempfile
import time
import tokenize
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def passing_texts(tree: Path) -> list[str]:
    """The paths check_source is called on by the CLI over `tree` (the screen's passes)."""
    sys.path.insert(0, str(ROOT / "server"))
    import hf_cache_lint.checking.files as files
    from hf_cache_lint import cli

    paths: list[str] = []
    inner = files.check_source

    def kept(text: str, path: str = "<stdin>", *args: Any, **kw: Any) -> Any:
        paths.append(path)
        return inner(text, path, *args, **kw)

    files.check_source = kept  # type: ignore[assignment]
    with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
        cli.main(["check", str(tree), "--format", "json", "--exit-zero", "--jobs", "1", "--no-cache"])
    files.check_source = inner
    return paths


def least(fn: Callable[[str], object], texts: list[str], rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        t0 = time.process_time()
        for text in texts:
            fn(text)
        best = min(best, time.process_time() - t0)
    return best


PARSO_CHILD = """
import sys, json, time, gc
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from hf_cache_lint.engine.syntax import fast_parser
grammar = fast_parser.grammar()
texts = [Path(p).read_text(encoding="utf-8") for p in json.load(open(sys.argv[2]))]
gc.disable()
best = float("inf")
for _ in range(int(sys.argv[3])):
    t0 = time.process_time()
    for text in texts:
        grammar.parse(text, error_recovery=True)
    best = min(best, time.process_time() - t0)
print(best)
"""


def parso_parse(server: Path, listing: Path, rounds: int) -> float:
    """parso's parse with `server`'s fast parser, in a fresh process (each checkout imports its own modules)."""
    run = subprocess.run([sys.executable, "-c", PARSO_CHILD, str(server), str(listing), str(rounds)],
                         capture_output=True, text=True, check=True)
    return float(run.stdout.strip())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tree", default=str(ROOT / ".cache" / "oracle" / "tf-5.24.0" / "transformers"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--before", type=Path, help="another checkout: its parso parse is timed in the same rounds")
    args = ap.parse_args()
    paths = passing_texts(Path(args.tree))
    texts = [Path(p).read_text(encoding="utf-8") for p in paths]
    print(f"{len(texts)} modules reach the engine ({sum(map(len, texts)) / 1e6:.1f} MB)")

    from hf_cache_lint.engine.syntax import fast_parser

    grammar = fast_parser.grammar()
    gc.disable()
    rows: list[tuple[str, float]] = [
        ("compile(text)", least(lambda t: compile(t, "<m>", "exec", dont_inherit=True), texts, args.rounds)),
        ("ast.parse(text)", least(ast.parse, texts, args.rounds)),
        ("compile(ast.parse(text))",
         least(lambda t: compile(ast.parse(t), "<m>", "exec", dont_inherit=True), texts, args.rounds)),
        ("tokenize (standard library)",
         least(lambda t: list(tokenize.generate_tokens(io.StringIO(t).readline)), texts, args.rounds)),
        ("parso's tokenizer (fast_tokenizer)",
         least(lambda t: list(grammar._tokenize_lines(t.splitlines(keepends=True))), texts, args.rounds)),
    ]
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(paths, f)
    listing = Path(f.name)
    try:
        for _ in range(2):  # alternating, so a change of load moves both
            if args.before:
                rows.append((f"parso's parse, {args.before}", parso_parse(args.before / "server", listing, args.rounds)))
            rows.append(("parso's parse, this checkout", parso_parse(ROOT / "server", listing, args.rounds)))
    finally:
        listing.unlink()
    for name, seconds in rows:
        print(f"  {name:60s} {seconds:7.3f} s CPU")

    tokens = sum(1 for t in texts for _ in grammar._tokenize_lines(t.splitlines(keepends=True)))
    leaves = inner = 0
    for t in texts:
        todo = [grammar.parse(t, error_recovery=True)]
        while todo:
            node = todo.pop()
            children = getattr(node, "children", None)
            if children is None:
                leaves += 1
            else:
                inner += 1
                todo.extend(children)
    nodes = sum(sum(1 for _ in ast.walk(ast.parse(t))) for t in texts)
    print(f"tokens {tokens:,}; parso's leaves {leaves:,}, inner nodes {inner:,}; ast nodes {nodes:,}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
