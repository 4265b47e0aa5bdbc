"""engine/syntax/splice.py: an edit that keeps the line count re-parses the one statement holding it, and the tree is a
fresh parse's, node by node, after every edit (random edits inside lines, lines replaced by others, lines
commented out or indented differently, over nested classes and functions); what is outside the statement keeps
its node objects."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import parso
import pytest

from hf_cache_lint.engine.syntax import parsing, splice

GRAMMAR = parso.load_grammar()  # type: ignore[attr-defined]
ROOT = Path(__file__).resolve().parents[2]
NESTED = '''import os
from transformers import AutoModelForCausalLM, DynamicCache


class Outer:
    """Doc."""

    @staticmethod
    def helper(x):
        # a comment
        if x:
            return x  # trailing
        else:
            return None

    class Inner:
        def method(self, prompt):
            kw = dict(
                max_new_tokens=4,  # inside a call
                cache_implementation="static",
            )
            for i in range(3):
                try:
                    out = self.model.generate(**kw, past_key_values=DynamicCache())
                except ValueError:
                    pass
                finally:
                    kw.pop("x", None)
            return out

    async def run(self):
        async with self.lock:
            await self.go()
\tx = 1


def top(a, b=2):
    return a + b
s = """multi
line"""
'''
SNIPPETS = ["x", "(", ")", ":", "    ", "'", '"', "#", "\\", "else:", "pass", "model.generate(", "\t", ",", "=",
            "def f(): pass", "if a: b", "elif", "'''", "except", "return", "{", "]", "async ", "@d", ";"]


def bases() -> list[str]:
    files = sorted((ROOT / "tests" / "data" / "corpus").glob("*.py")) + sorted((ROOT / "examples").glob("*.py"))
    return [NESTED] + [p.read_text() for p in files[:8]]


def shape(node: Any) -> list[tuple[object, ...]]:
    out, todo = [], [node]
    while todo:
        n = todo.pop()
        out.append((n.type, getattr(n, "value", None), getattr(n, "prefix", None), n.start_pos, n.end_pos,
                    len(getattr(n, "children", ()))))
        todo.extend(reversed(getattr(n, "children", [])))
    return out


def same_lines_edit(text: str, rng: random.Random) -> str:
    """An edit that keeps the number of lines: a keystroke or a deletion inside a line, a line replaced by
    another one, commented out, or indented differently."""
    lines = text.split("\n")
    i = rng.randrange(len(lines))
    line, kind = lines[i], rng.random()
    if kind < 0.45:
        at = rng.randrange(len(line) + 1)
        lines[i] = line[:at] + rng.choice(SNIPPETS) + line[at:]
    elif kind < 0.7:
        at = rng.randrange(len(line) + 1)
        lines[i] = line[:at] + line[at + rng.randrange(1, 6):]
    elif kind < 0.8:
        lines[i] = lines[rng.randrange(len(lines))]
    elif kind < 0.9:
        lines[i] = "# " + line
    else:
        lines[i] = rng.choice(["", " ", "    ", "\t"]) + line.lstrip()
    return "\n".join(lines)


@pytest.mark.parametrize("seed", [3, 4])
def test_a_spliced_tree_is_a_fresh_parses_after_every_edit(seed: int, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    taken: list[bool] = []
    original = splice.splice_statement

    def spy(*args: Any) -> bool:
        ok = original(*args)
        taken.append(ok)
        return ok

    monkeypatch.setattr(parsing, "splice_statement", spy)
    rng = random.Random(seed)
    for n, base in enumerate(bases()):
        key = str(tmp_path / f"b{n}.py")
        text = base
        parsing.incremental_parse(GRAMMAR, text, key)
        try:
            for _ in range(60):
                text = same_lines_edit(text, rng) if rng.random() < 0.9 else base
                tree = parsing.incremental_parse(GRAMMAR, text, key)
                assert tree.get_code() == text
                assert shape(tree) == shape(GRAMMAR.parse(text))
        finally:
            parsing.forget(GRAMMAR, key)
    # The splice is taken often (after engine/parsing.py splice_line, which takes a one-line simple statement
    # first) and refused often (half-typed code goes to the diff parser).
    assert taken.count(True) > 40 and taken.count(False) > 20


def test_only_the_statement_holding_the_edit_gets_new_nodes(tmp_path: Path) -> None:
    key = str(tmp_path / "n.py")
    tree = parsing.incremental_parse(GRAMMAR, NESTED, key)
    try:
        outer = tree.children[2]
        helper, inner = outer.children[-1].children[2], outer.children[-1].children[3]
        method = inner.children[-1].children[1]
        for_stmt = method.children[-1].children[2]
        edited = NESTED.replace("kw.pop(\"x\", None)", "kw.pop(\"y\", None)")
        assert parsing.incremental_parse(GRAMMAR, edited, key) is tree
        assert shape(tree) == shape(GRAMMAR.parse(edited))
        # The class, the methods and the loop around the edited statement are the objects they were.
        assert tree.children[2] is outer and outer.children[-1].children[2] is helper
        assert inner.children[-1].children[1] is method and method.children[-1].children[2] is for_stmt
        assert "kw.pop(\"y\"" in for_stmt.get_code()
        # A comment edited above a statement: that statement (its prefix holds the comment) is re-parsed.
        commented = edited.replace("# a comment", "# another comment")
        parsing.incremental_parse(GRAMMAR, commented, key)
        assert shape(tree) == shape(GRAMMAR.parse(commented))
        assert outer.children[-1].children[3] is inner
    finally:
        parsing.forget(GRAMMAR, key)


@pytest.mark.parametrize("before,after", [
    # `else` now follows an `if` the edit made: the next statement would continue it.
    ("x = 1\nelse: pass\n", "if a: b\nelse: pass\n"),
    ("def f():\n    y = 1\n    return y\n", "def f():\n    y = (1\n    return y\n"),  # a bracket left open
    ("def f():\n    y = 1\n    return y\n", "def f():\n  y = 1\n    return y\n"),  # a dedent that matches nothing
    ("def f():\n    y = 1\n    return y\n", "def f():\n    # y = 1\n    return y\n"),  # only a comment left
])
def test_what_is_not_provably_a_whole_parse_is_refused_or_gives_the_fresh_tree(before: str, after: str,
                                                                                tmp_path: Path) -> None:
    key = str(tmp_path / "r.py")
    parsing.incremental_parse(GRAMMAR, before, key)
    try:
        tree = parsing.incremental_parse(GRAMMAR, after, key)
        assert shape(tree) == shape(GRAMMAR.parse(after))
    finally:
        parsing.forget(GRAMMAR, key)


def test_an_edit_that_would_leave_a_comment_or_an_error_is_refused() -> None:
    module = GRAMMAR.parse("def f():\n    y = 1\n    return y\n")
    old = "def f():\n    y = 1\n    return y\n".splitlines(keepends=True)
    for line in ["    # y = 1\n", "    y = (1\n", "  y = 1\n", "    else:\n"]:
        new = [old[0], line, old[2]]
        assert not splice.splice_statement(GRAMMAR, module, old, new, 1, 1)
    assert splice.splice_statement(GRAMMAR, module, old, [old[0], "    y = 2\n", old[2]], 1, 1)
    assert module.get_code() == "def f():\n    y = 2\n    return y\n"


BRANCHES = '''def prepare(config, kwargs):
    if config.mode == "static":
        size = 4
        kwargs["cache"] = make(
            mode=config.mode,
            size=size,
        )
    elif config.mode == "quantized":
        kwargs["cache"] = None
    else:
        pass
    return kwargs
'''


def test_the_last_statement_of_a_branch_is_spliced_alone_before_a_dedented_elif(tmp_path: Path) -> None:
    """The edited statement ends the `if` body and `elif` follows, indented less: the tokenizer closes the body before
    it, so the statement is re-parsed alone and the `if` statement keeps its node objects (before, the `if` was
    re-parsed whole: on generation/utils.py, a 50-line `if` for a keystroke in a 7-line call)."""
    key = str(tmp_path / "b.py")
    tree = parsing.incremental_parse(GRAMMAR, BRANCHES, key)
    try:
        function = tree.children[0]
        body = function.children[-1]
        if_stmt, returned = body.children[1], body.children[2]
        branch = if_stmt.children[3]  # the suite of the `if` branch
        call = branch.children[2]
        edited = BRANCHES.replace("mode=config.mode", "mode=xconfig.mode")
        lines = [line + "\n" for line in edited.split("\n")[:-1]]
        old = [line + "\n" for line in BRANCHES.split("\n")[:-1]]
        assert splice.splice_statement(GRAMMAR, tree, old, lines, 4, 4)
        assert shape(tree) == shape(GRAMMAR.parse(edited))
        assert tree.children[0] is function and body.children[1] is if_stmt and body.children[2] is returned
        assert branch.children[2] is not call and "xconfig" in branch.children[2].get_code()  # only the statement
        # An `else` branch's last statement, followed by the function's next statement: only that statement.
        again = [*lines[:10], "        pass  # typed\n", *lines[11:]]
        assert splice.splice_statement(GRAMMAR, tree, lines, again, 10, 10)
        assert body.children[1] is if_stmt
        assert shape(tree) == shape(GRAMMAR.parse("".join(again)))
        # Enter inside the call (a line more): still the statement alone, the `elif` a line further.
        entered = [*again[:4], "            mode=xconfig.mode,\n", "\n", *again[5:]]
        assert splice.splice_statement(GRAMMAR, tree, again, entered, 4, 4, 1)
        assert body.children[1] is if_stmt
        assert shape(tree) == shape(GRAMMAR.parse("".join(entered)))
    finally:
        parsing.forget(GRAMMAR, key)


ELSE_AFTER = '''def f(x):
    y = 1
    else:
        pass
    return x
'''


def test_a_continuation_at_the_statements_own_indentation_re_parses_the_statement_around_it(tmp_path: Path) -> None:
    """`else` at the edited statement's own indentation (an error until the edit makes the statement an `if`): the
    statement alone would parse without the `else` the whole text gives it, so the statement one level out is
    re-parsed (or the diff parser runs): the tree is a fresh parse's either way."""
    key = str(tmp_path / "e.py")
    parsing.incremental_parse(GRAMMAR, ELSE_AFTER, key)
    try:
        edited = ELSE_AFTER.replace("    y = 1\n", "    if y: pass\n")
        tree = parsing.incremental_parse(GRAMMAR, edited, key)
        assert shape(tree) == shape(GRAMMAR.parse(edited))
        assert any(n.type == "if_stmt" and "else" in n.get_code() for n in tree.children[0].children[-1].children)
    finally:
        parsing.forget(GRAMMAR, key)


