"""A keystroke's re-parse of the one statement it changed: the smallest statement of the kept tree (a child of a
block: the module or a suite, at any depth) whose lines hold every changed line, parsed alone (inside `if 1:`
headers that give the tokenizer the indentation of the blocks around it) and put in place of the old one.
parso's diff parser instead re-parses, around an edit inside a method, the statements of the enclosing class
it cannot prove unchanged (on transformers' generation/utils.py, ~16,000 tokens of a 4,000-line class per
keystroke) and gives new node objects to much of the rest; here everything outside the statement stays the
object it was, which the interpreter's replays (engine/interpreter/replay.py) compare by identity.

Why the tree is a whole parse's (tests/engine/test_splice.py compares them node by node over random edits):

- The statement's text is whole lines: from the line after the previous sibling's NEWLINE (its first leaf's
  prefix: blank and comment lines) to its own last NEWLINE, at a line end. The lines before it are unchanged,
  so the tokenizer reaches its first line in the same state in both texts: at the start of a logical line (no
  bracket, string or f-string open: the previous sibling ended with a NEWLINE token), with the indentation
  stack of the blocks around it, which the headers, each at its block owner's own indentation, rebuild.
- The parser reaches its first token in the same state too: after a finished statement, in a block expecting
  another. The piece must parse with no error node or error leaf at all and give only whole statements of the
  innermost block (and nothing after them, not even a comment): a statement parses the same in any block, and
  without error recovery nothing of the enclosing blocks is involved.
- After it, the text is the old text's: the piece ends with a NEWLINE at a line end with no bracket or string
  open (an error-free parse), its statements start at the old statement's column (the block's indentation,
  which a suite's first statement sets for the lines after it), and the next line's indentation, at most that
  column (checked: a line indented more, an error the parser recovered from, makes the statement one level out the
  piece), pops the same entries of the indentation stack in both texts. The next token starts the old next
  statement, which cannot continue a compound statement of the piece unless it is `else`, `elif`, `except` or
  `finally` at the piece's own indentation: then the statement one level out is the piece, under the same
  conditions. One indented less (its indentation a proper prefix of the piece's) comes after a DEDENT that closes
  the piece's block, and continues a statement further out, which stays as it is.

An edit that adds or removes lines (Enter, lines joined) is spliced the same way, the changed rows those of one
block of lines (engine/syntax/parsing.py widens an insertion or a deletion by the unchanged line before it): the
statement holding them is re-parsed from the new lines and every leaf after it moves by the difference (the text
after it is the old text's; the tokenizer and the parser never read a line number). Anything refused here is left
to parso's diff parser, with the tree untouched.
"""

from __future__ import annotations

from typing import Any

from hf_cache_lint.engine.base import process_state

# Tokens that continue a compound statement: the old next statement must not start with one (the docstring).
_CONTINUES = frozenset(("else", "elif", "except", "finally"))
# Node types that own a suite directly, or through one child (decorated, async).
_WRAPPERS = frozenset(("decorated", "async_stmt", "async_funcdef"))


def splice_statement(grammar: Any, module: Any, old_lines: list[str], new_lines: list[str],
                     first: int, last: int, delta: int = 0) -> bool:
    """Rows first..last (0-based, inclusive) of `old_lines` changed into `last - first + 1 + delta` rows of
    `new_lines` (the rest the same): the smallest statement of `module` (the kept tree of `old_lines`) that holds
    them and that the next token does not continue re-parsed from `new_lines` and put in its place, every later
    leaf moved `delta` lines. False, with the tree untouched, when that is not provably a whole parse's tree (the
    module docstring)."""
    if len(new_lines) - len(old_lines) != delta or first > last or \
            "\ufeff" in old_lines[0][:1] + new_lines[0][:1]:
        return False
    for block, index, top, bottom, owners in reversed(_enclosing(module, first + 1, last + 1)):
        statement = block.children[index]
        nxt = statement.get_last_leaf().get_next_leaf()
        if nxt is not None and nxt.start_pos[1] > statement.start_pos[1]:
            # The next line is indented more than the statement (an indentation error the parser recovered from:
            # `def f():\` joined its body onto its own line): a new block the edit opens in the statement would take
            # that line in; the statement one level out is re-parsed whole (found by a fuzz of this splice).
            continue
        if nxt is not None and nxt.value in _CONTINUES and \
                not _dedented(statement, nxt, old_lines, new_lines, first, last, delta):
            # The next token could continue the statement (an `else` at its own indentation, after a statement that
            # an edit may make an `if`): the statement one level out, whose branches it may be, is re-parsed whole.
            continue
        return _splice(grammar, module, new_lines, block, index, top, bottom, owners, delta)
    return False


