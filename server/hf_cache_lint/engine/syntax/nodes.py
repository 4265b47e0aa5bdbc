"""parso tree helpers: spans, call arguments, dotted names. parso positions are already
(1-based line, 0-based code-point column), the engine's convention, so nothing converts here."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from hf_cache_lint.engine.base.findings import Position, Span

Node = Any  # parso's tree classes are untyped


def span(node: Node) -> Span:
    return Span(Position(*node.start_pos), Position(*end_pos(node)))


def span_between(first: Node, last: Node) -> Span:
    return Span(Position(*first.start_pos), Position(*end_pos(last)))


def end_pos(node: Node) -> tuple[int, int]:
    """`node.end_pos`: its last leaf's end. parso splits that leaf's value into lines with a regex each time
    (a site's span, a function's key at every keystroke); most leaves hold no line break, and a statement's
    last leaf is a newline."""
    kids = getattr(node, "children", None)
    while kids is not None:
        node = kids[-1]
        kids = getattr(node, "children", None)
    value = getattr(node, "value", None)
    if value == "\n":
        return node.line + 1, 0
    if not isinstance(value, str) or "\n" in value or "\r" in value:
        return node.end_pos  # type: ignore[no-any-return]
    return node.line, node.column + len(value)


def param_span(param: Node) -> Span:
    """A `def`'s parameter from its first token to its default (or name), without the comma that follows it."""
    last = param.children[-1]
    end = param.children[-2] if last.type == "operator" and last.value == "," else last
    return span_between(param.children[0], end)


def code(node: Node) -> str:
    """The node's source without leading whitespace/comments (parso's `get_code(include_prefix=False)`)."""
    return head(node, -1)


def head(node: Node, n: int) -> str:
    """The first `n` characters of `code(node)` (all of it for -1), rendering no more leaves than that takes.

    parso renders a node through a generator per level; one walk over the leaves, stopping once `n`
    characters are there, costs a fraction of that (a site's first 80 characters of a large call were
    rendered whole and cut)."""
    kids = getattr(node, "children", None)
    if kids is None:
        value = getattr(node, "value", None)  # not a parso leaf (the interpreter's `…` for elided trailers)
        text = str(value if value is not None else node.get_code(include_prefix=False))
        return text if n < 0 else text[:n]
    parts: list[str] = []
    size = 0
    todo = [node]
    first = True
    while todo:
        leaf = todo.pop()
        kids = getattr(leaf, "children", None)
        if kids is not None:
            todo.extend(reversed(kids))
            continue
        text = leaf.value if first else leaf.prefix + leaf.value
        first = False
        parts.append(text)
        size += len(text)
        if 0 <= n <= size:
            break
    out = "".join(parts)
    return out if n < 0 else out[:n]


@dataclass(frozen=True)
class Arg:
    """One call argument: `name` for keywords, `star` "*" or "**" for unpacking."""

    node: Node
    value: Node
    name: str | None = None
    name_node: Node | None = None
    star: str = ""


def call_args(trailer: Node) -> list[Arg]:
    """The arguments of a call trailer `( ... )`."""
    if len(trailer.children) < 3:
        return []
    inner = trailer.children[1]
    items = [c for c in inner.children if c.type != "operator" or c.value not in (",",)] \
        if inner.type == "arglist" else [inner]
    out: list[Arg] = []
    for item in items:
        if item.type == "argument":
            first = item.children[0]
            if first.type == "operator" and first.value in ("*", "**"):
                out.append(Arg(item, item.children[1], star=first.value))
            elif len(item.children) >= 3 and item.children[1].type == "operator" and item.children[1].value == "=":
                if first.type != "name":  # `f(cfg.x=1)` while typing: Python rejects it, no argument
                    continue
                out.append(Arg(item, item.children[2], name=first.value, name_node=first))
            else:  # a generator argument `f(x for x in y)`
                out.append(Arg(item, item))
        elif item.type == "star_expr":
            out.append(Arg(item, item.children[1], star="*"))
        elif item.type in ("error_node", "error_leaf") or (item.type == "operator"):
            continue
        else:
            out.append(Arg(item, item))
    return out


