"""What a stricter prefilter would save (an experiment for the engine's owner, not a test).

    python bench/bench_prefilter.py [--tree DIR] [--jobs N]

Runs `check` in-process over the tree with engine.api.might_matter swapped for each variant and
prints wall time, files parsed and findings. Variants:
  baseline    the engine's TRIGGERS anywhere in the text (today)
  code-only   the same TRIGGERS, after dropping comments and triple-quoted strings (docstrings):
              one regex pass; short strings stay, since `{"cache_implementation": ...}` matters
  strict      code-only, and one of generate / pipeline / GenerationConfig / generation_config /
              cache_implementation must appear (a cache keyword alone cannot meet anything)
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "server"))
sys.path.insert(0, str(ROOT / "bench"))

from bench_cli import find_tree  # noqa: E402

from hf_cache_lint.engine import api  # noqa: E402

# Strings first, so a `#` or `'''` inside a short string is not taken for a comment or a docstring.
_TOKENS = re.compile(r'''("""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')|#[^\n]*''')
_STRICT = re.compile(r"\bgenerate\b|\bpipeline\b|GenerationConfig|generation_config|cache_implementation")


def code_only(text: str) -> str:
    def keep(m: re.Match[str]) -> str:
        s = m.group(1)
        return s if s and not s.startswith(('"""', "'''")) else ""

    return _TOKENS.sub(keep, text)


def variants(base: Callable[[str], bool]) -> dict[str, Callable[[str], bool]]:
    return {
        "baseline": base,
        "code-only": lambda t: base(t) and base(code_only(t)),
        "strict": lambda t: base(t) and bool(_STRICT.search(code_only(t))),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tree")
    ap.add_argument("--jobs", type=int, default=0)
    args = ap.parse_args()
    tree = find_tree(args.tree)
    from hf_cache_lint.cli import main as cli

    base = api.might_matter
    print(f"tree: {tree}")
    for name, fn in variants(base).items():
        texts = [p.read_text(encoding="utf-8", errors="replace") for p in sorted(tree.rglob("*.py"))]
        parsed = sum(1 for t in texts if fn(t))
        api.might_matter = fn  # forked workers inherit the swap
        out = io.StringIO()
        start = time.perf_counter()
        with contextlib.redirect_stdout(out):
            cli(["check", "--format", "json", "--exit-zero", "--jobs", str(args.jobs), str(tree)])
        wall = time.perf_counter() - start
        api.might_matter = base
        print(f"  {name:<10} {wall:7.2f} s  {parsed:5d} files parsed  {len(json.loads(out.getvalue()))} findings",
              flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
