"""The cyclic collections a keystroke triggers in the language server, this checkout's and another's (not a test).

    python bench/lsp_collections.py [--before DIR] [--rounds 3] [--edits 200] [--file utils|script]
                                    [--kinds "typed code,newline"] [--open-close 0]

Each round spawns, for each checkout in turn, the real server (`python -m hf_cache_lint.lsp`, debounceMs 0) in a
wrapper that times every cyclic collection with `gc.callbacks` (the collecting thread's CPU, by generation) and writes them out
at `exit`. It opens the file (transformers' generation/utils.py, or lsp_latency.py's 100-line script), makes
`--edits` edits of each kind (lsp_latency.py's UTILS_EDITS/SCRIPT_EDITS), each waited for, and then, with
`--open-close N`, opens N copies of the file and closes each once its first diagnostics are out. Per edit kind:
the collections' total per edit and the largest, from the first didChange sent to the last publish (the clock is
CLOCK_MONOTONIC, shared by both processes), the keystroke latency (p50/p90/max, as lsp_latency.py), and the
server's resident set (VmRSS) after the edits and after the opens and closes. Figures: medians over rounds, and
the median of each round's after/before ratio (the two ran back to back: a change of load moves both).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import runpy
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def serve(out: str) -> None:
    """In the measured process: the server, its collections timed and written to `out` at `exit`."""
    import gc

    from hf_cache_lint.lsp import server

    times: list[tuple[float, float, int]] = []  # (start, CPU ms, generation)
    started = [0.0, 0.0]

    def timed(phase: str, info: dict[str, int]) -> None:
        # The collecting thread's CPU (a collection runs in the thread that triggered it): on a machine shared at
        # a load of 6, wall time also counts the time the thread waited for a core.
        if phase == "start":
            started[:] = time.perf_counter(), time.thread_time()
        else:
            times.append((started[0], (time.thread_time() - started[1]) * 1000, info["generation"]))

    gc.callbacks.append(timed)
    exit_now = server.exit_now

    def write_then_exit(status: int) -> None:
        Path(out).write_text(json.dumps(times))
        exit_now(status)

    server.exit_now = write_then_exit
    sys.argv = ["hf_cache_lint.lsp"]
    runpy.run_module("hf_cache_lint.lsp", run_name="__main__")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return 0.0


async def drive(server_path: str, path: Path, kinds: list[str], edits: int, open_close: int) -> dict[str, Any]:
    sys.path.insert(0, str(HERE))
    from lsp_latency import SCRIPT_EDITS, UTILS_EDITS, Client, quantile

    out = Path(tempfile.mkdtemp(prefix="lsp_collections_")) / "collections.json"
    command = [sys.executable, __file__, "--serve", str(out)]
    text, uri = path.read_text(), path.as_uri()
    client = Client(command, path.parent, server_path)
    await client.start()
    assert client.process is not None
    await client.request("initialize", {
        "processId": os.getpid(), "rootUri": path.parent.as_uri(), "initializationOptions": {"debounceMs": 0},
        "workspaceFolders": [{"uri": path.parent.as_uri(), "name": "bench"}],
        "capabilities": {"workspace": {"configuration": True},
                         "textDocument": {"publishDiagnostics": {"versionSupport": True}}}})
    client.notify("initialized", {})
    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1,
                                                            "text": text}})
    await client.published(uri, 1)
    windows: dict[str, tuple[float, float, list[float]]] = {}
    version = 1
    for kind in kinds:
        edit = next(e for e in (UTILS_EDITS if path.name == "generation_utils.py" else SCRIPT_EDITS) if e.name == kind)
        lines, samples = text.split("\n"), []
        first = time.perf_counter()
        for n in range(edits + edits % 2):
            version += 1
            change, lines = edit.change(lines, n)
            sent = time.perf_counter()
            client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                                     "contentChanges": [change]})
            samples.append((await client.published(uri, version) - sent) * 1000)
        windows[kind] = (first, time.perf_counter(), samples)
    figures: dict[str, Any] = {"rss after edits (MB)": rss_mb(client.process.pid)}
    for i in range(open_close):
        other = path.parent / f"copy_{i}.py"
        other.write_text(text)
        client.notify("textDocument/didOpen", {"textDocument": {"uri": other.as_uri(), "languageId": "python",
                                                                "version": 1, "text": text}})
        await client.published(other.as_uri(), 1)
        client.notify("textDocument/didClose", {"textDocument": {"uri": other.as_uri()}})
        await asyncio.sleep(0.05)
        if (i + 1) % max(1, open_close // 4) == 0:
            figures[f"rss after {i + 1} open/close (MB)"] = rss_mb(client.process.pid)
    await client.stop()
    for _ in range(100):
        if out.exists() and out.stat().st_size:
            break
        await asyncio.sleep(0.05)
    collections: list[tuple[float, float, int]] = json.loads(out.read_text())
    for kind, (start, end, samples) in windows.items():
        inside = [(ms, gen) for at, ms, gen in collections if start <= at <= end]
        count = len(samples)
        figures[kind] = {
            "gc ms/edit": round(sum(ms for ms, _ in inside) / count, 3),
            "largest gc ms": round(max((ms for ms, _ in inside), default=0.0), 2),
            "collections by generation": [sum(1 for _, g in inside if g == gen) for gen in (0, 1, 2)],
            "p50 ms": round(statistics.median(samples), 2), "p90 ms": round(quantile(samples, 0.9), 2),
            "max ms": round(max(samples), 2)}
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", type=Path, help="another checkout: its server runs in the same rounds")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--edits", type=int, default=200)
    parser.add_argument("--file", choices=("utils", "script"), default="utils")
    parser.add_argument("--kinds", help="comma-separated edit names (default: every edit of the file)")
    parser.add_argument("--open-close", type=int, default=0, help="then open and close this many copies")
    parser.add_argument("--serve", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve)
        return
    sys.path.insert(0, str(HERE))
    from lsp_latency import SCRIPT_EDITS, UTILS_EDITS, generation_utils, script_100_lines

    edits = UTILS_EDITS if args.file == "utils" else SCRIPT_EDITS
    kinds = args.kinds.split(",") if args.kinds else [e.name for e in edits]
    folder = Path(tempfile.mkdtemp(prefix="lsp_collections_work_"))
    path = folder / ("generation_utils.py" if args.file == "utils" else "script_100.py")
    path.write_text(generation_utils().read_text() if args.file == "utils" else script_100_lines())
    checkouts = {"after": str(HERE.parent / "server")}
    if args.before is not None:
        checkouts = {"before": str(args.before / "server"), **checkouts}
    got: dict[str, list[dict[str, Any]]] = defaultdict(list)
    print(f"load average {os.getloadavg()[0]:.1f} at start", flush=True)
    for r in range(args.rounds):
        for name, server_path in checkouts.items():
            figures = asyncio.run(drive(server_path, path, kinds, args.edits, args.open_close))
            got[name].append(figures)
            print(f"round {r + 1}: {name} {json.dumps(figures)}", flush=True)
    print(f"\nmedians over {args.rounds} round(s), load average {os.getloadavg()[0]:.1f} at the end")
    for kind in kinds:
        for name in checkouts:
            runs = [f[kind] for f in got[name]]
            print(f"{kind:14s} {name:7s} " + "  ".join(
                f"{k}={statistics.median(r[k] for r in runs):.2f}" for k in runs[0] if k != "collections by generation")
                  + f"  by generation (first round) {runs[0]['collections by generation']}")
        if "before" in checkouts:
            for figure in ("gc ms/edit", "largest gc ms", "p50 ms", "p90 ms", "max ms"):
                ratios = [a[kind][figure] / b[kind][figure] for a, b in zip(got["after"], got["before"], strict=True)
                          if b[kind][figure]]
                print(f"{kind:14s} after/before {figure} (paired median): {statistics.median(ratios):.3f}")
    for name in checkouts:
        for key in got[name][0]:
            if key.startswith("rss"):
                print(f"{name:7s} {key}: {statistics.median(f[key] for f in got[name]):.1f}")


if __name__ == "__main__":
    main()