def string_value(node: Node) -> str | None:
    """The value of a plain string literal (or implicit concatenation), else None. No f-strings."""
    if node.type == "string":
        text = node.value
        prefix = ""
        while text and text[0] in "rRbBuU":
            prefix += text[0]
            text = text[1:]
        if "b" in prefix.lower():
            return None
        for q in ('"""', "'''", '"', "'"):
            if text.startswith(q) and text.endswith(q) and len(text) >= 2 * len(q):
                body = text[len(q):-len(q)]
                if "r" in prefix.lower() or "\\" not in body:
                    return str(body)
                try:
                    with warnings.catch_warnings():  # `"\\e"`: Python warns (DeprecationWarning), it does not fail
                        warnings.simplefilter("ignore")
                        return str(body.encode("latin-1", "backslashreplace").decode("unicode_escape"))
                except UnicodeDecodeError:
                    return None
        return None
    if node.type == "strings":
        parts = [string_value(c) for c in node.children]
        return None if any(p is None for p in parts) else "".join(p for p in parts if p is not None)
    return None


def unparenthesised(node: Node) -> Node:
    """`node` without the parentheses around it (`x = (\\n    f)`: a long patch line wrapped, the value is `f`); a
    tuple keeps them (its comma makes a `testlist_comp` inside), so does a generator."""
    while node.type == "atom" and len(node.children) == 3 and node.children[0].value == "(" and \
            node.children[1].type != "testlist_comp":
        node = node.children[1]
    return node


def dotted(node: Node) -> str | None:
    """`a.b.c` for a name or attribute chain without calls/subscripts, else None."""
    if node.type == "name":
        return str(node.value)
    if node.type in ("power", "atom_expr"):
        parts = []
        first = node.children[0]
        if first.type != "name":
            return None
        parts.append(first.value)
        for t in node.children[1:]:
            if t.type == "trailer" and t.children[0].value == "." and len(t.children) == 2:
                parts.append(t.children[1].value)
            else:
                return None
        return ".".join(parts)
    return None


# Nodes that hold an expression, the parts of a simple statement that are expressions, or the names of an import:
# no statement (an import, a `def`, a `class`) is ever inside one (a lambda is an expression; parso's error recovery
# puts the error nodes it makes in a block or the module, never in an expression; tests/engine/test_syntax_walks.py
# checks it on the corpus). A search for statements need not enter them.
NO_STATEMENT_INSIDE = frozenset({
    "expr_stmt", "power", "atom_expr", "atom", "trailer", "arglist", "argument", "testlist_comp", "testlist_star_expr",
    "testlist", "exprlist", "comparison", "test", "or_test", "and_test", "not_test", "arith_expr", "term", "factor",
    "shift_expr", "and_expr", "xor_expr", "expr", "dictorsetmaker", "subscript", "subscriptlist", "sliceop", "lambdef",
    "namedexpr_test", "star_expr", "yield_expr", "annassign", "return_stmt", "del_stmt", "assert_stmt", "raise_stmt",
    "fstring", "strings", "decorator", "parameters", "param", "global_stmt", "nonlocal_stmt",
    "import_from", "import_name", "dotted_as_names", "dotted_as_name", "import_as_names", "import_as_name",
    "dotted_name",
})


def statement_walk(module: Node, *, reverse: bool = True) -> Iterator[Node]:
    """The nodes (not the leaves) of a whole walk of the tree that are not inside a node of NO_STATEMENT_INSIDE
    (such a node is given, its insides are not), in the whole walk's order: pre-order, children left to right
    (`reverse=False`: right to left, the order of a walk that pushes children as they stand). Every import, `def`
    and `class` of the module is among them: on transformers' generation/utils.py, 3,500 of its 33,000 nodes.

    Inside `statements_shared(module)`, the left-to-right walk of that module is the list made once there."""
    if reverse and _shared(module):
        return iter(statements(module))
    return _walk(module, reverse)


