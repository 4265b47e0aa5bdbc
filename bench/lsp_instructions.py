"""Instructions a language server executes from spawn to its first diagnostics, and per keystroke (not a test).

    python bench/lsp_instructions.py [--before DIR] [--edits 20] [--kinds typed,newline] [--file script|utils]

bench/lsp_latency.py's 100-line script (`--file utils`: transformers' generation/utils.py and UTILS_EDITS), opened in each server (ours, `--before DIR`'s, and the floor,
bench/baseline_server.py) run under valgrind's callgrind: one process that opens the file, waits for its first
diagnostics and exits at once, and one per edit kind (`SCRIPT_EDITS`) that then makes `--edits` edits, each waited
for. "start" is the first process's count (spawn, imports, the handshake, the first check, the publish); "per edit"
is (the edit process's count - the first's) / edits. Each server runs in a wrapper (`--serve`) that ends the process
with os._exit on `exit` (the floor's pygls would run the interpreter's teardown, ours does not) and, for ours, does
not import the request modules (lsp/startup.py `warm_requests`), which runs after the first results and would land
in either count depending on timing. On the shared machine (load 6-14) wall and CPU times move 10-20 % between runs;
instruction counts do not, so they show changes of a few percent that lsp_latency.py's rounds cannot.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import runpy
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
FILE = "script"  # --file: the document opened and edited


def serve(which: str) -> None:
    """In the measured process: the server, ended with os._exit on `exit` (no teardown, as ours ends)."""
    if which == "floor":
        sys.argv = [str(HERE / "baseline_server.py")]
        try:
            runpy.run_path(sys.argv[0], run_name="__main__")
        except SystemExit as exc:
            os._exit(exc.code if isinstance(exc.code, int) else 0)
        os._exit(0)
    import threading

    from hf_cache_lint.lsp import startup

    def no_request_warm_up(done: threading.Event) -> None:
        return None  # not on the path to any diagnostics; see the module's docstring

    startup.warm_requests = no_request_warm_up
    sys.argv = ["hf_cache_lint.lsp"]
    runpy.run_module("hf_cache_lint.lsp", run_name="__main__")


async def drive(command: list[str], env_path: str | None, kind: str | None, edits: int) -> None:
    """Spawn `command` (the server under callgrind), open the script, wait for the first diagnostics, make `edits`
    edits of `kind`, each waited for, then shutdown and exit."""
    sys.path.insert(0, str(HERE))
    from lsp_latency import SCRIPT_EDITS, UTILS_EDITS, Client, generation_utils, script_100_lines

    folder = Path(tempfile.mkdtemp(prefix="lsp_instructions_"))
    path = folder / "script.py"
    path.write_text(generation_utils().read_text() if FILE == "utils" else script_100_lines())
    text, uri = path.read_text(), path.as_uri()
    client = Client(command, folder, env_path)
    await client.start()
    assert client.process is not None
    # under callgrind at a load of 8-10 the floor's pygls takes more than lsp_latency.py's minute to answer
    await client.request("initialize", {
        "processId": os.getpid(), "rootUri": folder.as_uri(), "initializationOptions": {"debounceMs": 0},
        "workspaceFolders": [{"uri": folder.as_uri(), "name": "bench"}],
        "capabilities": {"workspace": {"configuration": True},
                         "textDocument": {"publishDiagnostics": {"versionSupport": True}}}}, timeout=600)
    client.notify("initialized", {})
    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1,
                                                            "text": text}})
    await client.published(uri, 1)
    if kind is not None:
        edit = next(e for e in (UTILS_EDITS if FILE == "utils" else SCRIPT_EDITS) if e.name == kind)
        lines, version = text.split("\n"), 1
        for n in range(edits):
            version += 1
            change, lines = edit.change(lines, n)
            client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                                     "contentChanges": [change]})
            await client.published(uri, version)
    await client.stop()


def count(server: str, server_path: str | None, kind: str | None, edits: int) -> int:
    """One measured process (this script with --drive, which spawns the server under callgrind)."""
    out = Path(tempfile.mkdtemp(prefix="lsp_instructions_out_")) / "callgrind.txt"
    serve_command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", f"--log-file={out}",
                     sys.executable, __file__, "--serve", server]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    if server_path:
        env["PYTHONPATH"] = server_path
    if server == "ours":  # .pyc files first (an installed server has them) of all it imports, outside valgrind,
        # and, from speed31g, startup.ClassCode's file of dataclasses' methods, which an installed server's first
        # start writes as Python writes a .pyc (under deferred_old_collections, as the server starts)
        subprocess.run([sys.executable, "-c", "import threading\nfrom hf_cache_lint.lsp import startup\n"
                        "with startup.deferred_old_collections():\n"
                        " import hf_cache_lint.lsp.server, hf_cache_lint.selection\n"
                        " startup.warm_engine(threading.Event())\nstartup.warm_requests(threading.Event())\n"],
                       env=env, check=True)
    asyncio.run(asyncio.wait_for(drive(serve_command, server_path, kind, edits), 900))
    found = re.search(r"Collected : (\d+)", out.read_text())
    if found is None:
        raise RuntimeError(f"no callgrind count in {out}")
    return int(found[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", type=Path, help="another checkout: its server is counted too")
    parser.add_argument("--edits", type=int, default=20)
    parser.add_argument("--kinds", default="typed", help="comma-separated subset of SCRIPT_EDITS' names")
    parser.add_argument("--file", choices=("script", "utils"), default="script",
                        help="utils: transformers' generation/utils.py and UTILS_EDITS' names (`typed code`)")
    parser.add_argument("--serve", choices=("ours", "floor"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    global FILE
    FILE = args.file
    if args.serve:
        serve(args.serve)
        return
    servers: list[tuple[str, str, str | None]] = [("hf-cache-lint", "ours", str(HERE.parent / "server"))]
    if args.before:
        servers.append(("before", "ours", str(args.before / "server")))
    servers.append(("floor", "floor", None))
    edits = args.edits + args.edits % 2  # even: the text ends as it began
    results: dict[str, dict[str, float]] = {}
    for name, which, path in servers:
        start = count(which, path, None, 0)
        row = {"start (M)": start / 1e6}
        for kind in args.kinds.split(","):
            row[f"{kind} per edit (M)"] = (count(which, path, kind, edits) - start) / edits / 1e6
        results[name] = row
        print(name, {k: round(v, 2) for k, v in row.items()}, flush=True)
    floor = results["floor"]
    for name in results:
        if name != "floor":
            print(f"{name} / floor:", {k: round(v / floor[k], 3) for k, v in results[name].items()})


if __name__ == "__main__":
    main()
