"""The calls that raise because a line of the function they call raises on every run of it, read from the syntax
tree: DeepSeek-VL2's `prepare_inputs_for_generation` calls `_seen_length(past_key_values)`, whose one statement
reads the removed `seen_tokens`, so that call stops the override and its later lines (the None test of
`_max_length(...)`'s answer) never run.

A line raises on every run of its function when its statement stands in the function's own block (not under an
`if`, a loop's body, a `try`), and nothing before it in the function can leave it (`return`, `raise`, `yield`,
`break`/`continue` do not leave a function, but a loop's `break` may skip the rest of its body: the statement must
be in the function's own block, so no loop holds it). Its callers are found by name: a module-level function's
`name(...)` anywhere in the module, a method's `self.name(...)` in its class, an `__init__`'s constructions of its
class (`Name(...)` in the module, `cls(...)` in the class). Callers up to `DEPTH` helpers deep.
"""

from __future__ import annotations

from hf_cache_lint.engine.base.findings import Position
from hf_cache_lint.engine.syntax.nodes import Node

DEPTH = 3
_SCOPES = frozenset({"funcdef", "async_funcdef", "classdef", "lambdef"})
_COMPOUND = frozenset({"if_stmt", "for_stmt", "while_stmt", "with_stmt", "async_stmt", "try_stmt"})
_LEAVES = frozenset({"return_stmt", "raise_stmt", "yield_expr"})
_SHORT_CIRCUIT = frozenset({"test", "and_test", "or_test"})  # parso names `a if c else b` "test"
_COMPREHENSION = frozenset({"sync_comp_for", "comp_for"})


def raising_calls(tree: Node | None, starts: list[Position]) -> list[Position]:
    """Where the calls start (their callee's name) that run the function holding one of `starts` and so raise
    wherever they run, given that the code at each start raises wherever it runs; their callers' calls too, `DEPTH`
    deep. The module or a class is walked once for the calls of every name in it (`_calls_by_name`), however many
    functions and starts there are: a module of many such helpers stays linear (one walk per function name was
    quadratic: 300 helpers, 300 walks of the whole module)."""
    if tree is None:
        return []
    found: list[Position] = []
    walked: dict[tuple[int, bool], dict[str, list[Position]]] = {}
    for at in starts:
        todo, seen = [(at, 0)], set()
        while todo:
            place, depth = todo.pop()
            if depth >= DEPTH or place in seen:
                continue
            seen.add(place)
            for call in _callers(tree, place, walked):
                found.append(call)
                todo.append((call, depth + 1))
    return found


def callers_of(tree: Node | None, at: Position) -> list[Position]:
    """Where the calls start (by name, as `raising_calls` finds them) of the function holding `at`, wherever `at`
    stands in it; [] for code outside a function, a nested function, or a function nobody in the module calls."""
    if tree is None:
        return []
    try:
        leaf = tree.get_leaf_for_position((at.line, at.column))
    except ValueError:
        return []
    node = leaf
    while node is not None and node.type not in ("funcdef", "async_funcdef"):
        if node.type in ("classdef", "lambdef", "file_input"):
            return []
        node = node.parent
    if node is None:
        return []
    calls = _by_name(node, {})
    # Every mention of the name in the module must be one of those calls: `chat._fill(...)`, `Cls.method`, a
    # reference handed on, may run it unstopped (xinference's probes call the helpers `merge_kv_cache` stops).
    module = node
    while module.parent is not None:
        module = module.parent
    name = node.children[1].value
    mentions = sum(1 for leaf in _names(module) if leaf.value == name and leaf is not node.children[1])
    return calls if mentions == len(calls) else []


def _names(root: Node) -> list[Node]:
    out: list[Node] = []
    stack = [root]
    while stack:
        node = stack.pop()
        kids = getattr(node, "children", None)
        if kids is None:
            if node.type == "name":
                out.append(node)
        else:
            stack.extend(kids)
    return out


def _callers(tree: Node, at: Position, walked: dict[tuple[int, bool], dict[str, list[Position]]]) -> list[Position]:
    try:
        leaf = tree.get_leaf_for_position((at.line, at.column))
    except ValueError:
        return []
    if leaf is None:
        return []
    function = _unconditional_in(leaf)
    if function is None:
        return []
    return _by_name(function, walked)


