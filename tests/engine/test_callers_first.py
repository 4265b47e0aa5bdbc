"""A module function that other functions of the module call by name is analysed through those calls, not on its own
with unknown arguments first (engine/interpreter/functions.py `_callers_first`; eighth session, cacheclass29g): a
converter's `isinstance(cache, tuple)` branch is dead for the cache its only caller hands it (heldout5's xinference
merge, heldout10's MiniCPM-o snapshot), while a function nobody here calls is still run alone."""

from __future__ import annotations

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.target import Target

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