def lines_edit(text: str, rng: random.Random) -> str:
    """An edit that adds or removes lines: Enter inside a line (the rest indented as an editor does, or not), two
    lines joined, a line inserted (a copy of another, a blank or a comment line) or deleted."""
    lines = text.split("\n")
    i = rng.randrange(len(lines))
    line, kind = lines[i], rng.random()
    if kind < 0.35:
        at = rng.randrange(len(line) + 1)
        indent = line[:len(line) - len(line.lstrip())] + rng.choice(["", "    "])
        lines[i:i + 1] = [line[:at], indent + line[at:].lstrip()]
    elif kind < 0.55 and i + 1 < len(lines):
        lines[i:i + 2] = [line + lines[i + 1].lstrip()]
    elif kind < 0.8:
        lines.insert(i, rng.choice([lines[rng.randrange(len(lines))], "", "    # note", line]))
    elif len(lines) > 2:
        del lines[i]
    return "\n".join(lines)


@pytest.mark.parametrize("seed", [5, 6])
def test_an_edit_that_adds_or_removes_lines_gives_a_fresh_parses_tree(seed: int, tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Enter, lines joined, lines added or removed: the spliced statement's tree, every later leaf moved, is a fresh
    parse's node by node (and the diff parser's where the splice is refused)."""
    taken: list[bool] = []
    original = splice.splice_statement

    def spy(*args: Any) -> bool:
        ok = original(*args)
        if len(args) > 6 and args[6]:  # a line count that changed
            taken.append(ok)
        return ok

    monkeypatch.setattr(parsing, "splice_statement", spy)
    rng = random.Random(seed)
    for n, base in enumerate(bases()):
        key = str(tmp_path / f"l{n}.py")
        text = base
        parsing.incremental_parse(GRAMMAR, text, key)
        try:
            for _ in range(60):
                text = (lines_edit if rng.random() < 0.7 else same_lines_edit)(text, rng) if rng.random() < 0.9 \
                    else base
                tree = parsing.incremental_parse(GRAMMAR, text, key)
                assert tree.get_code() == text
                assert shape(tree) == shape(GRAMMAR.parse(text))
        finally:
            parsing.forget(GRAMMAR, key)
    assert taken.count(True) > 30 and taken.count(False) > 10


def test_a_next_line_indented_more_than_the_statement_is_not_left_out_of_it(tmp_path: Path) -> None:
    """`def f(x):\\` joins its body onto its own line, so the lines indented below it are errors outside it. A comment
    line typed after the backslash makes the body a block, which takes them in: the statement after the edited one is
    indented more than it, so the splice re-parses further out (or leaves it to the diff parser): a fresh parse's."""
    key = str(tmp_path / "c.py")
    before = "def f(x):\\\n    y = 1\n    z = 2\n"
    parsing.incremental_parse(GRAMMAR, before, key)
    try:
        after = "def f(x):\\\n    # note\n    y = 1\n    z = 2\n"
        tree = parsing.incremental_parse(GRAMMAR, after, key)
        assert shape(tree) == shape(GRAMMAR.parse(after))
        assert "z = 2" in tree.children[0].get_code()  # the body block holds the last line
    finally:
        parsing.forget(GRAMMAR, key)


