"""didChange -> publishDiagnostics latency of `hf-cache-lint` and `ruff server`, side by side.

    python bench/lsp_latency.py [--rounds 3] [--edits 200] [--big-edits 40] [--json out.json]

Servers: ours, the floor (bench/baseline_server.py: pygls + ast.parse + an empty publish) and `ruff server`,
alternating within each round; every figure is the median over rounds.
For each server and each file (a 100-line script, and transformers' own generation/utils.py):
cold first diagnostics (process spawn -> first publishDiagnostics after didOpen; also the server's CPU
seconds at that moment, and the ratios of each round's pair, which move less with the load), then N
incremental edits of each kind (`SCRIPT_EDITS`, `UTILS_EDITS`: a character typed into code, and deleted; on
utils.py also into a comment; Enter, and the lines joined again), each waited for (p50/p95 of didChange ->
publishDiagnostics of that version, per edit kind),
then the server's peak RSS (VmHWM). Our server runs with debounceMs=0; both push diagnostics
(the client declares no pull support). transformers is never imported: its source is only text.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from transformers_wheel import unpacked_transformers

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / ".cache"
TRANSFORMERS = "5.24.0"

SCRIPT_HEAD = '''"""A generation script of the usual shape."""
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, DynamicCache, GenerationConfig

MODEL = "org/some-model"
tokenizer = AutoTokenizer.from_pretrained(MODEL)
model = AutoModelForCausalLM.from_pretrained(MODEL)
'''
SCRIPT_CALL = '''

def answer_{i}(prompt: str, max_new_tokens: int = 32) -> str:
    # step {i}: tokenise, generate with a fresh cache, decode
    inputs = tokenizer(prompt, return_tensors="pt")
    cache = DynamicCache()
    out = model.generate(**inputs, past_key_values=cache, max_new_tokens=max_new_tokens, cache_implementation={ci})
    return tokenizer.decode(out[0], skip_special_tokens=True)
'''


def script_100_lines() -> str:
    text = SCRIPT_HEAD
    i = 0
    while text.count("\n") < 100:
        text += SCRIPT_CALL.format(i=i, ci='"static"' if i % 4 == 0 else "None")
        i += 1
    return "\n".join(text.split("\n")[:100]) + "\n"


def generation_utils() -> Path:
    """transformers' generation/utils.py of TRANSFORMERS as text: the oracle's tree, else the wheel unzipped (never
    imported). By version, not by a sort of the folder names (as text, `tf-5.4.0` sorted after `tf-5.24.0`)."""
    candidate = CACHE / "oracle" / f"tf-{TRANSFORMERS}" / "transformers" / "generation" / "utils.py"
    if candidate.is_file():
        return candidate
    return unpacked_transformers(TRANSFORMERS) / "generation" / "utils.py"


@dataclass(frozen=True)
class Edit:
    """Where a keystroke lands, found by a marker in the file: the first line holding `marker`, after it.

    `typed`: a character typed there, then deleted, alternately (the line count stays). `newline`: Enter typed
    there (the rest of the line moves to a new one, indented as that line plus 4), then the two lines joined again:
    every later line moves by one, and back.
    """

    name: str
    marker: str
    kind: str = "typed"  # "typed" or "newline"

    def place(self, lines: list[str]) -> tuple[int, int]:
        row = next(i for i, line in enumerate(lines) if self.marker in line)
        return row, lines[row].index(self.marker) + len(self.marker)

    def change(self, lines: list[str], n: int) -> tuple[dict[str, object], list[str]]:
        """The n-th edit (0-based) of a run as an LSP content change, and the lines after it."""
        row, col = self.place(lines)
        if self.kind == "typed":
            start, end, new = (col, col, "x") if n % 2 == 0 else (col, col + 1, "")
            after = [*lines[:row], lines[row][:start] + new + lines[row][end:], *lines[row + 1:]]
            return _change(row, start, row, end, new), after
        if n % 2 == 0:
            indent = " " * (len(lines[row]) - len(lines[row].lstrip()) + 4)
            after = [*lines[:row], lines[row][:col], indent + lines[row][col:], *lines[row + 1:]]
            return _change(row, col, row, col, "\n" + indent), after
        # join: from the end of the row holding the marker (it ends there now) through the next line's indentation
        end_col = len(lines[row + 1]) - len(lines[row + 1].lstrip())
        after = [*lines[:row], lines[row] + lines[row + 1][end_col:], *lines[row + 2:]]
        return _change(row, len(lines[row]), row + 1, end_col, ""), after


def _change(line: int, character: int, end_line: int, end_character: int, text: str) -> dict[str, object]:
    return {"range": {"start": position(line, character), "end": position(end_line, end_character)}, "text": text}


# The keystroke measured on each file. On utils.py, a name typed into code inside a method body that `generate`
# inlines (`_prepare_cache_for_generation`), as a user types; the comment edit of earlier passes (inside
# `_prepare_generation_config`) and Enter in code are measured beside it. On the 100-line script, the value of a
# `cache_implementation=` keyword.
SCRIPT_EDITS: tuple[Edit, ...] = (Edit("typed", "cache_implementation="), Edit("newline", "max_new_tokens: int = 32) -> str:", "newline"))
UTILS_EDITS: tuple[Edit, ...] = (Edit("typed code", "cache_implementation=generation_config"),
               Edit("typed comment", "cache_implementation="),
               Edit("newline", "cache_implementation=generation_config.cache_implementation,", "newline"))


@dataclass
class Run:
    server: str
    file: str  # the file's name, then the edit's (`generation_utils.py/typed code`)
    lines: int
    cold_ms: float
    initialize_ms: float
    cold_cpu_ms: float  # the server's user+system CPU at its first publish (less load-sensitive than wall)
    p50_ms: float
    p95_ms: float
    peak_rss_mb: float
    edits: int
    # The server's user+system CPU over the edits, per edit (/proc, clock ticks summed over all of them): what
    # one edit costs the server whatever else the machine runs, where wall times swing with the load.
    edit_cpu_ms: float = 0.0
    p90_ms: float = 0.0
    max_ms: float = 0.0  # the slowest edit: where an older-generation collection lands


class Client:
    """A bare JSON-RPC client over stdio: no lsprotocol structuring, so both servers are read alike.

    (pygls's client cannot read ruff's initialize result: its notebook selector lacks `notebook`,
    which lsprotocol 2025 requires; see docs/editors.md.)
    """

    def __init__(self, command: list[str], cwd: Path, server_path: str | None = None) -> None:
        self.command, self.cwd, self.server_path = command, cwd, server_path
        self.process: asyncio.subprocess.Process | None = None
        self.ids = 0
        self.responses: dict[int, asyncio.Future[object]] = {}
        self.on_publish: list[object] = []
        self.publishes: asyncio.Queue[tuple[float, dict[str, object]]] = asyncio.Queue()

    async def start(self) -> None:
        # An installed server has its .pyc files: compiling ours at every spawn is not the server's cost
        # (PYTHONDONTWRITEBYTECODE, set in some shells, would make every start compile the changed modules).
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        if self.server_path:  # another checkout's server (--before), measured in the same run
            env["PYTHONPATH"] = self.server_path
        self.process = await asyncio.create_subprocess_exec(
            *self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=self.cwd,
            env=env)
        self.reader = asyncio.create_task(self._read())

    def _send(self, message: dict[str, object]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        assert self.process and self.process.stdin
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def notify(self, method: str, params: object) -> None:
        self._send({"method": method, "params": params})

    async def request(self, method: str, params: object, timeout: float = 60) -> object:
        self.ids += 1
        future = self.responses[self.ids] = asyncio.get_running_loop().create_future()
        self._send({"id": self.ids, "method": method, "params": params})
        return await asyncio.wait_for(future, timeout)

    async def _read(self) -> None:
        assert self.process and self.process.stdout
        stream = self.process.stdout
        while True:
            length = 0
            while (line := await stream.readline()) not in (b"\r\n", b""):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            if not length:
                return
            message = json.loads(await stream.readexactly(length))
            now = time.perf_counter()
            if "method" not in message:
                future = self.responses.pop(message.get("id"), None)
                if future and not future.done():
                    future.set_result(message.get("result"))
            elif message["method"] == "textDocument/publishDiagnostics":
                self.publishes.put_nowait((now, message["params"]))
            elif "id" in message:  # a server request: configuration -> nulls, anything else -> null
                items = message.get("params", {}).get("items", []) if message["method"] == "workspace/configuration" else None
                self._send({"id": message["id"], "result": [None] * len(items) if items is not None else None})

    async def published(self, uri: str, version: int | None) -> float:
        """When the publish for `uri` (at `version`, when the server sends versions) arrived."""
        while True:
            at, params = await asyncio.wait_for(self.publishes.get(), 60)
            if params["uri"] == uri and (version is None or params.get("version") in (None, version)):
                return at

    async def stop(self) -> None:
        await self.request("shutdown", None)
        self.notify("exit", None)
        assert self.process
        await self.process.wait()
        self.reader.cancel()


def position(line: int, character: int) -> dict[str, int]:
    return {"line": line, "character": character}


async def bench(name: str, command: list[str], options: object, path: Path, edits: tuple[Edit, ...], count: int,
                server_path: str | None = None) -> list[Run]:
    """One server process: spawn, open `path`, then `count` edits of each kind in `edits`, each waited for; a Run
    per edit kind (the cold figures are the process's, the same in each)."""
    text, uri = path.read_text(), path.as_uri()
    client = Client(command, path.parent, server_path)
    spawned = time.perf_counter()
    await client.start()
    await client.request("initialize", {  # answered once the server has imported everything
        "processId": os.getpid(), "rootUri": path.parent.as_uri(), "initializationOptions": options,
        "workspaceFolders": [{"uri": path.parent.as_uri(), "name": "bench"}],
        "capabilities": {"workspace": {"configuration": True},
                         "textDocument": {"publishDiagnostics": {"versionSupport": True}}}})
    client.notify("initialized", {})
    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1,
                                                            "text": text}})
    initialized = (time.perf_counter() - spawned) * 1000
    cold = (await client.published(uri, 1) - spawned) * 1000
    assert client.process
    cold_cpu = cpu_ms(client.process.pid)
    version = 1
    measured: list[tuple[Edit, list[float], float]] = []
    for edit in edits:
        lines = text.split("\n")
        samples = []
        cpu_before = cpu_ms(client.process.pid)
        # An even count: the last edit takes the text back to the opened one for the next edit kind.
        for n in range(count + count % 2):
            version += 1
            change, lines = edit.change(lines, n)
            sent = time.perf_counter()
            client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                                     "contentChanges": [change]})
            samples.append((await client.published(uri, version) - sent) * 1000)
        measured.append((edit, sorted(samples), (cpu_ms(client.process.pid) - cpu_before) / len(samples)))
    rss = peak_rss_mb(client.process.pid)
    await client.stop()
    return [Run(name, f"{path.name}/{edit.name}", text.count("\n"), round(cold, 1), round(initialized, 1), cold_cpu,
                round(statistics.median(samples), 2), round(p95(samples), 2), rss, len(samples), round(edit_cpu, 3),
                round(quantile(samples, 0.9), 2), round(max(samples), 2))
            for edit, samples, edit_cpu in measured]