def _dedented(statement: Any, nxt: Any, old_lines: list[str], new_lines: list[str], first: int, last: int,
              delta: int) -> bool:
    """Whether `nxt` (an `elif`, `else`, `except` or `finally` after the statement: the last statement of a branch)
    stands on a line indented less than the statement, in both texts: its indentation is a proper prefix of the
    statement's line's, whatever width a tab has. The tokenizer then closes the statement's block (a DEDENT) before
    it, so it continues a statement further out, which the splice leaves as it is, and never the statement itself,
    whatever the edit made of it (the last statement of an `if` body, before its `elif`, is re-parsed alone)."""
    row, column = statement.start_pos
    nxt_row, nxt_column = nxt.start_pos
    indent = old_lines[row - 1][:column]
    outer = old_lines[nxt_row - 1][:nxt_column]
    # The statement's first line in the new text: the same row before the changed rows (and inside them when the line
    # count is kept), `delta` rows on after them; inside changed rows that moved, unknown.
    if first <= row - 1 <= last and delta:
        return False
    new_row = row - 1 + (delta if row - 1 > last else 0)
    return len(outer) < len(indent) and indent.startswith(outer) and new_lines[new_row][:column] == indent


def _splice(grammar: Any, module: Any, new_lines: list[str], block: Any, index: int, top: int, bottom: int,
            owners: list[Any], delta: int) -> bool:
    """The statement `block.children[index]` (old lines top..bottom, new lines top..bottom + delta) re-parsed from
    `new_lines` and put in its place, when that is provably a whole parse's tree."""
    piece = new_lines[top - 1:bottom + delta]
    if not piece or not piece[-1].endswith(("\n", "\r")):
        return False
    headers = []
    for owner in owners:  # outermost first
        line = new_lines[owner.start_pos[0] - 1]
        indent = line[:len(line) - len(line.lstrip(" \t\x0c"))]
        headers.append(indent + "if 1:\n")
    tree = grammar.parse("".join(headers) + "".join(piece), error_recovery=True)
    parts = _statements(tree, len(headers))
    # At the old statement's column: the block's indentation (which the first statement of a suite sets for
    # the lines after it) and the indentation stack the next line meets are the old text's.
    if parts is None or any(p.start_pos[1] != block.children[index].start_pos[1] for p in parts):
        return False
    shift = top - 1 - len(headers)
    for part in parts:
        if not _shift_clean(part, shift):
            return False
    kids = block.children
    changed(block)
    # A new list, as the diff parser gives every block it rebuilds (the old one stays as it was for whoever holds it).
    block.children = kids[:index] + parts + kids[index + 1:]
    for part in parts:
        part.parent = block
    if delta:
        _move_after(parts[-1], delta)
    module._used_names = None  # regenerated on demand, as the diff parser leaves it
    return True


# The leaves under each node the last splice that moved lines moved (a later sibling of the statement or of one of
# its ancestors), by the node: (the tree, {id(node): (node, its leaves)}). Enter then a join, or lines typed one
# after another, move the same later methods again: a list of their leaves moves them without walking their nodes
# (after an Enter in generation/utils.py's `_prepare_cache_for_generation`: 10,450 leaves under 5,514 nodes; the
# walk was most of the splice's time). A node's entry stands only while nothing under it changed: a splice drops
# the entries of the nodes around the block it changes (`changed`), parso's diff parser and a tree's forgetting
# drop them all (`forget_leaves`); only the entries the last move used are kept (one tree's leaves at most).
_LEAVES: tuple[Any, dict[int, tuple[Any, list[Any]]]] | None = None


def forget_leaves(module: Any = None) -> None:
    """Drop the leaves kept of `module`'s nodes (of any tree's: None): what is under them may have changed."""
    global _LEAVES
    if module is None or (_LEAVES is not None and _LEAVES[0] is module):
        _LEAVES = None


process_state.resettable("engine/syntax/splice.py", "_LEAVES", forget_leaves)


def changed(block: Any) -> None:
    """`block`'s children are about to be replaced (a splice): the kept leaves of it and of every node around it
    no longer stand (the statement replaced and what is under it leave the tree: never looked up again)."""
    if _LEAVES is None:
        return
    kept = _LEAVES[1]
    node = block
    while node is not None:
        kept.pop(id(node), None)
        node = node.parent


