"""HFC007's `GenerationMixin.<name> = f` targets found from the text (patched_helpers._mixin_assignments) are the
ones the walk of the whole tree finds: the same statements, in the same order, on the rule examples, the real-code
files and generation modules that say `GenerationMixin`, and spellings written to stress the text scan."""

from __future__ import annotations

from pathlib import Path

import parso
import pytest

from hf_cache_lint.engine.syntax.nodes import Node, code
from hf_cache_lint.rules import ALL_RULES
from hf_cache_lint.rules.hfc007_removed_cache_api import patched_helpers

ROOT = Path(__file__).resolve().parents[2]

CRAFTED = (
    "import transformers\ndef sample(self): pass\ntransformers.generation.utils.GenerationMixin.sample = sample\n",
    "from transformers import GenerationMixin\ndef f(): pass\nGenerationMixin . sample = f\n",
    "from transformers import GenerationMixin\ndef f(): pass\nGenerationMixin\\\n    .sample \\\n    = f\n",
    "from transformers import GenerationMixin\ndef f(): pass\nGenerationMixin.\tsample\t= f\n",
    "from transformers import GenerationMixin\ndef f(): pass\nGenerationMixin.x[0] = f\nGenerationMixin.y(1)[2] = f\n",
    "from transformers import GenerationMixin\ndef f(): pass\nGenerationMixin.a[GenerationMixin.b] = f\n",
    "from transformers import GenerationMixin\ndef f(): pass\nx = GenerationMixin.c = f\nGenerationMixin.d: int = f\n",
    "from transformers import GenerationMixin\ndef f(): pass\nclass A:\n    def g(self):\n"
    "        ñame = 'é'; GenerationMixin.sample = f\n",
    "from transformers import GenerationMixin\ndef f(): pass\nif True:\n    GenerationMixin.sample = f\n"
    "    s = '''GenerationMixin.sample = f'''  # GenerationMixin.sample = f\n",
    "from transformers import GenerationMixin\ndef f(): pass\nxGenerationMixin.sample = f\n"
    "GenerationMixin.generate(1)\nGenerationMixin.sample = f(\n",  # broken: parso's recovery
    "from transformers import GenerationMixin\ndef f(): pass\ndef (:\n    GenerationMixin.sample = f\n"
    "GenerationMixin.sample = = f\n",
)


def _texts() -> list[str]:
    texts = list(CRAFTED)
    for rule in ALL_RULES:
        texts.extend(ex.code for ex in (*rule.invalid, *rule.valid) if "GenerationMixin" in ex.code)
    for folder in (ROOT / "tests" / "realcode", ROOT / "examples",
                   ROOT / ".cache" / "oracle" / "tf-5.24.0" / "transformers" / "generation"):
        texts.extend(t for p in sorted(folder.rglob("*.py")) if "GenerationMixin" in (t := p.read_text()))
    return texts


def _targets(stmts: list[Node]) -> list[Node]:
    """The statements whose target's last part but one is `GenerationMixin` (what `findings` goes on to judge)."""
    return [s for s in stmts if s.children[0].type in ("power", "atom_expr")
            and patched_helpers._SPACES.sub("", code(s.children[0])).split(".")[-2:-1] == ["GenerationMixin"]]


@pytest.mark.parametrize("text", _texts())
def test_text_scan_finds_what_the_walk_finds(text: str) -> None:
    tree = parso.parse(text)
    walked = _targets(patched_helpers._assignments(tree))
    scanned = patched_helpers._mixin_assignments(tree, text)
    assert _targets(scanned) == walked
    assert all(patched_helpers._assignment(s) for s in scanned)


def test_crafted_targets_are_found() -> None:
    """The crafted texts hold targets (so the comparison above is not of two empty lists); a subscript holding
    another `GenerationMixin.b`, a chained or annotated assignment and the broken call's line hold none."""
    counts = [len(_targets(patched_helpers._assignments(parso.parse(t)))) for t in CRAFTED]
    assert counts == [1, 1, 1, 1, 2, 0, 0, 1, 1, 0, 1]