def _by_name(function: Node, walked: dict[tuple[int, bool], dict[str, list[Position]]]) -> list[Position]:
    """The calls of `function` by name: `name(...)` in the module, `self.name(...)` in its class (an `__init__`:
    where the class is built)."""
    name = function.children[1].value
    holder = function.parent
    if holder is not None and holder.type == "decorated":
        holder = holder.parent
    if holder is not None and holder.type == "suite":
        holder = holder.parent
    if holder is None or holder.type not in ("file_input", "classdef"):
        return []  # a nested function: its callers are not read
    method = holder.type == "classdef"
    if method and name == "__init__":
        # `self.__init__(...)` in the class's methods too (a re-initialisation runs it again)
        return _calls_in(holder, method, walked).get(name, []) + _constructions(holder, walked)
    return _calls_in(holder, method, walked).get(name, [])


def _calls_in(holder: Node, method: bool,
              walked: dict[tuple[int, bool], dict[str, list[Position]]]) -> dict[str, list[Position]]:
    key = (id(holder), method)
    calls = walked.get(key)
    if calls is None:
        calls = walked[key] = {n: [_start(leaf) for leaf in leaves]
                               for n, leaves in _calls_by_name(holder, method=method).items()}
    return calls


def _constructions(cls: Node, walked: dict[tuple[int, bool], dict[str, list[Position]]]) -> list[Position]:
    """The calls that run a class's `__init__`: `Name(...)` in the module of a module-level class, and `cls(...)`
    in the class's own methods (a classmethod's factory: LCKV's `from_cache` builds `cls()`, whose base
    `__init__` raises, so the lines after it never run: heldout16)."""
    found = list(_calls_in(cls, False, walked).get("cls", []))
    module = cls.parent
    if module is not None and module.type == "file_input":
        found += _calls_in(module, False, walked).get(cls.children[1].value, [])
    return found


def _unconditional_in(leaf: Node) -> Node | None:
    """The function whose own block holds the statement of `leaf` (or whose header holds it), when nothing before
    that statement in the function can leave it; else None."""
    node = leaf
    while node.parent is not None and node.parent.type not in ("suite", "funcdef"):
        if node.type in _SCOPES:
            return None  # a lambda or a nested scope in the statement: defined, not run
        parent = node.parent
        if parent.type in _SHORT_CIRCUIT and parent.children[2 if parent.type == "test" else 0] is not node:
            return None  # `a if c else b`'s branches, `x and y`'s later operands: they may not run
        if any(child.type in _COMPREHENSION for child in parent.children):
            return None  # a comprehension's element runs once per item: perhaps never
        node = parent
    if node.parent is not None and node.parent.type == "funcdef":
        return node.parent  # `def f(c): return c.seen_tokens` on one line
    suite = node.parent
    if suite is None or suite.parent is None or suite.parent.type not in ("funcdef", "async_funcdef"):
        return None
    function = suite.parent
    for statement in suite.children:
        if statement is node:
            return function
        if _may_leave(statement):
            return None
    return None


def _may_leave(node: Node) -> bool:
    """A `return`, `raise` or `yield` in `node` outside nested scopes (the function may stop or pause there)."""
    if node.type in _LEAVES or (node.type == "keyword" and node.value in ("return", "raise", "yield")):
        return True
    if node.type in _SCOPES:
        return False
    return any(_may_leave(child) for child in getattr(node, "children", ()))


def _calls_by_name(root: Node, *, method: bool) -> dict[str, list[Node]]:
    """Every `name(...)` (or `self.name(...)` for a method) in `root`, by name: the callee's name leaves, each name's
    in the order a walk for that name alone meets them."""
    out: dict[str, list[Node]] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        kids = getattr(node, "children", None)
        if kids is None:
            if node.type == "name" and _called(node, method):
                out.setdefault(node.value, []).append(node)
            continue
        stack.extend(kids)
    return out


def _called(leaf: Node, method: bool) -> bool:
    parent = leaf.parent
    if parent is None:
        return False
    if not method:
        # `name(...)`: the first child of a power/atom_expr whose next trailer is a call
        return bool(parent.type in ("power", "atom_expr") and parent.children[0] is leaf
                    and len(parent.children) > 1 and parent.children[1].type == "trailer"
                    and parent.children[1].children[0].value == "(")
    # `self.name(...)`: leaf in the trailer `.name` right after `self`, followed by a call trailer
    if parent.type != "trailer" or parent.children[0].value != ".":
        return False
    expr = parent.parent
    if expr is None or expr.type not in ("power", "atom_expr"):
        return False
    kids = expr.children
    i = kids.index(parent)
    return bool(i == 1 and kids[0].type == "name" and kids[0].value == "self" and len(kids) > 2
                and kids[2].type == "trailer" and kids[2].children[0].value == "(")


def _start(leaf: Node) -> Position:
    """Where the call's expression starts (the callee's name, or `self`)."""
    node = leaf
    if node.parent is not None and node.parent.type == "trailer":
        node = node.parent.parent.children[0]
    return Position(*node.start_pos)


__all__ = ["DEPTH", "callers_of", "raising_calls"]
