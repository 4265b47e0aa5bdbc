"""engine/text/prefilter.py `matches_from` answers as `pattern.search` does for the removed-API text test's three
patterns (a match tried only where its first word stands): over the corpus, examples/, the recall cases and
transformers' own tree, and over edges built around each word (a word character before it, a line start by LF or
CR, blanks and tabs before `from`, text before the line's indent)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hf_cache_lint.engine.text import prefilter as P

ROOT = Path(__file__).resolve().parents[2]
TREE = ROOT / ".cache" / "oracle" / "tf-5.24.0" / "transformers"

# (pattern, the words its matches start with, whether a line's indent comes first)
PATTERNS = [
    (P._GENERATION_IMPORT, ("from",), True),
    (P._MODEL_MODULE, ("modeling_",), False),
    (P._REMOVED_EXPORT, P.REMOVED_GENERATION_EXPORTS, False),
]


def _same(text: str) -> None:
    for pattern, words, indent in PATTERNS:
        assert P.matches_from(pattern, text, words, indent) == (pattern.search(text) is not None), \
            (pattern.pattern[:40], text[:200])


def _edges() -> list[str]:
    cores = ["from transformers.generation import BeamScorer", "from  transformers . generation.utils import (x)",
             "from\ttransformers.\\\n generation.candidate_generator import y", "from transformers.generation_x import z",
             "import modeling_llama", "from .models.llama.modeling_llama import f", "modeling_llamas", "modeling_qwen2_5_vl.X",
             "BeamSearchScorer()", "x.ConstrainedBeamSearchScorer", "LogitsWarper", "MyLogitsWarper", "LogitsWarper2",
             "_Constraint", "ConstraintListState", "DisjunctiveConstraint("]
    befores = ["", "\n", "\r", "\r\n", "  ", "\n \t\f", "\r\f ", "x", "x ", "# ", "_", "é", "1", "\n\v", "\n\x1c", "a\n  "]
    afters = ["", "\n", " ", "_", "x", "1", "é", "(", ".x"]
    return [b + c + a for c in cores for b in befores for a in afters]


def test_the_words_decide_as_the_search_on_built_edges() -> None:
    texts = _edges()
    for pattern, _, _ in PATTERNS:  # the edges reach both answers of every pattern
        assert {pattern.search(t) is not None for t in texts} == {True, False}
    for text in texts:
        _same(text)
        _same(text + "\n" + text)  # a second occurrence after a failed first


def _files() -> list[Path]:
    dirs = [ROOT / "tests" / "data" / "corpus", ROOT / "examples", ROOT / "tests" / "realcode"]
    return [f for d in dirs if d.is_dir() for f in sorted(d.rglob("*.py"))]


def test_the_words_decide_as_the_search_on_the_repository_files() -> None:
    files = _files()
    assert len(files) > 100
    for f in files:
        _same(f.read_text(encoding="utf-8", errors="replace"))


@pytest.mark.skipif(not TREE.is_dir(), reason="no transformers 5.24.0 oracle tree")
def test_the_words_decide_as_the_search_on_transformers_tree() -> None:
    hits = {p.pattern: 0 for p, _, _ in PATTERNS}
    for f in sorted(TREE.rglob("*.py")):
        text = f.read_text(encoding="utf-8", errors="replace")
        _same(text)
        for p, _, _ in PATTERNS:
            hits[p.pattern] += p.search(text) is not None
    assert all(hits.values()), hits

