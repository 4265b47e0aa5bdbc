"""Does a module's check, fix verification included, grow with the module and not faster? (not a test)

    python bench/bench_fix_scaling.py [--sizes 25,50,100,200,500,1000,2000] [--rounds 3]
                                      [--before CHECKOUT] [--before-max 100] [--dict 40000]
                                      [--one-round-above 500] [--shape generate|helpers]

The module: n ordinary functions that each tokenise, `generate` with a fresh `DynamicCache` and
`cache_implementation="static"` (one HFC001 each, with three rule fixes and an ignore comment) and decode:
the shape of an eval harness or a test file (issue 31); `--shape helpers`: n helpers that each run the model with a
fresh `DynamicCache` and read its removed `key_cache` (one HFC007 each). For each size:

  cli:     `python -m hf_cache_lint check --no-cache --format json --exit-zero FILE` from outside, the median
           of --rounds (the process: start-up, the check, every fix verified, the JSON), wall and CPU seconds
           (CPU: the child's user + system, which a machine shared with other work moves less);
  x25:     cli CPU / cli CPU of the smallest size (the issue's target: 200 functions <= 12x 25);
  slope:   log(CPU ratio) / log(size ratio) against the previous size: 1 is linear, 2 quadratic;
  check:   `check_source` in this process (least CPU of the rounds), no verification;
  verify:  `fixcheck.Verifier.prime` of every fix of every finding, and how many re-checks it ran;
  ast:     `ast.parse` of the same text (least CPU), the floor of any Python check.

--before CHECKOUT also times another checkout's CLI (its server/ on PYTHONPATH) in the same rounds,
alternating with ours, up to --before-max functions (before 31's change a module of 100 took minutes).
--dict N adds the issue's other shape: an N-entry dict literal and a generate call (bench/scaling_shapes.py
big_dict): the CLI, then where its CPU goes, the CLI's own run in a child (`--jobs 1`) with per-stage timers
(medians of --rounds): the screen (prefilter and compile gate), the first check (parse included), parso's parses, the interpreter, the whole
verification, the re-checks it ran and the compile of each fixed text (`still_parses`). The load average is
printed: compare ratios from one run.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import math
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "server"))  # this checkout's code, in process
sys.path.insert(0, str(Path(__file__).resolve().parent))

from scaling_shapes import source as shape_source

ROOT = Path(__file__).resolve().parent.parent

HEAD = """from transformers import AutoModelForCausalLM, AutoTokenizer, DynamicCache

model = AutoModelForCausalLM.from_pretrained("gpt2")
tokenizer = AutoTokenizer.from_pretrained("gpt2")
"""
FUNCTION = '''

def case_{i}(prompt):
    inputs = tokenizer(prompt, return_tensors="pt")
    out = model.generate(**inputs, past_key_values=DynamicCache(), cache_implementation="static",
                         max_new_tokens={tokens})
    return tokenizer.decode(out[0], skip_special_tokens=True)
'''


HELPER_HEAD = """from transformers import AutoModelForCausalLM, DynamicCache

model = AutoModelForCausalLM.from_pretrained("gpt2")
"""
HELPER = '''

def helper_{i}(ids):
    cache = DynamicCache()
    model(ids, past_key_values=cache, use_cache=True)
    keys = cache.key_cache[0]
    return keys.shape[-2] + {i}
'''


def functions(n: int, shape: str = "generate") -> str:
    """`generate`: the issue's harness; `helpers`: n helpers that each read the removed `key_cache` (one HFC007
    each, with its `.layers[0].keys` fix and an ignore comment: the 300-helper module of the sixth session)."""
    if shape == "helpers":
        return HELPER_HEAD + "".join(HELPER.format(i=i) for i in range(n))
    return HEAD + "".join(FUNCTION.format(i=i, tokens=8 + i % 5) for i in range(n))


def cli(checkout: Path, path: Path) -> tuple[float, float]:
    """(wall, CPU) seconds of one CLI run: CPU (user + system of the child) moves less than the wall on a
    machine shared with other work."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(checkout / "server")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "hf_cache_lint", "check", "--no-cache", "--format", "json",
                    "--exit-zero", str(path)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=False, cwd=path.parent)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def best(f: Callable[[], object], rounds: int) -> float:
    """Least CPU seconds of this process over the rounds."""
    times = []
    for _ in range(rounds):
        t = time.process_time()
        f()
        times.append(time.process_time() - t)
    return min(times)


