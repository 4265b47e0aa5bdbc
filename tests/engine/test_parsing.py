"""engine/parsing.py: the incremental parse told which lines changed gives, edit after edit, the tree of a fresh
parse and the tree of parso's own diff parse (difflib's opcodes), node by node; and its opcodes are difflib's for
one changed block."""

from __future__ import annotations

import difflib
import random
from pathlib import Path
from typing import Any

import parso
import pytest
from parso.utils import split_lines

from hf_cache_lint.engine import interp, parsing

GRAMMAR = parso.load_grammar()  # type: ignore[attr-defined]
BASE = (Path(__file__).resolve().parents[2] / "examples" / "compile_then_prefix_cache.py").read_text()
SNIPPETS = ["x", "(", ")", ":", "\n", "    ", "def f():\n", "if a:\n    b\n", "'''", '"', "\\\n", "class C:\n  pass\n",
            "\t", "model.generate(", "#", "\n\n", "else:\n", "return\n", "cache = DynamicCache()\n", "\ufeff", "\r\n"]


def shape(node: Any) -> list[tuple[object, ...]]:
    """Every node and leaf in order: its type, value, prefix and positions."""
    out, todo = [], [node]
    while todo:
        n = todo.pop()
        out.append((n.type, getattr(n, "value", None), getattr(n, "prefix", None), n.start_pos, n.end_pos,
                    len(getattr(n, "children", ()))))
        todo.extend(reversed(getattr(n, "children", [])))
    return out


def edit(text: str, rng: random.Random) -> str:
    """A keystroke, a deletion, a pasted or moved block of lines, or a block of lines deleted."""
    kind, at = rng.random(), rng.randrange(len(text) + 1)
    lines = text.split("\n")
    if kind < 0.4:
        return text[:at] + rng.choice(SNIPPETS) + text[at:]
    if kind < 0.7:
        return text[:at] + text[at + rng.randrange(1, 40):]
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    if kind < 0.85:  # lines copied elsewhere: a block that repeats lines around it
        return "\n".join(lines[:j] + lines[i:i + rng.randrange(1, 6)] + lines[j:])
    return "\n".join(lines[:i] + lines[i + rng.randrange(1, 8):])


@pytest.mark.parametrize("seed", [1, 2])
def test_the_tree_is_a_fresh_parses_and_parsos_own_diff_parses(seed: int, tmp_path: Path) -> None:
    rng = random.Random(seed)
    ours, theirs = str(tmp_path / "ours.py"), str(tmp_path / "theirs.py")
    text = BASE
    parsing.incremental_parse(GRAMMAR, text, ours)
    GRAMMAR.parse(text, path=theirs, diff_cache=True)
    try:
        for _ in range(250):
            text = edit(text, rng) if rng.random() < 0.95 else BASE
            tree = parsing.incremental_parse(GRAMMAR, text, ours)
            assert tree.get_code() == text
            assert shape(tree) == shape(GRAMMAR.parse(text))
            assert shape(tree) == shape(GRAMMAR.parse(text, path=theirs, diff_cache=True))
    finally:
        parsing.forget(GRAMMAR, ours)
        parsing.forget(GRAMMAR, theirs)


def test_the_same_lines_give_the_kept_tree_and_a_first_parse_is_kept(tmp_path: Path) -> None:
    key = str(tmp_path / "a.py")
    first = parsing.incremental_parse(GRAMMAR, BASE, key)
    assert parsing.incremental_parse(GRAMMAR, BASE, key) is first
    assert parsing.incremental_parse(GRAMMAR, BASE + "x = 1\n", key) is first  # updated in place, as parso does
    parsing.forget(GRAMMAR, key)
    assert parsing.incremental_parse(GRAMMAR, BASE, key) is not first


def test_forget_drops_the_kept_tree_that_parso_keys_by_path(tmp_path: Path) -> None:
    key = str(tmp_path / "b.py")
    interp.parse(BASE, key)
    kept = parso.cache.parser_cache[GRAMMAR._hashed]
    assert Path(key) in kept
    interp.forget(key)
    assert Path(key) not in kept


def test_a_diff_parser_failure_falls_back_to_a_whole_parse(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    key = str(tmp_path / "c.py")
    interp.parse(BASE, key)

    def fail(*args: object) -> None:
        raise AssertionError("a diff parser state parso cannot handle")

    monkeypatch.setattr(parsing._KnownChangeDiffParser, "update_with", fail)
    text = BASE.replace("import", "import  ", 1)
    tree = interp.parse(text, key)
    assert shape(tree) == shape(GRAMMAR.parse(text))
    assert parso.cache.parser_cache[GRAMMAR._hashed][Path(key)].node is tree  # kept for the next edit
    interp.forget(key)


@pytest.mark.parametrize("seed", range(20))
def test_the_opcodes_are_difflibs_for_one_changed_block(seed: int) -> None:
    rng = random.Random(seed)
    old = split_lines("".join(f"line {i}\n" for i in range(rng.randrange(1, 300))), keepends=True)
    at, cut = rng.randrange(len(old) + 1), rng.randrange(0, 4)
    new = old[:at] + [f"new {k}\n" for k in range(rng.randrange(0, 4))] + old[at + cut:]
    expected = difflib.SequenceMatcher(None, old, new).get_opcodes()
    assert parsing.opcodes(old, new) == expected


def _parsos_end_pos(node: Any) -> tuple[int, int]:
    """parso's own `end_pos`, as engine/parsing.py found it: a leaf class's own, else the split of its value; a node's
    last child's."""
    if not hasattr(node, "children"):
        own = next(c.__dict__["end_pos"] for c in type(node).__mro__ if "end_pos" in c.__dict__)
        fget = parsing._PARSO_LEAF_END_POS.fget if own is parso.tree.Leaf.__dict__["end_pos"] else own.fget
        return fget(node)  # type: ignore[no-any-return]
    return _parsos_end_pos(node.children[-1])


ODD_LEAVES = ["x = '''a\nb'''\n", "s = 'a\\\nb'\n", "y = 1\r\nz = 2\r\n", "a = 1\rb = 2\r", "f(\x0c)\n", "w = '\x0b'\n",
              "def f(:\n  'x\n", "x = \"\"\"\r\n\r\n\"\"\"", "(\n", "\\\n", "  x\n y\n", "", "\n", "z = 1", "\ufeffx\n"]


def test_end_pos_is_parsos_for_every_node_and_leaf() -> None:
    """engine/parsing.py's `end_pos` (no split of a value without a line break, no recursion down a node) answers
    as parso's own does, over the corpus, the examples and leaves with line breaks of every kind."""
    root = Path(__file__).resolve().parents[2]
    texts = [p.read_text() for p in sorted((root / "tests" / "data" / "corpus").rglob("*.py"))]
    texts += [p.read_text() for p in sorted((root / "examples").glob("*.py"))] + ODD_LEAVES
    assert parso.tree.Leaf.end_pos is not parsing._PARSO_LEAF_END_POS  # the faster one is in place
    seen = 0
    for text in texts:
        todo = [GRAMMAR.parse(text, error_recovery=True)]
        while todo:
            node = todo.pop()
            assert node.end_pos == _parsos_end_pos(node), (text[:60], node)
            seen += 1
            todo.extend(getattr(node, "children", []))
    assert seen > 5_000