def _walk(module: Node, reverse: bool) -> Iterator[Node]:
    stack = [module]
    while stack:
        node = stack.pop()
        kids = getattr(node, "children", None)
        if kids is None:
            continue
        yield node
        if node.type not in NO_STATEMENT_INSIDE:
            stack.extend(reversed(kids) if reverse else kids)


def statements(module: Node) -> list[Node]:
    """`list(statement_walk(module))`, built in one loop (a third cheaper than the generator's), or the list
    `statements_shared` made."""
    shared = _SHARED.get()
    if shared is not None and shared[0] is module and shared[1] is not None:
        made: list[Node] = shared[1]
        return made
    out: list[Node] = []
    stack = [module]
    pop, push, keep = stack.pop, stack.extend, out.append
    while stack:
        node = pop()
        kids = getattr(node, "children", None)
        if kids is None:
            continue
        keep(node)
        if node.type not in NO_STATEMENT_INSIDE:
            push(kids[::-1])
    if shared is not None and shared[0] is module:
        shared[1] = out
    return out


# The statement list of the tree being analysed, while it cannot change (the kept tree of an editor buffer is
# updated in place by the next keystroke's parse: the list lives only as long as one analysis, never across two).
# [module, its statements once a walk asked for them, what readers worked out from them (`shared_memo`)]
_SHARED: ContextVar[list[Any] | None] = ContextVar("statements_shared", default=None)


def _shared(module: Node) -> bool:
    shared = _SHARED.get()
    return shared is not None and shared[0] is module


def shared_memo(module: Node) -> dict[str, Any] | None:
    """Inside `statements_shared(module)`, a dict the readers of that analysis keep what they work out from the
    unchanging tree in (by a name of their own), else None."""
    shared = _SHARED.get()
    if shared is None or shared[0] is not module:
        return None
    memo: dict[str, Any] = shared[2]
    return memo


@contextmanager
def statements_shared(module: Node) -> Iterator[None]:
    """While inside, every whole-module statement walk of `module` (the removed-API reader's imports and model
    modules, the hooks' bindings: three a check) reads one list made here, not the tree again (1.3-2.6 ms a walk
    on generation/utils.py), made at the first of them. The tree must not change inside."""
    token = _SHARED.set([module, None, {}])
    try:
        yield
    finally:
        _SHARED.reset(token)


def import_statements(module: Node, text: str | None = None) -> list[Node]:
    """The module's imports (`import_name`, `import_from`) that `statements(module)` holds, in its order (source
    order). With `text`, the text the tree was parsed from, they are found from the word `import` in it: each
    keyword's leaf by position and its statement, kept where no node above it is in NO_STATEMENT_INSIDE (the
    statement walk's rule): on the 100-line script 0.02 ms, where the walk that makes the statement list costs
    0.07 ms; on transformers' generation/utils.py (37 imports, 43 lines saying `import`) 0.61 ms, the walk and
    its filter 1.32 (speed31l; the limit of 50,000 characters once here dated from parso's leaf lookup). Not
    where the statement list is made already, nor for a text with a carriage return or a BOM (other line or
    column counting). Inside `statements_shared(module)` the answer is kept for the analysis' other readers (the
    removed-API reader's cache classes and model modules, the hook readers' transformers imports)."""
    shared = _SHARED.get()
    memo: dict[str, Any] | None = shared[2] if shared is not None and shared[0] is module else None
    if memo is not None and "imports" in memo:
        kept: list[Node] = memo["imports"]
        return list(kept)
    if text is None or "\r" in text or text.startswith("\ufeff") or (
            shared is not None and shared[0] is module and shared[1] is not None):
        return [n for n in statements(module) if n.type in ("import_name", "import_from")]
    found = _imports_from_text(module, text)
    if memo is not None:
        memo["imports"] = list(found)
    return found


