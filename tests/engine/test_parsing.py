"""engine/syntax/parsing.py: the incremental parse told which lines changed gives, edit after edit, the tree of a fresh
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

from hf_cache_lint.engine.interpreter import interp
from hf_cache_lint.engine.syntax import parsing

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


def test_an_unlinked_tree_is_freed_without_the_cyclic_collector(tmp_path: Path) -> None:
    """forget(..., unlink=True) empties every inner node's children: the tree, dropped, is freed by reference
    counting (the collector finds nothing of it); without it, the collector has the whole tree to free."""
    import gc

    text = (Path(parsing.__file__).parent / "splice.py").read_text()
    found = {}
    for unlink in (False, True):
        key = str(tmp_path / f"u{unlink}.py")
        gc.collect()
        gc.disable()
        try:
            tree = interp.parse(text, key)
            leaves = sum(1 for _ in _leaves(tree))
            interp.forget(key, unlink=unlink)
            assert Path(key) not in parso.cache.parser_cache[GRAMMAR._hashed]
            assert (tree.children == []) == unlink
            del tree
            found[unlink] = gc.collect()
        finally:
            gc.enable()
    assert found[False] > leaves > 1000
    assert found[True] == 0


def _leaves(node: Any) -> Any:
    for child in node.children:
        if hasattr(child, "children"):
            yield from _leaves(child)
        else:
            yield child


def test_a_diff_parser_failure_falls_back_to_a_whole_parse(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    key = str(tmp_path / "c.py")
    interp.parse(BASE, key)

    def fail(*args: object) -> None:
        raise AssertionError("a diff parser state parso cannot handle")

    monkeypatch.setattr(parsing._KnownChangeDiffParser, "update_with", fail)
    text = "x = 1\n" + BASE  # a line more: the diff parser's (a change inside one line may be spliced)
    tree = interp.parse(text, key)
    assert shape(tree) == shape(GRAMMAR.parse(text))
    assert parso.cache.parser_cache[GRAMMAR._hashed][Path(key)].node is tree  # kept for the next edit
    interp.forget(key)


def parents_agree(tree: Any) -> None:
    todo = [tree]
    while todo:
        node = todo.pop()
        for kid in getattr(node, "children", []):
            assert kid.parent is node
            todo.append(kid)


# Keystrokes inside a line: what opens or closes brackets, strings and f-strings, starts a block or a comment,
# continues a line, changes a keyword or the indentation, or is no Python at all.
KEYS = [*"x(),:'\"#\\ \t=.[]{}0+-*@;$?`\x0c", "if ", "else", "else:", "lambda", "def ", "'''", '"""', "f'", "async ",
        "await ", "yield", "return", "pass", "\ufeff", "é"]
SCRIPT = "".join(f"""
def answer_{i}(prompt, n=32):
    # step {i}
    inputs = tokenizer(prompt, return_tensors="pt")
    out = model.generate(**inputs, past_key_values=cache, cache_implementation="static")
    if n:
        x = {{"a": [1, 2]}}; y = f"{{x}}"
    else:
        pass
    return tokenizer.decode(out[0])
""" for i in range(6))


