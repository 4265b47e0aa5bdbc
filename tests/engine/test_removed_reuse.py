"""Issue 31 item 2: the removed-API reader reuses the last check's uses of a module-level function whose text and
inputs did not change (engine/interpreter/removed_reuse.py), moved where lines were added or removed above it; every
edit's facts are a fresh check's (the memos emptied first), edit after edit, on the real-code files that hold
removed-API uses and hooks, at 5.24.0 and 4.57.6; and the reuse happens (a re-check walks less)."""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

import pytest

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.base import process_state
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.engine.interpreter import interp, removed_api, removed_reuse

ROOT = Path(__file__).resolve().parents[2]
REAL = ROOT / "tests" / "realcode"
FILES = ["heldout3/block_prefix_cache.py", "heldout5/xinference_gemma3_hybrid.py", "heldout5/xinference_batch_merge.py",
         "heldout6/fsd_generation_imports.py", "heldout4/kvzip_context_cache.py", "heldout6/logquant_streaming_cache.py",
         "cases/legacy_conversions.py", "cases/removed_classes.py"]
# Hook files: an edit inside an override or a patched forward (the hook reader reads the whole tree again).
HOOK_FILES = ["cases/kv_press_update.py", "cases/attention_sinks_patch.py", "cases/hook_prepare_inputs.py",
              "heldout4/kvzip_attention_patch.py", "cases/layer_hook_routes.py"]
SNIPPETS = ["x", "\n", "    y = cache.key_cache[0]\n", "    n = cache.get_max_length()\n", "    ",
            "from transformers import SinkCache\n", "    c = SinkCache(window_length=4, num_sink_tokens=1)\n", "#", "(",
            "    for k, v in past_key_values:\n        pass\n", "def g(cache):\n    return cache.seen_tokens\n"]


def edits(text: str, rng: random.Random, count: int) -> list[str]:
    """`count` texts, each one edit (a snippet typed at a line start or inside a line, or lines deleted) on the last."""
    out = []
    for _ in range(count):
        lines = text.split("\n")
        i = rng.randrange(len(lines))
        roll = rng.random()
        if roll < 0.25 and len(lines) > 3:
            del lines[i:i + rng.randrange(1, 3)]
        elif roll < 0.5:
            line = lines[i]
            at = rng.randrange(len(line) + 1)
            lines[i] = line[:at] + rng.choice(["x", "_", " ", "("]) + line[at:]
        else:
            lines[i] = rng.choice(SNIPPETS) + lines[i]
        text = "\n".join(lines)
        out.append(text)
    return out


def removed(text: str, path: str, version: str, incremental: bool) -> tuple[Any, ...]:
    analysis = interp.analyse(text, path, Context(target=Target.of(version)), incremental=incremental)
    return tuple(analysis.facts.get("removed_api_use", ()))


@pytest.mark.parametrize("name", FILES)
def test_every_edit_gives_a_fresh_checks_removed_api_uses(name: str, tmp_path: Path) -> None:
    text = (REAL / name).read_text()
    rng = random.Random(name)
    path = str(tmp_path / Path(name).name)
    for version in ("5.24.0", "4.57.6"):
        process_state.reset_all()
        assert removed(text, path, version, True) or version != "5.24.0", "the file holds removed-API uses"
        try:
            for changed in edits(text, rng, 25):
                kept = removed(changed, path, version, True)
                process_state.reset_all()
                assert kept == removed(changed, str(tmp_path / "fresh.py"), version, False), (version, changed)
                removed(changed, path, version, True)  # the buffer's state again, for the next edit
        finally:
            interp.forget(path)


@pytest.mark.parametrize("name", HOOK_FILES)
def test_every_edit_inside_an_override_or_patched_forward_gives_a_fresh_checks_findings(
        name: str, tmp_path: Path) -> None:
    text = (REAL / name).read_text()
    lines = text.split("\n")
    rng = random.Random(name)
    # the lines of the hooks' bodies: those inside a `def` that takes the cache (an override, a patched forward)
    inside = [i for i, line in enumerate(lines) if line.startswith("        ") and line.strip()]
    path = str(tmp_path / Path(name).name)
    ctx = Context(target=Target.of("5.24.0"))
    check_source(text, path, context=ctx, incremental=True)
    try:
        for _ in range(12):
            i = rng.choice(inside)
            at = rng.randrange(len(lines[i]) + 1)
            lines[i] = lines[i][:at] + rng.choice(["x", " ", "_"]) + lines[i][at:]
            changed = "\n".join(lines)
            kept = check_source(changed, path, context=ctx, incremental=True).findings
            process_state.reset_all()
            assert kept == check_source(changed, str(tmp_path / "fresh.py"), context=ctx).findings, changed
            check_source(changed, path, context=ctx, incremental=True)
    finally:
        interp.forget(path)


