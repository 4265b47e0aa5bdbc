"""Does the server's memory stay flat over many edits? (issue 4: 10,000 edits; not a test)

Opens a 100-line script in `hf-cache-lint serve` (debounce 0), sends N didChange edits that add and
remove a character inside a `cache_implementation=` value, waits for each version's diagnostics, and
prints the resident set size (VmRSS) every N/10 edits. Flat means the last samples stay within a few
MB of the first ones after warm-up.
Usage: python bench/lsp_memory.py [--edits 10000] [--big] [--open-close 0]
`--big`: transformers' generation/utils.py instead (lsp_latency.generation_utils), whose methods and the calls
they inline are replayed at every keystroke (engine/interpreter/replay.py).
`--open-close N`: then N copies of the file opened, each closed once its first diagnostics are out, with the RSS
every N/10 (the server freezes the heap after a unit's first results and thaws it at a close: lsp/server.py
`freeze_heap`; a closed document's tree must not stay).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from lsp_latency import SERVERS, Client, generation_utils, position, script_100_lines


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


async def run(edits: int, big: bool, open_close: int) -> None:
    command, options = SERVERS["hf-cache-lint"]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "script.py"
        path.write_text(generation_utils().read_text() if big else script_100_lines())
        text, uri = path.read_text(), path.as_uri()
        client = Client(command, path.parent)
        await client.start()
        await client.request("initialize", {
            "processId": os.getpid(), "rootUri": path.parent.as_uri(), "initializationOptions": options,
            "capabilities": {"textDocument": {"publishDiagnostics": {"versionSupport": True}}}})
        client.notify("initialized", {})
        client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1,
                                                                "text": text}})
        await client.published(uri, 1)
        assert client.process
        lines = text.split("\n")
        row = next(i for i, line in enumerate(lines) if "cache_implementation=" in line)
        col = lines[row].index("cache_implementation=") + len("cache_implementation=")
        samples = []
        for n in range(edits):
            start, end, new = (col, col, "x") if n % 2 == 0 else (col, col + 1, "")
            client.notify("textDocument/didChange", {
                "textDocument": {"uri": uri, "version": n + 2},
                "contentChanges": [{"range": {"start": position(row, start), "end": position(row, end)},
                                    "text": new}]})
            await client.published(uri, n + 2)
            if (n + 1) % max(1, edits // 10) == 0:
                samples.append((n + 1, rss_mb(client.process.pid)))
                print(f"after {n + 1:6} edits: RSS {samples[-1][1]:.1f} MB", flush=True)
        opened = []
        for i in range(open_close):
            other = path.parent / f"copy_{i}.py"
            other.write_text(text)
            client.notify("textDocument/didOpen", {"textDocument": {"uri": other.as_uri(), "languageId": "python",
                                                                    "version": 1, "text": text}})
            await client.published(other.as_uri(), 1)
            client.notify("textDocument/didClose", {"textDocument": {"uri": other.as_uri()}})
            if (i + 1) % max(1, open_close // 10) == 0:
                await asyncio.sleep(0.2)  # the close's collection, on the engine thread
                opened.append((i + 1, rss_mb(client.process.pid)))
                print(f"after {i + 1:6} opens and closes: RSS {opened[-1][1]:.1f} MB", flush=True)
        await client.stop()
    if samples[1:]:
        first, last = samples[1][1], samples[-1][1]  # samples[0] still includes warm-up growth
        print(f"growth from {samples[1][0]} to {samples[-1][0]} edits: {last - first:+.1f} MB")
    if opened[1:]:
        print(f"growth from {opened[1][0]} to {opened[-1][0]} opens and closes: {opened[-1][1] - opened[1][1]:+.1f} MB")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--edits", type=int, default=10_000)
    ap.add_argument("--big", action="store_true", help="transformers' generation/utils.py, not the 100-line script")
    ap.add_argument("--open-close", type=int, default=0, help="then open and close this many copies of the file")
    args = ap.parse_args()
    asyncio.run(run(args.edits, args.big, args.open_close))


if __name__ == "__main__":
    main()
