"""A module function that other functions of the module call by name is analysed through those calls, not on its own
with unknown arguments first (engine/interpreter/functions.py `_callers_first`; eighth session, cacheclass29g): a
converter's `isinstance(cache, tuple)` branch is dead for the cache its only caller hands it (heldout5's xinference
merge, heldout10's MiniCPM-o snapshot), while a function nobody here calls is still run alone."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.base import process_state
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.engine.interpreter import functions, interp

CODE = '''from transformers import AutoModelForCausalLM
from transformers.cache_utils import DynamicCache


def convert(cache):
    if isinstance(cache, tuple):
        return DynamicCache.from_legacy_cache(cache)
    return cache


def prefill(model, ids):
    out = model(input_ids=ids, use_cache=True)
    return convert(out.past_key_values)


def probe(ids):
    model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B-Instruct")
    return prefill(model, ids)
'''


def found(text: str) -> list[tuple[int, str]]:
    result = check_source(text, "t.py", context=Context(target=Target.of("5.24.0")))
    return [(f.span.start.line, f.code) for f in result.findings]


def test_a_helper_only_other_functions_call_is_judged_by_what_they_pass() -> None:
    assert found(CODE) == []


def test_a_helper_nobody_calls_here_is_still_run_alone() -> None:
    alone = CODE.replace("    return convert(out.past_key_values)\n", "    return out.past_key_values\n")
    assert found(alone) == [(7, "HFC007")]  # the caller may pass a legacy tuple: a Warning with its condition


def test_an_editor_buffer_walks_only_the_functions_an_edit_changed(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    # The order comes from each function's calls, kept by its code from the last check of the buffer: the edited
    # `prefill` (now calling `convert`) is walked again, the others are not, and the findings are a fresh check's.
    path = str(tmp_path / "buffer.py")
    context = Context(target=Target.of("5.24.0"))
    alone = CODE.replace("    return convert(out.past_key_values)\n", "    return out.past_key_values\n")
    walked: list[int] = []
    real = functions._called_names

    def counting(body: Any) -> Any:
        walked.append(body.start_pos[0])
        return real(body)

    monkeypatch.setattr(functions, "_called_names", counting)
    process_state.reset_all()
    try:
        first = check_source(alone, path, context=context, incremental=True)
        assert [(f.span.start.line, f.code) for f in first.findings] == [(7, "HFC007")]
        assert len(walked) == 3
        fresh = found(CODE)  # a whole file's check (no buffer): walks all three
        walked.clear()
        second = check_source(CODE, path, context=context, incremental=True)
        assert [(f.span.start.line, f.code) for f in second.findings] == fresh == []
        assert len(walked) == 1  # `prefill`'s new body only
    finally:
        interp.forget(path)
