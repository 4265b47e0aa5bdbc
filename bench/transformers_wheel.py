"""transformers' source as text for the benchmarks: its wheel, downloaded once and unpacked (never imported).

bench_cli.py lints the package and lsp_latency.py edits its generation/utils.py; both take it from here, so the
folder under .cache/bench is always the whole package (a partial one was once linted as a 1-file tree).
"""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

BENCH_CACHE = Path(__file__).resolve().parents[1] / ".cache" / "bench"


def unpacked_transformers(version: str) -> Path:
    """The `transformers` package folder of that version's wheel, fetched from the package index if absent."""
    unpacked = BENCH_CACHE / f"transformers-{version}"
    if not (unpacked / "transformers" / "__init__.py").is_file():  # absent, or a partial folder from an older run
        BENCH_CACHE.mkdir(parents=True, exist_ok=True)
        wheel = BENCH_CACHE / f"transformers-{version}-py3-none-any.whl"
        if not wheel.exists():
            subprocess.run([sys.executable, "-m", "pip", "download", f"transformers=={version}", "--no-deps",
                            "--only-binary=:all:", "-d", str(BENCH_CACHE), "-q"], check=True)
        with zipfile.ZipFile(wheel) as zf:
            zf.extractall(unpacked)
    return unpacked / "transformers"
