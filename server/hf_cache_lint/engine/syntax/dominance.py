"""Whether code at one place always runs before code at another, in the same function, read from the syntax tree:
structured control flow only (a statement runs before the later statements of its block and before its own body).

A line that raises on every path stops the function there: a later use it dominates is never reached on that
release (Lingua-style `for i in range(len(cache.key_cache)):` then `cache.key_cache[i]` in the loop body: only the
header raises). HFC007 reports the first (rules/hfc007_removed_cache_api)."""

from __future__ import annotations

from hf_cache_lint.engine.base.findings import Position
from hf_cache_lint.engine.syntax.nodes import Node

_COMPOUND = frozenset({"if_stmt", "for_stmt", "while_stmt", "with_stmt", "async_stmt"})
_SCOPES = frozenset({"funcdef", "async_funcdef", "classdef", "lambdef"})
_BLOCKS = frozenset({"suite", "file_input"})


def dominates(tree: Node | None, first: Position, later: Position) -> bool:
    """Whether the code at `first` runs, on every path, before the code at `later` (`first` before `later`): its
    statement (or the header of the compound statement holding it) comes earlier in a block that holds `later`,
    or `later` is in that compound statement's body (its header's own later parts included), with no function,
    class or lambda between them. Two places in one simple statement: False, but for two arguments of one call
    (`f(a, b)` evaluates `a` first)."""
    return tree is not None and Dominance(tree)(first, later)


class Dominance:
    """`dominates` over one tree, asked many times (a rule's findings against each other): each place's leaf is
    looked up once (parso's `get_leaf_for_position` is a binary search from the root, and a module of many
    findings asks for every pair)."""

    def __init__(self, tree: Node) -> None:
        self.tree = tree
        self._leaves: dict[tuple[int, int], Node | None] = {}

    def _leaf(self, at: Position) -> Node | None:
        key = (at.line, at.column)
        if key not in self._leaves:
            try:
                self._leaves[key] = self.tree.get_leaf_for_position(key)
            except ValueError:
                self._leaves[key] = None
        return self._leaves[key]

    def __call__(self, first: Position, later: Position) -> bool:
        if (first.line, first.column) >= (later.line, later.column):
            return False
        a, b = self._leaf(first), self._leaf(later)
        if a is None or b is None:
            return False
        stmt = _statement(a)
        if stmt is None:
            return False
        block = stmt.parent
        if block is None or block.type not in _BLOCKS:
            return False  # `if x: a` on one line: the statement is a branch of its compound statement
        node = b
        while node is not None:
            if node is stmt:
                # `later` in the body of the statement whose header runs first; within one simple statement the
                # order is not always the text's (`x[i] = y` reads y first, `a if c else b` tests c first): not
                # claimed, but for two arguments of one call (evaluated in order).
                return stmt.type in _COMPOUND or _earlier_argument(a, b)
            if node.type in _SCOPES:
                return False  # defined, not run here
            if node.parent is block:
                return bool(node.start_pos > stmt.start_pos)
            node = node.parent
        return False


# What may not run, or runs later, inside an expression: a short-circuit operand, a branch, a deferred body.
_CONDITIONAL = frozenset({"or_test", "and_test", "test", "lambdef", "comp_for", "sync_comp_for", "old_comp_for"})


def _earlier_argument(a: Node, b: Node) -> bool:
    """`a` in an earlier argument than `b` of the same call (`f(x=layer.max_batch_size, y=layer.head_dim)`): Python
    evaluates the arguments left to right, so a raise in `a`'s stops `b`'s. Only where `a` runs whenever its
    argument does (no `and`/`or`, ternary, lambda or comprehension between them)."""
    arglist = a.parent
    argument = a
    while arglist is not None and arglist.type != "arglist":
        if arglist.type in _CONDITIONAL or arglist.type in _SCOPES or arglist.type in ("simple_stmt", "suite"):
            return False
        argument, arglist = arglist, arglist.parent
    if arglist is None or arglist.parent is None or arglist.parent.type != "trailer":
        return False
    node = b
    while node is not None and node.parent is not arglist:
        node = node.parent
    return node is not None and node is not argument and node.start_pos > argument.start_pos


def _statement(leaf: Node) -> Node | None:
    """The simple statement holding `leaf`, or the compound statement whose header (not its body) holds it."""
    node = leaf.parent
    while node is not None:
        if node.type == "simple_stmt":
            return node
        if node.type in _COMPOUND:
            return node  # climbed from the header: a body's statement would have stopped at its simple_stmt
        if node.type in _SCOPES or node.type in _BLOCKS:
            return None
        node = node.parent
    return None


__all__ = ["Dominance", "dominates"]


def branch_of(tree: Node, at: Position, tests: frozenset[str], function_at: tuple[int, int]) -> Position | None:
    """Where the `if` statement starts whose first branch holds `at` and whose test is one of `tests` (as written),
    inside the function whose name starts at `function_at` (no other function between); None elsewhere. What
    follows that `if` in its block runs only where the branch did not raise."""
    try:
        node = tree.get_leaf_for_position((at.line, at.column))
    except ValueError:
        return None
    found: Position | None = None
    child = node
    node = node.parent if node is not None else None
    while node is not None:
        if node.type == "if_stmt" and found is None and len(node.children) >= 4 and child is node.children[3] and \
                node.children[1].get_code(include_prefix=False).strip() in tests:
            found = Position(node.start_pos[0], node.start_pos[1])
        if node.type in _SCOPES:
            return found if node.type != "classdef" and node.children[1].start_pos == function_at else None
        child, node = node, node.parent
    return None
