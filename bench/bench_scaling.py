"""Does a check cost grow with the file, not faster? Seconds against `ast.parse` per shape and size.

For each shape of bench/scaling_shapes.py (big literals, elif chains, subscript assignments, call,
attribute and binop chains, an async streaming server) at each size, in one process:

  ast:    min seconds of `ast.parse` of the same text (CPython's C parser: the floor),
  check:  min seconds of `checking.source.check_source` (parso parse + interpreter + rules),
  ratio:  check / ast. Flat across sizes means linear; a quadratic step makes it grow with the size.

Also printed: parso's parse and the interpreter alone, the interpreter's steps and state work
(entries copied or merged), peak RSS, whether the file's conflict was still found and any budget note.
Usage: python bench/bench_scaling.py [--sizes 1000,10000,40000] [--shapes big_dict,elif_chain] [--rounds 3]
"""

from __future__ import annotations

import argparse
import ast
import gc
import resource
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from scaling_shapes import SHAPES, conflict_line, source

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.interpreter import interp


def best(f: Callable[[], object], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        gc.collect()
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1000,10000,40000")
    ap.add_argument("--shapes", default=",".join(SHAPES))
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"load average {' '.join(f'{x:.1f}' for x in __import__('os').getloadavg())}")
    print("| shape | size | lines | ast.parse s | check s | ratio | parso s | interp s | steps | work | found | note |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for shape in args.shapes.split(","):
        for n in sizes:
            text = source(shape, n)
            try:
                t_ast = best(lambda: ast.parse(text), args.rounds)  # noqa: B023
            except (RecursionError, MemoryError, SyntaxError):  # past CPython's own limits
                t_ast = float("nan")
            rounds = args.rounds if len(text) < 2_000_000 else 1
            result = None

            def run() -> None:
                nonlocal result
                result = check_source(text, "<bench>")  # noqa: B023

            t_check = best(run, rounds)
            tree = interp.parse(text)
            t_parso = best(lambda: interp.parse(text), 1)  # noqa: B023
            it = interp.Interpreter(text, "<bench>", Context())
            try:
                t_interp = best(lambda: it.run_module(tree), 1)  # noqa: B023
            except RecursionError:
                t_interp = float("nan")
            assert result is not None
            found = conflict_line(text) in {f.span.start.line for f in result.findings if f.code == "HFC001"}
            note = "; ".join(getattr(result, "notes", ())) or (result.error.message if result.error else "-")
            run_state = getattr(it, "session", it)  # the interpreter's parts share one session (engine/interpreter/)
            meter = getattr(run_state, "meter", None)  # absent before the budget: the same table for an older engine
            work = f"{meter.work:,}" if meter is not None else "-"
            print(f"| {shape} | {n:,} | {text.count(chr(10)):,} | {t_ast:.3f} | {t_check:.2f} | {t_check / t_ast:.0f} "
                  f"| {t_parso:.2f} | {t_interp:.2f} | {run_state.steps:,} | {work} | {'yes' if found else 'NO'} "
                  f"| {note} |", flush=True)
    print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024} MiB")


if __name__ == "__main__":
    main()
