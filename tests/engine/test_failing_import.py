"""Issue 29 item 7: a top-level import that fails on the target is reported (HFC007), and the rest of the file is
checked as if it had succeeded; an import whose `try` has a handler still sends the run to the handler."""

from __future__ import annotations

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.target import Target

UNHANDLED = """from transformers import AutoModelForCausalLM, HybridCache, DynamicCache

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")
out = model.generate(ids, cache_implementation="statc", max_new_tokens=5)
cache = DynamicCache()
cache.crop(3)
"""

HANDLED = """from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")
try:
    from transformers import HybridCache
    out = model.generate(ids, cache_implementation="statc", max_new_tokens=5)
except ImportError:
    out = None
"""


def _codes(code: str, version: str) -> list[tuple[int, str]]:
    found = check_source(code, "example.py", context=Context(target=Target.of(version))).findings
    return sorted((f.span.start.line, f.code) for f in found)


def test_a_failing_import_does_not_hide_the_rest_of_the_file() -> None:
    assert _codes(UNHANDLED, "5.24.0") == [(1, "HFC007"), (4, "HFC004"), (6, "HFC008")]
    # 4.57.6 has HybridCache: the same findings but the import's (crop(3) is fine there).
    assert _codes(UNHANDLED, "4.57.6") == [(4, "HFC004")]


def test_a_handled_failing_import_runs_its_handler() -> None:
    """On 5.x the import fails and the handler runs: the try body's typo never reaches generate; on 4.57.6 the
    import succeeds and it does."""
    assert _codes(HANDLED, "5.24.0") == []
    assert _codes(HANDLED, "4.57.6") == [(6, "HFC004")]