def in_process(text: str, rounds: int) -> tuple[float, float, float, int, int]:
    """(ast.parse s, check s, verify s, re-checks, findings) in this process."""
    from hf_cache_lint.checking.source import check_source
    from hf_cache_lint.engine.environment.context import Context
    from hf_cache_lint.fixcheck import Verifier, file_recheck

    t_ast = best(lambda: ast.parse(text), rounds)
    findings = check_source(text, "bench.py", None, Context()).findings
    t_check = best(lambda: check_source(text, "bench.py", None, Context()), rounds)
    rechecks = 0

    def verify() -> None:
        nonlocal rechecks
        verifier = Verifier([text], file_recheck("bench.py", None, Context()), path="bench.py")
        verifier.prime((0, f, fix) for f in findings for fix in f.fixes)
        rechecks = verifier.rechecks

    t_verify = best(verify, rounds)
    return t_ast, t_check, t_verify, rechecks, len(findings)


DICT_STAGES = ("process", "screen", "check", "parse", "interpreter", "verify", "re-checks", "compile of fixed texts")


def stages_child(path: str) -> None:
    """In the measured process: the CLI's check of `path` (`--jobs 1`, so all of it runs here) with a timer on
    each stage; prints one line `stage=CPU seconds ...` (`process`: this process's CPU, imports included)."""
    import hf_cache_lint.fixcheck as fixcheck
    from hf_cache_lint import cli
    from hf_cache_lint.checking import files
    from hf_cache_lint.cli_support import runner
    from hf_cache_lint.engine.interpreter import Interpreter, interp
    from hf_cache_lint.fixcheck import results, verifier

    spent: dict[str, float] = dict.fromkeys(DICT_STAGES, 0.0)
    counts: dict[str, int] = dict.fromkeys(DICT_STAGES, 0)

    def timed(inner: Callable[..., Any], stage: str) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            start = time.process_time()
            try:
                return inner(*args, **kwargs)
            finally:
                spent[stage] += time.process_time() - start
                counts[stage] += 1
        return wrapper

    runner._gate = timed(runner._gate, "screen")  # type: ignore[assignment]  # the prefilter and compile gate
    files.check_data = timed(files.check_data, "check")  # type: ignore[assignment]
    interp.parse = timed(interp.parse, "parse")  # type: ignore[assignment]
    Interpreter.run_module = timed(Interpreter.run_module, "interpreter")  # type: ignore[method-assign]
    # the CLI's runner imports verify_result from the package when it runs; it calls the module's file_recheck
    fixcheck.verify_result = timed(results.verify_result, "verify")  # type: ignore[assignment]
    verifier.still_parses = timed(verifier.still_parses, "compile of fixed texts")  # type: ignore[assignment]
    file_recheck = results.file_recheck
    results.file_recheck = lambda *a, **k: timed(file_recheck(*a, **k), "re-checks")  # type: ignore[assignment]
    with open(os.devnull, "w") as null, contextlib.redirect_stdout(null):
        cli.main(["check", "--no-cache", "--format", "json", "--exit-zero", "--jobs", "1", path])
    spent["process"] = time.process_time()
    print(" ".join(f"{k.replace(' ', '_')}={spent[k]:.4f}/{counts[k]}" for k in DICT_STAGES))


