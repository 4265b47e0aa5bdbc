"""Issue 31: the hook reader (engine/interpreter/hooks.py) reads no tree for a text without the words its scan needs
(`_no_scan_word`), and the answer is the whole scan's: over every real-code set, the corpus and the examples, as
written and with lines cut short (error recovery's trees); and the 100-line script of the keystroke benchmark is one
such text."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from hf_cache_lint.engine.facts.hook_override import might_hold_hook
from hf_cache_lint.engine.interpreter import hooks, interp

ROOT = Path(__file__).resolve().parents[2]
# Every real-code set, the held-out sets added later included (the tuple written here stopped at heldout7).
SETS = ("cases", *sorted(p.name for p in (ROOT / "tests" / "realcode").glob("heldout*") if p.is_dir()))


def files() -> list[Path]:
    found = [*sorted((ROOT / "tests" / "data" / "corpus").rglob("*.py")), *sorted((ROOT / "examples").rglob("*.py"))]
    for name in SETS:
        found.extend(sorted((ROOT / "tests" / "realcode" / name).rglob("*.py")))
    return found


def texts(text: str) -> list[str]:
    lines = text.split("\n")
    return [text, "\n".join(line[:len(line) // 2] if i % 7 == 3 else line for i, line in enumerate(lines))]


def test_the_files_hold_hook_facts_and_texts_the_words_skip() -> None:
    """The comparison below means something: some files hold hook facts, some are skipped by the words alone."""
    with_facts = skipped = 0
    for path in files():
        text = path.read_text()
        with_facts += bool(any(hooks.hook_facts(interp.parse(text), text)))
        skipped += might_hold_hook(text) and hooks._no_scan_word(text)
    assert with_facts >= 20 and skipped >= 5, (with_facts, skipped)


@pytest.mark.parametrize("path", files(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_scan_words_change_no_hook_fact(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for text in texts(path.read_text()):
        fast = hooks.hook_facts(interp.parse(text), text)
        with monkeypatch.context() as m:
            m.setattr(hooks, "_no_scan_word", lambda text: False)
            assert hooks.hook_facts(interp.parse(text), text) == fast


def test_the_benchmark_script_is_skipped_by_the_words() -> None:
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        from lsp_latency import script_100_lines
    finally:
        sys.path.remove(str(ROOT / "bench"))
    text = script_100_lines()
    assert might_hold_hook(text) and hooks._no_scan_word(text)


@pytest.mark.parametrize("snippet", [
    # each word alone makes a fact the gate must not skip
    "from transformers import LlamaForCausalLM\n\nclass M(LlamaForCausalLM):\n    def step(self, model_kwargs, "
    "past_key_value=None):\n        return model_kwargs\n",
    "from transformers.models.llama import modeling_llama\n\ndef f(self, hidden_states, past_key_value=None):\n"
    "    return hidden_states\n\nmodeling_llama.LlamaAttention.forward = f\n",
    "from transformers import AutoModelForCausalLM\n\nmodel = AutoModelForCausalLM.from_pretrained('x')\n"
    "out = model(ids, cache_position=pos)\n",
])
def test_a_snippet_with_one_word_holds_its_fact(snippet: str) -> None:
    found = hooks.hook_facts(interp.parse(snippet), snippet)
    assert any(found), snippet
