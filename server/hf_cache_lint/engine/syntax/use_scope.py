"""Where a use sits in the code's control flow: inside a `try` whose handlers catch its error, on a branch the code
chose by testing the object first (`if hasattr(cache, "layers"): ... else: cache[0]`), or under a condition the
analysis cannot decide. engine/removed_api.py works this out during its own walk; a fact recorded by the
interpreter (`cache_use`) asks here, by position, once per use that may be reported.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hf_cache_lint.engine.base.findings import Span
from hf_cache_lint.engine.syntax.nodes import Node, code

_CATCH_ALL = frozenset({"Exception", "BaseException"})
# A test of what the object has or is: compat code choosing a branch by it, whichever branch 5.x takes.
_DUCK_TYPED = re.compile(r"\b(?:hasattr|getattr|isinstance|type)\s*\(|\.layers\b")
# A guard as narrowing.py writes it: `isinstance(name, Class)`, the class as written.
_GUARD = re.compile(r"isinstance\s*\(\s*\w+\s*,\s*(\w+(?:\s*\.\s*\w+)*)\s*\)")


@dataclass(frozen=True)
class UseScope:
    """`caught`: the exception names the surrounding `try` bodies handle ("*": a bare except); `duck_typed`: on a
    branch of a test of the object; `condition`: the innermost undecided condition's text, else None."""

    caught: frozenset[str] = frozenset()
    duck_typed: bool = False
    condition: str | None = None

    def handles(self, *errors: str) -> bool:
        return "*" in self.caught or bool(self.caught & (_CATCH_ALL | set(errors)))


def scope_at(tree: Node | None, at: Span, guard: str | None = None) -> UseScope:
    """The scope of the code at `at` (its start) in the parso module `tree`; `guard`: the `isinstance` test, as
    written, that alone says the receiver is a transformers cache (engine/interpreter/narrowing.py): on the side
    where it holds, that test is no compat probe."""
    if tree is None:
        return UseScope()
    try:
        leaf = tree.get_leaf_for_position((at.start.line, at.start.column))
    except ValueError:
        return UseScope()
    caught: set[str] = set()
    duck = False
    condition: str | None = None
    child: Node | None = leaf
    node = leaf.parent if leaf is not None else None
    while node is not None and child is not None:
        if node.type == "try_stmt":
            caught |= _caught_by(node, child)
        elif node.type in ("if_stmt", "test"):
            tests = [_without_guard(t, guard) for t in _tests_before(node, child)]
            if any(_DUCK_TYPED.search(t) for t in tests):
                duck = True
            elif tests and condition is None:
                condition = tests[-1] if _in_first_branch(node, child) else f"not ({tests[-1]})"
        elif node.type in ("suite", "file_input") and _after_duck_typed_exit(node, child, guard):
            duck = True
        if node.type in ("funcdef", "classdef", "file_input"):
            break  # a function's body runs where it is called: the caller's try does not show here
        child, node = node, node.parent
    return UseScope(frozenset(caught), duck, condition)


def _without_guard(test: str, guard: str | None) -> str:
    """`test` with the guard (`isinstance(x, DynamicCache)`) read as True, and with it every `isinstance` test of
    another name against the same class: `isinstance(a, DynamicCache) and isinstance(b, DynamicCache)` (Higgs
    Audio's cache copy) says both are that cache, not which API one of them has."""
    if not guard:
        return test
    test = test.replace(guard, "True")
    m = _GUARD.fullmatch(guard)
    if m is not None:
        cls = r"\s*\.\s*".join(re.escape(part.strip()) for part in m.group(1).split("."))
        test = re.sub(r"\bisinstance\s*\(\s*\w+\s*,\s*" + cls + r"\s*\)", "True", test)
    return test


def _after_duck_typed_exit(block: Node, child: Node, guard: str | None) -> bool:
    """`child` follows, in the same block, an `if hasattr(x, "layers"): return ...` (a test of the object whose
    branch leaves): the code after it is the compat path for the other objects."""
    for kid in block.children:
        if kid is child:
            return False
        test = _without_guard(code(kid.children[1]) if kid.type == "if_stmt" else "", guard)
        if kid.type == "if_stmt" and _DUCK_TYPED.search(test) and _leaves(kid.children[3]):
            return True
    return False


def _leaves(suite: Node) -> bool:
    """The block ends by leaving: its last statement returns, raises, continues or breaks."""
    stmts = [c for c in getattr(suite, "children", [suite]) if c.type not in ("newline", "indent", "dedent")]
    last = stmts[-1] if stmts else suite
    if last.type == "simple_stmt":
        last = last.children[0]
    return last.type in ("return_stmt", "raise_stmt", "continue_stmt", "break_stmt") or \
        (last.type == "keyword" and last.value in ("continue", "break"))


def _caught_by(try_stmt: Node, child: Node) -> set[str]:
    """What the handlers of `try_stmt` catch, when `child` is its body (the first suite)."""
    kids = try_stmt.children
    body = next((k for k in kids if k.type in ("suite", "simple_stmt")), None)
    if body is not child:
        return set()
    names: set[str] = set()
    for i, kid in enumerate(kids):
        if re_raises(kids, i):
            continue
        if kid.type == "except_clause" and len(kid.children) >= 2:
            names.update(code(n).rsplit(".", 1)[-1] for n in _names(kid.children[1]))
        elif kid.type == "keyword" and kid.value == "except" and i + 1 < len(kids) and \
                getattr(kids[i + 1], "value", None) == ":":
            names.add("*")
    return names


def re_raises(kids: list[Node], i: int) -> bool:
    """The handler whose `except` is `kids[i]` (a try_stmt's children) ends in a `raise`, outside any branch: the
    error it catches leaves the `try` all the same (MiniCPM-o's `except Exception as e: raise ValueError(f"Clear
    error: {e}")`, heldout22), so the handler does not handle it."""
    kid = kids[i]
    if not (kid.type == "except_clause" or (kid.type == "keyword" and kid.value == "except")):
        return False
    suite = kids[i + 2] if i + 2 < len(kids) else None
    if suite is None:
        return False
    stmts = [c for c in getattr(suite, "children", [suite]) if c.type not in ("newline", "indent", "dedent")]
    last = stmts[-1] if stmts else suite
    if last.type == "simple_stmt":
        last = last.children[0]
    return last.type == "raise_stmt" or (last.type == "keyword" and code(last).strip() == "raise")


def _names(node: Node) -> list[Node]:
    if node.type in ("name", "power", "atom_expr"):
        return [node]
    return [n for c in getattr(node, "children", ()) for n in _names(c)]


def _tests_before(node: Node, child: Node) -> list[str]:
    """The tests deciding the branch `child` is on: an `if`/`elif` chain's up to that branch, or a ternary's."""
    kids = node.children
    if node.type == "test":  # body if test else other
        if len(kids) != 5 or child is kids[2]:
            return []
        return [code(kids[2])]
    tests: list[str] = []
    for i, kid in enumerate(kids):
        if kid is child:
            return tests if kids[i - 1].type == "operator" else []  # a test itself is on no branch
        if kid.type == "keyword" and kid.value in ("if", "elif"):
            tests.append(code(kids[i + 1]))
    return []


def _in_first_branch(node: Node, child: Node) -> bool:
    """`child` is the branch its last test chose (not an `else`)."""
    kids = node.children
    if node.type == "test":
        return child is kids[0]
    i = kids.index(child)
    return i >= 3 and kids[i - 3].type == "keyword" and kids[i - 3].value in ("if", "elif")