def dict_stages(path: Path, rounds: int) -> str:
    """The median CPU seconds of each stage of the CLI's run over `path`, `stages_child` in a child per round."""
    per: dict[str, list[float]] = {k: [] for k in DICT_STAGES}
    calls: dict[str, str] = {}
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(ROOT / "server")
    for _ in range(rounds):
        out = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--stages-of", str(path)], env=env,
                             capture_output=True, text=True, check=True, cwd=path.parent).stdout.split()[-len(DICT_STAGES):]
        for item in out:
            name, value = item.split("=")
            seconds, count = value.split("/")
            per[name.replace("_", " ")].append(float(seconds))
            calls[name.replace("_", " ")] = count
    return " | ".join(f"{k} {statistics.median(v):.3f}" + (f" ({calls[k]})" if k != "process" else "")
                      for k, v in per.items())


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--stages-of":
        stages_child(sys.argv[2])
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="25,50,100,200,500,1000,2000")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--before", type=Path)
    ap.add_argument("--before-max", type=int, default=100)
    ap.add_argument("--dict", type=int, default=40000)
    ap.add_argument("--shape", choices=("generate", "helpers"), default="generate",
                    help="the module: the generate harness, or helpers reading key_cache (HFC007)")
    ap.add_argument("--one-round-above", type=int, default=500, help="sizes above this: one round (minutes each)")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}, {os.cpu_count()} CPUs")
    before_cols = " before cli s | before CPU s | ours/before CPU |" if args.before else ""
    print(f"| functions | lines | findings | cli s | cli CPU s | x{sizes[0]} CPU | slope CPU |{before_cols} "
          "check CPU s | verify CPU s | re-checks | ast.parse CPU s |")
    print("|---" * (11 + (3 if args.before else 0)) + "|")
    first: float | None = None
    last: tuple[int, float] | None = None
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            text = functions(n, args.shape)
            path = Path(tmp) / f"harness_{n}.py"
            path.write_text(text)
            rounds = args.rounds if n <= args.one_round_above else 1
            ours: list[tuple[float, float]] = []
            before: list[tuple[float, float]] = []
            for _ in range(rounds):
                if args.before and n <= args.before_max:
                    before.append(cli(args.before, path))
                ours.append(cli(ROOT, path))
            t_cli = statistics.median(w for w, _ in ours)
            cpu = statistics.median(c for _, c in ours)
            first = first or cpu
            slope = "-" if last is None else f"{math.log(cpu / last[1]) / math.log(n / last[0]):.2f}"
            last = (n, cpu)
            cols = ""
            if args.before:
                cols = (f" {statistics.median(w for w, _ in before):.2f} | {statistics.median(c for _, c in before):.2f} | "
                        f"{statistics.median(o[1] / b[1] for o, b in zip(ours, before, strict=True)):.3f}x |"
                        if before else " - | - | - |")
            t_ast, t_check, t_verify, rechecks, found = in_process(text, rounds)
            print(f"| {n:,} | {text.count(chr(10)):,} | {found} | {t_cli:.2f} | {cpu:.2f} | {cpu / first:.1f}x | {slope} "
                  f"|{cols} {t_check:.3f} | {t_verify:.3f} | {rechecks} | {t_ast:.4f} |", flush=True)
        if args.dict:
            text = shape_source("big_dict", args.dict)
            path = Path(tmp) / "big_dict.py"
            path.write_text(text)
            ours, before = [], []
            for _ in range(args.rounds):
                if args.before:
                    before.append(cli(args.before, path))
                ours.append(cli(ROOT, path))
            extra = (f"; before {statistics.median(w for w, _ in before):.2f} s wall, "
                     f"{statistics.median(c for _, c in before):.2f} s CPU" if before else "")
            print(f"\n{args.dict:,}-entry dict literal and a generate call: {statistics.median(w for w, _ in ours):.2f} s "
                  f"wall, {statistics.median(c for _, c in ours):.2f} s CPU (medians of {args.rounds}){extra}")
            print(f"in its CLI, CPU s (calls), medians of {args.rounds}: {dict_stages(path, args.rounds)}")


if __name__ == "__main__":
    main()