@pytest.mark.parametrize("base", [BASE, SCRIPT])
def test_an_edit_inside_one_line_spliced_gives_a_whole_parses_tree(base: str, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """splice_line (the line re-parsed alone, its nodes replaced in the kept tree) where it says it may, the diff
    parser elsewhere: the tree is a fresh parse's, node for node, parents included, keystroke after keystroke."""
    taken = []
    splice = parsing.splice_line

    def counted(*args: Any) -> bool:
        taken.append(splice(*args))
        return taken[-1]

    monkeypatch.setattr(parsing, "splice_line", counted)
    rng = random.Random(len(base))
    key = str(tmp_path / "s.py")
    text = base
    parsing.incremental_parse(GRAMMAR, text, key)
    try:
        for _ in range(400):
            lines = text.split("\n")
            row = rng.randrange(len(lines))
            line, at = lines[row], rng.randrange(len(lines[row]) + 1)
            if rng.random() < 0.6 or not line:
                lines[row] = line[:at] + rng.choice(KEYS) + line[at:]
            else:
                lines[row] = line[:at] + line[at + rng.randrange(1, 4):]
            text = "\n".join(lines) if rng.random() < 0.97 else base
            tree = parsing.incremental_parse(GRAMMAR, text, key)
            assert tree.get_code() == text
            assert shape(tree) == shape(GRAMMAR.parse(text))
            parents_agree(tree)
    finally:
        parsing.forget(GRAMMAR, key)
    assert taken.count(True) > 30 and taken.count(False) > 30  # both ways, often


def test_the_splice_takes_a_statement_line_and_refuses_what_may_join_others(tmp_path: Path) -> None:
    key = str(tmp_path / "t.py")
    base = "def f():\n    a = 1\n    b = g(x, 'static')\n    if a:\n        pass\n    c = 2\n"
    cases = [
        ("    b = g(x, x'static')\n", True),  # a syntax error inside the line: error nodes, still one line
        ("    b = g(x, 'static'\n", False),  # a bracket left open: the next lines join it
        ("    b = g(x, '''static')\n", False),  # a string left open
        ("    b = g(x, 'static') \\\n", False),  # a continuation
        ("    if g(x, 'static'):\n", False),  # a block starts
        ("  b = g(x, 'static')\n", False),  # the indentation changed
        ("    # b = g(x, 'static')\n", False),  # a comment line
    ]
    for new, spliced in cases:
        parsing.incremental_parse(GRAMMAR, base, key)
        old_lines = split_lines(base, keepends=True)
        new_lines = [*old_lines[:2], new, *old_lines[3:]]
        kept = parso.cache.parser_cache[GRAMMAR._hashed][Path(key)].node
        assert parsing.splice_line(GRAMMAR, kept, old_lines, new_lines, 2) is spliced, new
        if spliced:
            assert shape(kept) == shape(GRAMMAR.parse("".join(new_lines)))
        parsing.forget(GRAMMAR, key)
    # After an `if` block an `else:` would continue it: a line after a compound statement is never spliced.
    parsing.incremental_parse(GRAMMAR, base, key)
    lines = split_lines(base, keepends=True)
    kept = parso.cache.parser_cache[GRAMMAR._hashed][Path(key)].node
    assert not parsing.splice_line(GRAMMAR, kept, lines, [*lines[:5], "    else: c = 2\n"], 5)
    parsing.forget(GRAMMAR, key)


@pytest.mark.parametrize("seed", range(20))
def test_the_opcodes_are_difflibs_for_one_changed_block(seed: int) -> None:
    rng = random.Random(seed)
    old = split_lines("".join(f"line {i}\n" for i in range(rng.randrange(1, 300))), keepends=True)
    at, cut = rng.randrange(len(old) + 1), rng.randrange(0, 4)
    new = old[:at] + [f"new {k}\n" for k in range(rng.randrange(0, 4))] + old[at + cut:]
    expected = difflib.SequenceMatcher(None, old, new).get_opcodes()
    assert parsing.opcodes(old, new) == expected


def _parsos_end_pos(node: Any) -> tuple[int, int]:
    """parso's own `end_pos`, as engine/syntax/parsing.py found it: a leaf class's own, else the split of its value; a node's
    last child's."""
    if not hasattr(node, "children"):
        own = next(c.__dict__["end_pos"] for c in type(node).__mro__ if "end_pos" in c.__dict__)
        fget = parsing._PARSO_LEAF_END_POS.fget if own is parso.tree.Leaf.__dict__["end_pos"] else own.fget
        return fget(node)  # type: ignore[no-any-return]
    return _parsos_end_pos(node.children[-1])


ODD_LEAVES = ["x = '''a\nb'''\n", "s = 'a\\\nb'\n", "y = 1\r\nz = 2\r\n", "a = 1\rb = 2\r", "f(\x0c)\n", "w = '\x0b'\n",
              "def f(:\n  'x\n", "x = \"\"\"\r\n\r\n\"\"\"", "(\n", "\\\n", "  x\n y\n", "", "\n", "z = 1", "\ufeffx\n"]


def test_end_pos_is_parsos_for_every_node_and_leaf() -> None:
    """engine/syntax/parsing.py's `end_pos` (no split of a value without a line break, no recursion down a node) answers
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


@pytest.mark.parametrize("seed", range(3))
def test_the_lines_are_parsos_split_lines(seed: int) -> None:
    """parsing.lines_of cuts at `\\n` alone where the text has no `\\r`: what parso's `split_lines(keepends=True)`
    gives, whatever else `str.splitlines` would break at (form feeds, `\\x85`, `\\u2028`, ...)."""
    rng = random.Random(seed)
    alphabet = ["a", " ", "\n", "\r", "\r\n", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029", "\U0001f449"]
    texts = ["", "\n", "a", "a\n", "\n\n", "\x0c", "a\x0c", "a\x0c\x0cb", "\x0c\n", BASE]
    texts += ["".join(rng.choice(alphabet) for _ in range(rng.randrange(30))) for _ in range(500)]
    for text in texts:
        assert parsing.lines_of(text) == split_lines(text, keepends=True), repr(text)
    files = sorted((Path(__file__).resolve().parents[1] / "data" / "corpus").rglob("*.py"))
    assert files and all(parsing.lines_of(p.read_text()) == split_lines(p.read_text(), keepends=True) for p in files)
