"""`check --watch`: check, then check again whenever a checked file (or a pyproject.toml, a .gitignore) changes.

Polling (one stat a file a second), not inotify or a watchdog dependency: a lint run costs far more than the
stats, it works the same on every OS and filesystem (network mounts, containers), and a test can bound it
(`rounds`).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable


def _snapshot(args: argparse.Namespace) -> dict[str, tuple[int, int]]:
    """(mtime, size) of every file a check of `args.paths` reads or is configured by."""
    from hf_cache_lint.cli_support.check_cmd import selection
    from hf_cache_lint.cli_support.discovery import discover
    from hf_cache_lint.pyproject import load_config

    paths = args.paths or ["."]
    config = load_config(paths)
    found = discover(paths, selection(config.settings, args), config.root)
    names = [s.where for s in found.files]
    names += [os.path.join(str(config.root), n) for n in ("pyproject.toml", ".gitignore", ".ignore")]
    out = {}
    for name in names:
        try:
            st = os.stat(name)
        except OSError:
            continue
        out[name] = (st.st_mtime_ns, st.st_size)
    return out


def watch(args: argparse.Namespace, once: Callable[[argparse.Namespace], int], polls: int | None = None,
          interval: float = 1.0) -> int:
    """Run `once`, then again after each change; stop after `polls` looks (None: at Ctrl-C). The last status."""
    before = _snapshot(args)
    status = once(args)
    looked = 0
    try:
        while polls is None or looked < polls:
            time.sleep(interval)
            looked += 1
            now = _snapshot(args)
            if now == before:
                continue
            before = now
            print(f"[{time.strftime('%H:%M:%S')}] File change detected, checking again...", file=sys.stderr)
            status = once(args)
    except KeyboardInterrupt:
        return 130
    return status