def test_a_recheck_reuses_the_functions_the_edit_did_not_touch(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The keystroke bench's 100-line script: after a character typed into one function, the reader walks that
    function again, not the others (it calls the chain reader on fewer nodes), and says the same."""
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        from lsp_latency import script_100_lines
    finally:
        sys.path.remove(str(ROOT / "bench"))
    text = script_100_lines()
    calls: list[int] = []
    real = removed_api.chain_uses

    def counted(*args: Any) -> Any:
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(removed_api, "chain_uses", counted)
    path = str(tmp_path / "script.py")
    process_state.reset_all()
    removed(text, path, "5.24.0", True)
    whole = len(calls)
    changed = text.replace("cache_implementation=None", "cache_implementation=Non", 1)
    calls.clear()
    kept = removed(changed, path, "5.24.0", True)
    again = len(calls)
    process_state.reset_all()
    assert kept == removed(changed, str(tmp_path / "fresh.py"), "5.24.0", False)
    interp.forget(path)
    assert whole > 0 and again < whole / 4, (whole, again)


def test_an_import_the_functions_do_not_hold_changes_their_uses(tmp_path: Path) -> None:
    """A module-wide input (an imported cache class) changes a function's uses though its text did not."""
    body = "\n\ndef make():\n    return SinkCache(window_length=4, num_sink_tokens=1)\n"
    path = str(tmp_path / "m.py")
    process_state.reset_all()
    head = "from transformers import DynamicCache\n"  # an imported cache class: the walk runs in both
    without = removed(head + "from mylib import SinkCache" + body, path, "4.57.6", True)
    assert removed_reuse._LAST_RUNS is not None and removed_reuse._LAST_RUNS[1], "the function's walk is kept"
    with_import = removed(head + "from transformers import SinkCache" + body, path, "4.57.6", True)
    interp.forget(path)
    process_state.reset_all()
    assert with_import == removed(head + "from transformers import SinkCache" + body, str(tmp_path / "f.py"), "4.57.6",
                                  False)
    assert not without and with_import


def test_a_methods_uses_follow_its_class_header(tmp_path: Path) -> None:
    """A method of a module-level class is reused with its class's header (removed_reuse.py `reuse_head`): the
    constructor part reads the class's bases and name (`super().__init__(4)` in a DynamicCache subclass, a bare
    `super().__init__()` in a Cache subclass), so a header edit changes the uses of a method whose text did not
    change; an edit elsewhere keeps them (moved), each equal to a fresh check's."""
    head = "from transformers import Cache, DynamicCache\n\n\n"
    body = ("    def __init__(self):\n        super().__init__(4)\n\n    def reset(self):\n"
            "        super().__init__()\n\n\ndef f():\n    return 1\n")
    texts = [head + "class C(DynamicCache):\n" + body, head + "class C(object):\n" + body,
             head + "class C(Cache):\n" + body, head + "class D(Cache):\n" + body,
             "import torch\n" + head + "class D(Cache):\n" + body, head + "class C(DynamicCache):\n" + body]
    path = str(tmp_path / "m.py")
    process_state.reset_all()
    seen = []
    try:
        for text in texts:
            kept = removed(text, path, "5.24.0", True)
            assert removed_reuse._LAST_RUNS is not None and any(
                "class " in piece for piece in removed_reuse._LAST_RUNS[1]), "the methods' walks are kept"
            process_state.reset_all()
            assert kept == removed(text, str(tmp_path / "fresh.py"), "5.24.0", False), text
            removed(text, path, "5.24.0", True)
            seen.append(kept)
    finally:
        interp.forget(path)
    assert seen[0] and not seen[1] and seen[2] and seen[2] != seen[3], seen