def test_the_leaves_kept_for_the_next_move_follow_every_change_under_them(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A move of the lines after an Enter or a join reuses the last move's leaves of each later node (`_LEAVES`):
    an edit inside such a node afterwards (a line spliced alone, a statement spliced, lines added there, the diff
    parser's update) must not leave its old leaves to the next move. Each tree is a fresh parse's, and the second
    Enter at the same place walks none of the later methods again."""
    methods = "".join(f"    def m{i}(self, x):\n        y = x + {i}\n        z = y * {i}\n        if y:\n"
                      f"            return y\n        return None\n\n" for i in range(12))
    base = f"class A:\n{methods}\ndef tail():\n    return 1\n"
    walked: list[int] = []
    original = splice._leaves

    def spy(node: Any) -> list[Any]:
        walked.append(id(node))
        return original(node)

    monkeypatch.setattr(splice, "_leaves", spy)
    key = str(tmp_path / "leaves.py")
    lines = base.split("\n")
    parsing.incremental_parse(GRAMMAR, base, key)

    def step(new: list[str]) -> None:
        text = "\n".join(new)
        tree = parsing.incremental_parse(GRAMMAR, text, key)
        assert tree.get_code() == text
        assert shape(tree) == shape(GRAMMAR.parse(text))

    try:
        row = lines.index("        y = x + 1")
        enter = [*lines[:row + 1], "        z = y", *lines[row + 1:]]
        step(enter)
        step(lines)  # the join: the later methods moved back from their kept leaves
        walked.clear()
        step(enter)
        assert len(walked) <= 3  # m1's own later statements at most; no later method, no class-level node again
        later = enter.index("        z = y * 7")
        edits = [
            (later, "        z = y * 77"),  # one line spliced alone inside m7 (parsing.splice_line)
            (later - 1, "        y = x + 7 if x else 0"),  # a statement of m7 spliced (splice_statement)
            (later, "        z = (y * 7"),  # half-typed: the diff parser's update
            (later, "        z = y * 7"),
        ]
        current = enter
        for at, line in edits:
            current = [*current[:at], line, *current[at + 1:]]
            step(current)
            current = current[:row + 1] + current[row + 2:]  # a join above m7: m7 moves by its kept leaves
            step(current)
            current = [*current[:row + 1], "        z = y", *current[row + 1:]]
            step(current)
        # Lines added inside m7, then a join in m1 again.
        at = current.index("        z = y * 7")
        current = [*current[:at], "        w = 1", "        w = 2", *current[at:]]
        step(current)
        current = current[:row + 1] + current[row + 2:]
        step(current)
    finally:
        parsing.forget(GRAMMAR, key)
    assert splice._LEAVES is None  # a forgotten tree's leaves are not kept
