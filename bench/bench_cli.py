"""Benchmark `hf-cache-lint check` against `ruff check` on the transformers source tree (not a test).

    python bench/bench_cli.py [--rounds N] [--tree DIR] [--ruff-rules F|all|default] [--jobs N]
                              [--mode cold|warm|pool|floor] [--breakdown N] [--before CHECKOUT] [--workers N]

--mode cold (default): ours with --no-cache against `ruff check --no-cache`; warm: ours answering from a
primed result cache (HF_CACHE_LINT_CACHE_DIR in a temporary folder) against the same cold Ruff; pool:
ours with the default pool sizing against ours with --jobs 1 (both --no-cache), the "never slower" check;
floor: ours cold and Ruff, with the stages of bench/cli_floor.py in the same rounds (the least a CPython tool of
our design does: read the tree, prefilter, compile what the prefilter passes, `ast.parse` what our gate passes),
each against Ruff.

The tree: --tree, else a transformers package in an oracle venv under .cache/oracle, else
.cache/bench/transformers-<V>/transformers unpacked from the wheel (`pip download`, never imported).
Each round runs ours then Ruff (alternating, so load drifts hit both alike), each in a small wrapper
process that reports its children's peak RSS. Results print as a table and go to bench/results/.

The code measured as "ours" is this checkout's (PYTHONPATH=<this repo>/server, whatever the caller's PYTHONPATH).
--before CHECKOUT adds another checkout's code (its server/ folder, e.g. a worktree of an older commit) as a
third command in every round, run with the same flags just before ours, so a before/after comparison shares the
rounds and the load: the table then has both, and the ratios ours/before and before/yardstick.

--workers N: the pool's profile in this process (cli_support/runner.py check_files with --jobs N, no cache): for
each worker its start, first and last file, CPU, busy time, the files that reached the engine and their CPU, the
imported workspace modules it read for the gate (engine/screen/lent_values.py) and ran for the engine
(engine/interpreter/modules.py exports), and its slowest files: where the pool's wall and CPU go.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from transformers_wheel import unpacked_transformers

ROOT = Path(__file__).resolve().parent.parent
VERSION = "5.24.0"

# Runs argv, then prints the peak RSS (KiB) of the largest process among its waited-for descendants,
# their CPU seconds (user + system: CPU time moves less than wall time on a shared machine) and the wall
# seconds from just before the spawn to the exit. The wall is taken in here, not around the wrapper: the
# wrapper's own interpreter start (~50 ms here, more with a busy site-packages) is no part of either tool,
# and added to both it pulled every ratio towards 1 (a warm run is a few tenths of a second).
_WRAPPER = (
    "import resource, subprocess, sys, time\n"
    "t = time.perf_counter()\n"
    "subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)\n"
    "wall = time.perf_counter() - t\n"
    "u = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
    "print(u.ru_maxrss, u.ru_utime + u.ru_stime, wall)\n"
)


def find_tree(explicit: str | None) -> Path:
    """A transformers package folder to lint; downloaded and unpacked (never imported) if none is here."""
    if explicit:
        return Path(explicit).resolve()
    oracle = ROOT / ".cache" / "oracle"
    if (oracle / f"tf-{VERSION}" / "transformers" / "__init__.py").is_file():
        return (oracle / f"tf-{VERSION}" / "transformers").resolve()
    if oracle.is_dir():
        found = sorted(oracle.glob("**/site-packages/transformers/__init__.py"))
        preferred = [p for p in found if f"transformers-{VERSION}.dist-info" in
                     {d.name for d in p.parent.parent.glob("transformers-*.dist-info")}]
        if preferred or found:
            return (preferred or found)[-1].parent
    return unpacked_transformers(VERSION)


def count_files(tree: Path) -> tuple[int, int]:
    """Files our discovery checks there, and their total size."""
    sys.path.insert(0, str(ROOT / "server"))
    from hf_cache_lint.cli_support.discovery import discover
    from hf_cache_lint.cli_support.gitignore import PathSpec

    files = discover([str(tree)], PathSpec(), tree).files
    return len(files), sum(f.path.stat().st_size for f in files)


@dataclass(frozen=True)
class Sample:
    wall_s: float
    peak_rss_mib: float
    cpu_s: float


def measure(argv: list[str], cwd: Path, env: dict[str, str] | None = None) -> Sample:
    out = subprocess.run([sys.executable, "-c", _WRAPPER, *argv], cwd=cwd, capture_output=True, text=True,
                         check=True, env=env).stdout
    rss, cpu, wall = out.strip().splitlines()[-1].split()
    return Sample(float(wall), int(rss) / 1024, float(cpu))


@dataclass(frozen=True)
class Summary:
    tool: str
    argv: list[str]
    median_s: float
    min_s: float
    files_per_s: float
    peak_rss_mib: float
    median_cpu_s: float


def summarise(tool: str, argv: list[str], samples: list[Sample], files: int) -> Summary:
    med = statistics.median(s.wall_s for s in samples)
    return Summary(tool, argv, round(med, 3), round(min(s.wall_s for s in samples), 3), round(files / med, 1),
                   round(max(s.peak_rss_mib for s in samples), 1),
                   round(statistics.median(s.cpu_s for s in samples), 2))


def gated_files(tree: Path) -> list[str]:
    """The absolute paths of the files the screen passes to the engine (as the CLI asks it)."""
    sys.path.insert(0, str(ROOT / "server"))
    from hf_cache_lint.checking.screening import screen
    from hf_cache_lint.cli_support.discovery import discover
    from hf_cache_lint.cli_support.gitignore import PathSpec
    from hf_cache_lint.engine.base.collector import gc_paused
    from hf_cache_lint.engine.environment.context import Context
    from hf_cache_lint.engine.text.text import decode_source
    from hf_cache_lint.settings import Settings

    passed = []
    for f in discover([str(tree)], PathSpec(), tree).files:
        text = decode_source(f.path.read_bytes())
        with gc_paused():
            if screen(text, f.display, Settings(), Context(workspace=tree)):
                passed.append(str(f.path.resolve()))
    return passed


def breakdown(tree: Path, limit: int) -> dict[str, float]:
    """Where our time goes, file by file in this process: read, prefilter, parse, interpret, rules."""
    sys.path.insert(0, str(ROOT / "server"))
    from hf_cache_lint.checking.screening import keyword_matters
    from hf_cache_lint.cli_support.discovery import discover
    from hf_cache_lint.cli_support.gitignore import PathSpec
    from hf_cache_lint.engine.base.collector import gc_paused
    from hf_cache_lint.engine.environment.context import Context
    from hf_cache_lint.engine.interpreter import interp
    from hf_cache_lint.engine.screen.gate import cannot_hold_finding
    from hf_cache_lint.engine.text.prefilter import code_hits, might_use_removed_api
    from hf_cache_lint.engine.text.text import decode_source
    from hf_cache_lint.rules import ALL_RULES

    files = discover([str(tree)], PathSpec(), tree).files[:limit]
    stages = ("read", "prefilter", "gate", "parse", "interpret", "rules")
    t = dict.fromkeys(stages, 0.0)  # wall (perf_counter)
    cpu = dict.fromkeys(stages, 0.0)  # this process's CPU (process_time): what a busy machine moves less
    parsed = parsed_bytes = 0

    def clock() -> tuple[float, float]:
        return time.perf_counter(), time.process_time()

    def add(stage: str, start: tuple[float, float], end: tuple[float, float]) -> None:
        t[stage] += end[0] - start[0]
        cpu[stage] += end[1] - start[1]

    for f in files:
        a = clock()
        text = decode_source(f.path.read_bytes())
        b = clock()
        # The screen's two stages timed apart (engine/screen/screen.py asks them so, for every rule enabled).
        removed, hits = might_use_removed_api(text), code_hits(text, 1)
        c = clock()
        add("read", a, b)
        add("prefilter", b, c)
        if not hits and not removed:
            continue
        with gc_paused():  # as the CLI (cli_support/runner.py) and check_source ask it
            skip = cannot_hold_finding(text, f.display, Context(workspace=tree), keyword_matters, removed)
        c2 = clock()
        add("gate", c, c2)
        if skip:
            continue
        c = c2
        parsed, parsed_bytes = parsed + 1, parsed_bytes + len(text)
        try:
            with gc_paused():  # as check_source runs them
                tree_ = interp.parse(text)
                d = clock()
                analysis = interp.analyse(text, str(f.path), Context(), tree=tree_)
                e = clock()
                for rule in ALL_RULES:
                    list(rule.check(analysis))
                g = clock()
        except Exception as exc:  # an engine bug on one file must not end the breakdown: say which
            print(f"  {f.display}: {type(exc).__name__}: {exc}")
            continue
        add("parse", c, d)
        add("interpret", d, e)
        add("rules", e, g)
    total, total_cpu = sum(t.values()), sum(cpu.values())
    print(f"\nbreakdown over {len(files)} files ({parsed} passed the prefilter and the gate, "
          f"{parsed_bytes / 1e6:.1f} MB parsed), "
          f"one process (wall, then CPU):")
    for k, v in t.items():
        print(f"  {k:<10} {v:8.2f} s  {100 * v / total:5.1f} %   CPU {cpu[k]:8.2f} s  {100 * cpu[k] / total_cpu:5.1f} %")
    if t["parse"]:
        print(f"  parso throughput: {parsed_bytes / 1e6 / t['parse']:.2f} MB/s")
    return {**t, **{f"{k}_cpu": v for k, v in cpu.items()}, "files": len(files), "parsed": parsed,
            "parsed_bytes": parsed_bytes}


def pool_profile(tree: Path, jobs: int) -> dict[str, object]:
    """The pool's per-worker profile (see the module's docstring), from hooks the forked workers inherit."""
    sys.path.insert(0, str(ROOT / "server"))
    import functools
    import resource
    from multiprocessing import util

    from hf_cache_lint.cli_support import pool, runner
    from hf_cache_lint.cli_support.discovery import discover
    from hf_cache_lint.cli_support.gitignore import PathSpec
    from hf_cache_lint.engine.environment.context import Context
    from hf_cache_lint.engine.interpreter import modules
    from hf_cache_lint.engine.screen import lent_values
    from hf_cache_lint.settings import Settings

    t0 = time.perf_counter()
    out_dir = Path(tempfile.mkdtemp(prefix="hf-cache-lint-pool-profile-"))
    acc: dict[str, float] = dict.fromkeys(("lent", "lent_n", "exports", "exports_n", "engine", "engine_n"), 0.0)
    files: list[tuple[float, float, float, str]] = []  # (end, wall, CPU, display)

    def timed(key: str, fn: object) -> object:
        def w(*a: object, **k: object) -> object:
            c = time.process_time()
            try:
                return fn(*a, **k)  # type: ignore[operator]
            finally:
                acc[key] += time.process_time() - c
                acc[f"{key}_n"] += 1
        return w

    lent_values._statements_of = functools.lru_cache(maxsize=256)(  # type: ignore[assignment]
        timed("lent", lent_values._statements_of.__wrapped__))
    modules._analyse = timed("exports", modules._analyse)  # type: ignore[assignment]
    runner._run_job = timed("engine", runner._run_job)  # type: ignore[assignment]
    real_pipeline = runner._pipeline

    def pipeline(source: object, *a: object) -> object:
        w, c = time.perf_counter(), time.process_time()
        out = real_pipeline(source, *a)  # type: ignore[arg-type]
        files.append((time.perf_counter() - t0, time.perf_counter() - w, time.process_time() - c,
                      source.display))  # type: ignore[attr-defined]
        return out

    def dump() -> None:
        rec = dict(acc, pid=os.getpid(), end=time.perf_counter() - t0, cpu=time.process_time() - acc.get("cpu0", 0),
                   minflt=resource.getrusage(resource.RUSAGE_SELF).ru_minflt, files=len(files),
                   first=files[0][0] - files[0][1] if files else 0.0, last=files[-1][0] if files else 0.0,
                   busy=sum(f[1] for f in files), top=sorted(files, key=lambda f: -f[1])[:5])
        (out_dir / f"{os.getpid()}.json").write_text(json.dumps(rec))

    def started() -> None:
        acc["start"], acc["cpu0"] = time.perf_counter() - t0, time.process_time()
        util.Finalize(None, dump, exitpriority=100)  # at the worker's exit

    runner._pipeline = pipeline  # type: ignore[assignment]
    pool._limit_memory = started
    sources = discover([str(tree)], PathSpec(), tree).files
    a, c = time.perf_counter(), time.process_time()
    runner.check_files(sources, Settings(), Context(workspace=tree), jobs=jobs)
    wall, parent_cpu = time.perf_counter() - a, time.process_time() - c
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    if not list(out_dir.glob("*.json")):  # no pool (one worker): this process did it all
        acc["start"] = a - t0
        dump()
    print(f"\npool profile, --jobs {jobs}: check_files {wall:.2f} s wall, this process {parent_cpu:.2f} s CPU, "
          f"workers {children.ru_utime + children.ru_stime:.2f} s CPU; load {os.getloadavg()[0]:.1f}")
    workers = [json.loads(f.read_text()) for f in sorted(out_dir.glob("*.json"))]
    shutil.rmtree(out_dir, ignore_errors=True)
    for r in workers:
        print(f"  worker {r['pid']}: start {r.get('start', 0):.2f} s, files {r['first']:.2f}-{r['last']:.2f} s, "
              f"exit {r['end']:.2f} s, CPU {r['cpu']:.2f} s, busy {r['busy']:.2f} s, {r['files']} files "
              f"({r['engine_n']:.0f} to the engine: {r['engine']:.2f} s CPU), gate's imported modules "
              f"{r['lent_n']:.0f} ({r['lent']:.2f} s), engine's {r['exports_n']:.0f} ({r['exports']:.2f} s), "
              f"{r['minflt']} minor faults")
        for end, w, cpu, name in r["top"]:
            print(f"      {w:6.2f} s wall {cpu:6.2f} s CPU, ended at {end:6.2f} s: {name}")
    return {"wall": wall, "parent_cpu": parent_cpu, "workers": workers}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--tree", help="folder to lint (default: a transformers package, see above)")
    ap.add_argument("--ruff-rules", choices=("F", "all", "default"), default="F")
    ap.add_argument("--jobs", type=int, default=0, help="our --jobs (0: sized from the work, at most one per CPU)")
    ap.add_argument("--mode", choices=("cold", "warm", "pool", "floor"), default="cold")
    ap.add_argument("--breakdown", type=int, metavar="N", default=0,
                    help="also time the phases of our check in-process over the first N files")
    ap.add_argument("--workers", type=int, metavar="N", default=0,
                    help="also profile the pool (--jobs N) in-process, worker by worker")
    ap.add_argument("--before", metavar="CHECKOUT",
                    help="also run another checkout's code (CHECKOUT/server) in each round, for before/after")
    args = ap.parse_args()

    tree = find_tree(args.tree)
    ruff = shutil.which("ruff")
    if ruff is None:
        print("ruff not found on PATH (pip install ruff)", file=sys.stderr)
        return 2
    files, size = count_files(tree)
    cwd, target = tree.parent, tree.name
    base = [sys.executable, "-m", "hf_cache_lint", "check", "--format", "json", "--exit-zero"]
    ours = [*base, "--jobs", str(args.jobs), *([] if args.mode == "warm" else ["--no-cache"]), target]
    # --isolated: no pyproject of ours (ruff would find this repo's excludes); json output like ours.
    theirs = [ruff, "check", "--isolated", "--no-cache", "--exit-zero", "--output-format", "json", target]
    if args.ruff_rules != "default":
        theirs[2:2] = ["--select", args.ruff_rules.upper()]
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # users have .pyc files; compiling ours every run is not the tool
    env["PYTHONPATH"] = str(ROOT / "server")
    cache_dir = tempfile.mkdtemp(prefix="hf-cache-lint-bench-cache-")
    env["HF_CACHE_LINT_CACHE_DIR"] = cache_dir
    yardstick = ("ruff", theirs)
    if args.mode == "pool":
        yardstick = ("ours --jobs 1", [*base, "--jobs", "1", "--no-cache", target])
    before_env = None if not args.before else dict(env, PYTHONPATH=str(Path(args.before).resolve() / "server"))
    floors: list[tuple[str, list[str]]] = []
    if args.mode == "floor":
        listed = Path(cache_dir) / "gated.txt"
        listed.write_text("\n".join(gated_files(tree)) + "\n")
        floor = [sys.executable, str(ROOT / "bench" / "cli_floor.py")]
        floors = [(f"floor {stage}", [*floor, stage, target, *(["--parse-only", str(listed)] if stage == "gated"
                                                              else [])])
                  for stage in ("bytes", "read", "compile", "parse", "gated")]
    if args.mode == "warm":
        # Prime the cache for each checkout measured (their entries differ: the tool's files are in the key),
        # so that the first round is warm for both.
        for prime_env in (env, before_env):
            if prime_env is not None:
                subprocess.run(ours, cwd=cwd, env=prime_env, capture_output=True, check=False)
    print(f"tree: {tree} ({files} files, {size / 1e6:.1f} MB); {os.cpu_count()} CPUs; load {os.getloadavg()}; "
          f"mode {args.mode}")
    result: dict[str, object] = {"tree": str(tree), "files": files, "bytes": size, "cpus": os.cpu_count(),
                                 "python": platform.python_version(), "ruff_rules": args.ruff_rules,
                                 "mode": args.mode}
    if args.rounds > 0:
        before = None if before_env is None else ("before", ours, before_env)
        result.update(race(args.rounds, files, ("hf-cache-lint", ours), yardstick, cwd, env, before, floors))
    shutil.rmtree(cache_dir, ignore_errors=True)
    if args.breakdown:
        result["breakdown"] = breakdown(tree, args.breakdown)
    if args.workers:
        result["pool_profile"] = pool_profile(tree, args.workers)
    out = ROOT / "bench" / "results"
    out.mkdir(parents=True, exist_ok=True)
    (out / f"cli-{time.strftime('%Y%m%dT%H%M%S')}.json").write_text(json.dumps(result, indent=2) + "\n")
    return 0


def race(rounds: int, files: int, a_cmd: tuple[str, list[str]], b_cmd: tuple[str, list[str]], cwd: Path,
         env: dict[str, str], before: tuple[str, list[str], dict[str, str]] | None = None,
         floors: list[tuple[str, list[str]]] | None = None) -> dict[str, object]:
    """Alternate the commands `rounds` times (`before`, with its own environment, then the `floors`, first in each
    round when given); print and return the summaries and the ratios (medians of the per-round wall ratios): ours
    and each floor against the yardstick, ours against `before` and `before` against the yardstick."""
    others = [(tool, argv, env) for tool, argv in floors or []]
    if before is not None:
        others.insert(0, before)
    cmds = [*others, (a_cmd[0], a_cmd[1], env), (b_cmd[0], b_cmd[1], env)]
    samples: dict[str, list[Sample]] = {tool: [] for tool, _, _ in cmds}
    ratios: dict[str, list[float]] = {}
    pairs = [(a_cmd[0], b_cmd[0])] + ([(a_cmd[0], before[0])] if before else []) \
        + [(tool, b_cmd[0]) for tool, _, _ in others]
    for i in range(rounds):
        for tool, argv, tool_env in cmds:
            s = measure(argv, cwd, tool_env)
            samples[tool].append(s)
            print(f"  round {i + 1}: {tool:<14} {s.wall_s:7.2f} s  CPU {s.cpu_s:7.2f} s  "
                  f"peak RSS {s.peak_rss_mib:7.1f} MiB", flush=True)
        for x, y in pairs:
            ratios.setdefault(f"{x}/{y}", []).append(samples[x][-1].wall_s / samples[y][-1].wall_s)
    summaries = {tool: summarise(tool, argv, samples[tool], files) for tool, argv, _ in cmds}
    print(f"\n{'tool':<16}{'median s':>10}{'min s':>9}{'files/s':>10}{'CPU s':>9}{'peak RSS MiB':>14}")
    for s in summaries.values():
        print(f"{s.tool:<16}{s.median_s:>10.2f}{s.min_s:>9.2f}{s.files_per_s:>10.1f}{s.median_cpu_s:>9.2f}"
              f"{s.peak_rss_mib:>14.1f}")
    for x, y in pairs:
        print(f"ratio {x}/{y}: {statistics.median(ratios[f'{x}/{y}']):.2f}x (median of per-round wall ratios), "
              f"{summaries[x].median_cpu_s / summaries[y].median_cpu_s:.2f}x CPU")
    out: dict[str, object] = {
        "ratio": round(statistics.median(ratios[f"{a_cmd[0]}/{b_cmd[0]}"]), 3), "ours": asdict(summaries[a_cmd[0]]),
        "yardstick": asdict(summaries[b_cmd[0]]), "load_after": os.getloadavg(),
        "ratios": {k: round(statistics.median(v), 3) for k, v in ratios.items()}}
    for tool, _, _ in others:
        out[tool] = asdict(summaries[tool])
    return out


if __name__ == "__main__":
    raise SystemExit(main())