def p95(samples: list[float]) -> float:
    return quantile(samples, 0.95)


def quantile(samples: list[float], q: float) -> float:
    return sorted(samples)[int(q * (len(samples) - 1))]


def engine_only(path: Path, edits: tuple[Edit, ...], count: int) -> list[Run]:
    """The same edits straight into check_source, in this process, called as the server calls it (lsp/documents.py:
    the buffer's incremental parse and replays, hover stories left lazy): what the adapter adds is the difference."""
    from hf_cache_lint.checking.source import check_source
    from hf_cache_lint.engine.environment.context import resolve_context

    text = path.read_text()
    context = resolve_context()
    check_source(text, str(path), None, context, incremental=True, lazy_stories=True)
    runs = []
    for edit in edits:
        lines = text.split("\n")
        samples = []
        for n in range(count + count % 2):
            _, lines = edit.change(lines, n)
            start = time.perf_counter()
            check_source("\n".join(lines), str(path), None, context, incremental=True, lazy_stories=True)
            samples.append((time.perf_counter() - start) * 1000)
        runs.append(Run("engine only", f"{path.name}/{edit.name}", text.count("\n"), 0.0, 0.0, 0.0,
                        round(statistics.median(samples), 2), round(p95(samples), 2), 0.0, len(samples)))
    return runs


