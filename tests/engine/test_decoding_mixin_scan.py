"""decoding_overrides' `GenerationMixin` import test asks the word first (text.contains, carried over the edit):
the same answer as the regex alone, over seeded random texts and real code (every match of the pattern says the
word)."""

from __future__ import annotations

import random
from pathlib import Path

from hf_cache_lint.engine.interpreter import decoding_overrides

REPO = Path(__file__).resolve().parents[2]
_PIECES = ["from transformers import ", "from transformers.generation.utils import ", "GenerationMixin", "(", ")",
           "\n", " ", ", ", "# ", "transformers.", "GenerationMixinX", "x", "\\\n", "import GenerationMixin",
           "transformers.generation.GenerationMixin", "\t", "\U0001f449"]


def test_the_mixin_test_is_the_regex() -> None:
    rng = random.Random(3114)
    texts = ["".join(rng.choice(_PIECES) for _ in range(rng.randint(0, 16))) for _ in range(3000)]
    texts += [p.read_text(encoding="utf-8") for d in ("examples", "tests/realcode") for p in sorted((REPO / d).rglob("*.py"))]
    said = 0
    for text in texts:
        want = frozenset({"GenerationMixin"}) if decoding_overrides._MIXIN.search(text) else frozenset()
        assert decoding_overrides._mixin_names(text) == want, text
        said += bool(want)
    assert said > 100