def _imports_from_text(module: Node, text: str) -> list[Node]:
    found: list[Node] = []
    for leaf in word_leaves(module, text, "import"):
        if leaf.type != "keyword":
            continue
        node = leaf.parent
        if node is None or node.type not in ("import_name", "import_from"):
            continue
        if in_statement_walk(node):
            found.append(node)
    return found


def in_statement_walk(node: Node) -> bool:
    """Whether `statement_walk` of its module gives `node`: no node above it is in NO_STATEMENT_INSIDE."""
    above = node.parent
    while above is not None and above.type not in NO_STATEMENT_INSIDE:
        above = above.parent
    return above is None


def word_leaves(module: Node, text: str, word: str) -> Iterator[Node]:
    """The leaves of `module` (parsed from `text`, which has no carriage return nor BOM: parso's lines and columns
    are then the text's) that are `word` and start where it does in the text, in source order: every keyword or
    name `word` of the tree, found by each occurrence's position (`_last_leaf_from`), not by a walk."""
    line, line_start, at = 1, 0, 0
    size = len(word)
    start = text.find(word)
    while start >= 0:  # every occurrence (str.find: a regex with \b is ~5x slower); the leaf says which is the word
        newlines = text.count("\n", at, start)
        if newlines:
            line += newlines
            line_start = text.rfind("\n", at, start) + 1
        at = start
        place = (line, start - line_start)
        start = text.find(word, start + size)
        try:
            leaf = _last_leaf_from(module, place)
        except IndexError:  # a node without children (parso makes none): its lookup, as before
            try:
                leaf = module.get_leaf_for_position(place)
            except ValueError:  # past the tree's end: not a leaf of it
                continue
            while leaf is not None and leaf.end_pos <= place:  # the leaf ending where the word starts
                leaf = leaf.get_next_leaf()
        if leaf is not None and leaf.start_pos == place and getattr(leaf, "value", None) == word:
            yield leaf


def suite_statements(suite: Node) -> list[Node]:
    """The statements of a block (a `suite` node, or a simple statement on the same line)."""
    if suite.type == "suite":
        return [c for c in suite.children if c.type not in ("newline", "indent", "dedent")]
    return [suite]


def _last_leaf_from(node: Node, place: tuple[int, int]) -> Node | None:
    """The last leaf under `node` that starts at or before `place`: the leaf starting at `place` when one does (the
    leaves after it start past it, a leaf having width; one of zero width at `place` comes before it). Descends by
    each level's children's starts, where parso's `get_leaf_for_position` compares ends (each a walk to a last leaf,
    the root's too at every level) through a new closure per level: ~0.3 M instructions a check on the script."""
    while True:
        kids = getattr(node, "children", None)
        if kids is None:
            return node
        lo, hi = 0, len(kids)
        while lo < hi:  # the first child starting past `place`
            mid = (lo + hi) // 2
            if kids[mid].start_pos <= place:
                lo = mid + 1
            else:
                hi = mid
        if lo == 0:
            return None
        node = kids[lo - 1]


def import_paths(node: Node) -> list[tuple[Node, list[Node]]]:
    """Each name an import statement binds, with its path: parso's `(name, node.get_path_for_name(name)) for
    name in node.get_defined_names()` in one pass over the statement's names (parso goes over all of them again
    for each name: quadratic in a long `from m import (...)`, and the interpreter runs every import at every
    keystroke). Built from the same parso walks (`_dotted_as_names`, `_as_name_tuples`, `get_from_names`)."""
    if node.type == "import_name":
        # get_path_for_name: an alias stands for its whole dotted path; a plain `import a.b` binds `a`, path [a].
        return [(alias, list(path)) if alias is not None else (path[0], [path[0]])
                for path, alias in node._dotted_as_names()]
    dotted = node.get_from_names()
    return [(alias or name, [*dotted, name]) for name, alias in node._as_name_tuples()]


def imported_from(node: Node) -> str:
    """The module of a `from M import ...` as written, without its leading dots (parso's own API)."""
    return ".".join(n.value for n in node.get_from_names() or [])