def _leaves(node: Any) -> list[Any]:
    if getattr(node, "children", None) is None:
        return [node]
    found: list[Any] = []
    todo = [node]
    while todo:
        n = todo.pop()
        kids = getattr(n, "children", None)
        if kids is None:
            found.append(n)
        else:
            todo.extend(kids)
    return found


def _move_after(node: Any, delta: int) -> None:
    """Every leaf after `node` (the following siblings of it and of each of its ancestors, the endmarker too) moves
    `delta` lines: the text after the statement is the old text's, `delta` lines further (a line added or
    removed). The nodes keep their objects, as the lines before keep theirs. Each sibling's leaves are the last
    move's list when it kept one of it (`_LEAVES`)."""
    global _LEAVES
    module = node
    while module.parent is not None:
        module = module.parent
    last = _LEAVES[1] if _LEAVES is not None and _LEAVES[0] is module else {}
    kept: dict[int, tuple[Any, list[Any]]] = {}
    while node.parent is not None:
        kids = node.parent.children
        at = next(i for i, kid in enumerate(kids) if kid is node)
        for kid in kids[at + 1:]:
            got = last.get(id(kid))
            leaves = got[1] if got is not None and got[0] is kid else _leaves(kid)
            kept[id(kid)] = (kid, leaves)
            for leaf in leaves:
                leaf.line += delta
        node = node.parent
    _LEAVES = (module, kept)


def _enclosing(module: Any, first: int, last: int) -> list[tuple[Any, int, int, int, list[Any]]]:
    """The block children whose lines (1-based, the prefix's first line to the NEWLINE's) hold first..last, outermost
    first, each as (its block, its index there, its first and last line, the owners of the suites around it,
    outermost first): the innermost is the smallest statement holding the edit."""
    block, owners = module, list[Any]()
    found: list[tuple[Any, int, int, int, list[Any]]] = []
    while True:
        kids = block.children
        start = 1 if block.type == "suite" else 0  # a suite's children[0] is the NEWLINE after its colon
        hit = None
        for k in range(start, len(kids)):
            kid = kids[k]
            if kid.type == "endmarker":
                break
            top = kids[k - 1].end_pos[0] if k else 1
            if k and kids[k - 1].end_pos[1] != 0:
                return found
            end_line, end_col = kid.end_pos
            if end_col != 0:
                return found
            bottom = end_line - 1
            if top > last:
                break
            if bottom >= last:
                if top <= first:
                    hit = (k, top, bottom)
                break
        if hit is None:
            return found
        k, top, bottom = hit
        found.append((block, k, top, bottom, list(owners)))
        inner = _suite_holding(kids[k], first, last)
        if inner is None:
            return found
        owners.append(kids[k])  # its first line (a decorator's, `async`'s) has the block owner's indentation
        block = inner


def _suite_holding(statement: Any, first: int, last: int) -> Any | None:
    """The suite of a compound statement whose statements' lines may hold first..last (after its header line)."""
    node = statement
    while node.type in _WRAPPERS:
        node = node.children[-1]
    for child in getattr(node, "children", ()):
        if child.type == "suite" and child.start_pos[0] < first and child.end_pos[0] > last:
            return child
    return None


def _statements(tree: Any, depth: int) -> list[Any] | None:
    """The statements of the piece's block in the parse of headers + piece, when it has exactly that shape."""
    node = tree
    for _ in range(depth):
        kids = node.children
        if node.type == "suite":
            if len(kids) != 2:
                return None
            stmt = kids[1]
        else:  # file_input: the if_stmt, then the endmarker
            if len(kids) != 2 or kids[1].type != "endmarker" or kids[1].prefix:
                return None
            stmt = kids[0]
        if stmt.type != "if_stmt" or len(stmt.children) != 4 or stmt.children[3].type != "suite":
            return None
        node = stmt.children[3]
    kids = node.children
    if node.type == "suite":
        parts = kids[1:]
    else:
        if not kids or kids[-1].type != "endmarker" or kids[-1].prefix:
            return None
        parts = kids[:-1]
    if not parts or any(p.type in ("error_node", "error_leaf", "newline") for p in parts):
        return None
    last = parts[-1].get_last_leaf()
    if last.type != "newline" or not last.value:
        return None
    return list(parts)


def _shift_clean(node: Any, shift: int) -> bool:
    """Move the node's leaves `shift` lines down; False if it holds an error node or leaf (then unused)."""
    todo = [node]
    while todo:
        n = todo.pop()
        kids = getattr(n, "children", None)
        if kids is None:
            if n.type == "error_leaf":
                return False
            n.line += shift
        else:
            if n.type == "error_node":
                return False
            todo.extend(kids)
    return True
