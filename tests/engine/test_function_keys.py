"""An editor buffer's function keys carried over the edit (engine/interpreter/function_keys.py `Source._carried`) are
the keys cut afresh from the text: seeded random edit sequences (characters typed and deleted, Enter, lines joined,
pastes across functions, at either end), every node of the kept tree asked after each edit."""

from __future__ import annotations

import random
from pathlib import Path

from hf_cache_lint.engine.interpreter import function_keys, interp
from hf_cache_lint.engine.text.text import kept_lines

BODY = '''

def f_{i}(a, b={i}):
    x = a + b
    if x:
        return g_{i}(x)
    return None


class C_{i}:
    def m(self):
        return self.x

    def n(self, y):
        return [y
                for _ in range(3)]
'''


def _nodes(node: object) -> list[object]:
    """Every node and leaf of the tree: a key is a function of a node's place in the text, and the places of the
    others (ending inside a line, starting at its last character) try the carry's bounds harder than a def's."""
    out, stack = [], [node]
    while stack:
        n = stack.pop()
        out.append(n)
        stack.extend(getattr(n, "children", ()))
    return out


def test_carried_keys_are_the_keys_cut_afresh(tmp_path: Path) -> None:
    rng = random.Random(3134)
    path = str(tmp_path / "buffer.py")
    pieces = ["x", " ", "\n", "\n    ", "(", ")", ":", "def h():\n    pass\n", "#", "'", "\U0001f449", "    "]
    for run in range(12):
        text = "import os\n" + "".join(BODY.format(i=i) for i in range(6))
        interp.forget(path)
        function_keys._forget_last()
        carried = 0
        for _ in range(40):
            roll = rng.random()
            at = rng.randint(0, len(text))
            if roll < 0.6:  # typed or deleted near a spot
                text = text[:at] + rng.choice(pieces) + text[at + rng.choice([0, 0, 1]):]
            elif roll < 0.8:  # a line joined to the next
                nl = text.find("\n", at)
                if nl >= 0:
                    text = text[:nl] + text[nl + 1:]
            else:  # a span cut, or pasted elsewhere
                b = min(len(text), at + rng.randint(0, 80))
                cut = text[at:b]
                text = text[:at] + text[b:]
                if rng.random() < 0.5:
                    to = rng.randint(0, len(text))
                    text = text[:to] + cut + text[to:]
            tree = interp.parse(text, path)
            source = function_keys.source_of(tree, text, path)  # type: ignore[arg-type]
            if source is None:
                continue
            fresh = function_keys.Source(text, kept_lines(text))
            for node in _nodes(tree):
                got = source.key(node)  # type: ignore[arg-type]
                assert got == fresh.key(node), (run, got[0])  # type: ignore[arg-type]
            if source._before is not None:
                codes = {id(v[1]) for v in source._before._placed.values()}
                carried += sum(1 for k in source._placed.values() if id(k[1]) in codes)
        assert carried, "no key was carried"
    interp.forget(path)
