"""Incremental parsing (an editor buffer) gives exactly the findings of a fresh parse, edit after edit."""

from __future__ import annotations

import random
from pathlib import Path

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.base import process_state
from hf_cache_lint.engine.environment.context import Context

BASE = (Path(__file__).resolve().parents[2] / "examples" / "compile_then_prefix_cache.py").read_text()
SNIPPETS = ["model.generation_config.cache_implementation = 'static'\n", "cache = DynamicCache()\n",
            "out = model.generate(**inputs, past_key_values=cache)\n", "def f(:\n", "    ", "(", ")\n", "#", "\n",
            "x = {'cache_implementation': 'offloaded'}\n", "model.generate(**x, past_key_values=cache)\n"]


def test_incremental_matches_fresh_over_random_edits(tmp_path: Path) -> None:
    rng = random.Random(7)
    path = str(tmp_path / "buffer.py")
    ctx = Context(workspace=tmp_path)
    text = BASE
    for _ in range(300):
        at = rng.randrange(len(text) + 1)
        if rng.random() < 0.4 and len(text) > 40:
            end = min(len(text), at + rng.randrange(1, 30))
            text = text[:at] + text[end:]
        else:
            text = text[:at] + rng.choice(SNIPPETS) + text[at:]
        incremental = check_source(text, path, context=ctx, incremental=True).findings
        # The fresh check must not see anything the buffer's checks left behind (parse trees, memos, reused
        # per-function results): empty every process cache first, then restore the buffer's state so the next
        # edit is again checked incrementally against the previous text.
        process_state.reset_all()
        fresh = check_source(text, path, context=Context(workspace=tmp_path)).findings
        assert incremental == fresh, text
        check_source(text, path, context=ctx, incremental=True)