def cpu_ms(pid: int) -> float:
    """User + system CPU of a running process so far (Linux /proc; clock ticks, usually 10 ms)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return round((int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK"), 1)


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return round(int(line.split()[1]) / 1024, 1)
    return 0.0


SERVERS = {
    "hf-cache-lint": ([sys.executable, "-m", "hf_cache_lint.lsp"], {"debounceMs": 0}),
    # The floor: pygls + ast.parse + an empty publish (bench/baseline_server.py). Our targets are ratios to it.
    "ast baseline": ([sys.executable, str(Path(__file__).resolve().parent / "baseline_server.py")], None),
    "ruff server": ([shutil.which("ruff") or "ruff", "server"], None),
}


def _median_run(runs: list[Run]) -> Run:
    """Per figure, the median over rounds (a slow or a lucky round moves nothing)."""
    first = runs[0]
    med = {k: round(statistics.median(getattr(r, k) for r in runs), 2)
           for k in ("cold_ms", "initialize_ms", "cold_cpu_ms", "p50_ms", "p95_ms", "peak_rss_mb", "edit_cpu_ms",
                     "p90_ms", "max_ms")}
    return Run(first.server, first.file, first.lines, edits=first.edits, **med)


def _paired(per: dict[tuple[str, str], list[Run]], mine: str, other: str, file: str, figure: str) -> float:
    """The median over rounds of round-by-round ratios: each pair ran back to back, under about the same load."""
    ratios = [getattr(a, figure) / getattr(b, figure) for a, b in zip(per[(mine, file)], per[(other, file)], strict=True)
              if getattr(b, figure)]
    return statistics.median(ratios) if ratios else float("nan")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--edits", type=int, default=200, help="edits of each kind per run on the 100-line script")
    parser.add_argument("--big-edits", type=int, default=40, help="edits of each kind per run on generation/utils.py")
    parser.add_argument("--rounds", type=int, default=3, help="rounds; figures are the median over rounds")
    parser.add_argument("--servers", default=",".join(SERVERS), help="comma-separated subset of: " + ", ".join(SERVERS))
    parser.add_argument("--small-only", action="store_true", help="skip generation/utils.py")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--before", help="another checkout (e.g. a worktree of an older commit): its server runs too")
    args = parser.parse_args()
    chosen = {k: SERVERS[k] for k in args.servers.split(",")}
    paths: dict[str, str | None] = {k: None for k in chosen}
    if args.before:
        chosen["hf-cache-lint before"] = SERVERS["hf-cache-lint"]
        paths["hf-cache-lint before"] = str(Path(args.before).resolve() / "server")
    # Outside the repository: its pyproject excludes .cache from ruff, which would then lint nothing.
    work = Path(tempfile.mkdtemp(prefix="hf-cache-lint-bench-"))
    small = work / "script_100.py"
    small.write_text(script_100_lines())
    files = [(small, SCRIPT_EDITS, args.edits)]
    if not args.small_only:
        big = work / "generation_utils.py"
        big.write_text(generation_utils().read_text())
        files.append((big, UTILS_EDITS, args.big_edits))
    per: dict[tuple[str, str], list[Run]] = {}
    load = os.getloadavg()[0]
    for rnd in range(args.rounds):
        for path, edits, count in files:
            # Servers alternate within a round, so a change of load hits all of them.
            for name, (command, options) in chosen.items():
                for run in await bench(name, command, options, path, edits, count, paths[name]):
                    per.setdefault((name, run.file), []).append(run)
                    print(f"round {rnd + 1}: " + json.dumps(asdict(run)), flush=True)
    runs = [_median_run(v) for v in per.values()]
    for path, edits, count in files:
        runs.extend(engine_only(path, edits, count))
    print()
    print(f"median of {args.rounds} rounds, load average {load:.1f} at start")
    print(f"{'file/edit':<34}{'server':<22}{'cold ms':>9}{'init ms':>9}{'cold CPU':>9}{'p50 ms':>9}{'p95 ms':>9}"
          f"{'CPU/edit':>9}{'RSS MB':>8}{'p90 ms':>9}{'max ms':>9}")
    for r in runs:
        print(f"{r.file:<34}{r.server:<22}{r.cold_ms:>9}{r.initialize_ms:>9}{r.cold_cpu_ms:>9}{r.p50_ms:>9}"
              f"{r.p95_ms:>9}{r.edit_cpu_ms:>9}{r.peak_rss_mb:>8}{r.p90_ms:>9}{r.max_ms:>9}")
    for file in dict.fromkeys(r.file for r in runs):
        for mine in ("hf-cache-lint", "hf-cache-lint before"):
            ours = next((r for r in runs if r.file == file and r.server == mine), None)
            for other in ("ast baseline", "ruff server"):
                base = next((r for r in runs if r.file == file and r.server == other), None)
                if ours and base:
                    print(f"{mine}: {file} vs {other}: p50 {ours.p50_ms / base.p50_ms:.2f}x "
                          f"(paired {_paired(per, mine, other, file, 'p50_ms'):.2f}x), "
                          f"p95 {ours.p95_ms / base.p95_ms:.2f}x, "
                          f"CPU per edit {_paired(per, mine, other, file, 'edit_cpu_ms'):.2f}x (paired), "
                          f"spawn->first diagnostics {ours.cold_ms / base.cold_ms:.2f}x "
                          f"(paired {_paired(per, mine, other, file, 'cold_ms'):.2f}x, "
                          f"CPU {_paired(per, mine, other, file, 'cold_cpu_ms'):.2f}x), "
                          f"spawn->initialized {ours.initialize_ms / base.initialize_ms:.2f}x "
                          f"(paired {_paired(per, mine, other, file, 'initialize_ms'):.2f}x)")
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in runs], indent=2))


if __name__ == "__main__":
    asyncio.run(main())
