"""What HFC010's loop readers (own_carry.py, renamed_carry.py) ask of a module by a name its text says, found from
that name's places in the text (`nodes.word_leaves`: each occurrence's leaf looked up by position) instead of a walk
of every node: the `def`s of the name, the calls through a `.name` trailer, and whether the text says `def name`.
transformers' generation/utils.py says both of renamed_carry's names, and its walk of the module's ~32,000 nodes
cost a third of a typed keystroke there (callgrind: see bench/README.md, the fourteenth session)."""

from __future__ import annotations

import re

from hf_cache_lint.engine.interpreter.hook_trees import walk
from hf_cache_lint.engine.syntax.nodes import Node, word_leaves
from hf_cache_lint.engine.text.text import contains


def _by_position(text: str) -> bool:
    """The text's offsets are parso's lines and columns (`word_leaves`' condition): no carriage return, no BOM."""
    return not text.startswith("\ufeff") and not contains(text, "\r")


def defs_named(tree: Node, text: str, name: str) -> list[Node]:
    """The `def`s of `tree` (parsed from `text`) named `name`, in a walk's order (source order: an enclosing def's
    name comes before those of the defs inside it)."""
    if not _by_position(text):
        return [n for n in walk(tree) if n.type == "funcdef" and n.children[1].value == name]
    out: list[Node] = []
    for leaf in word_leaves(tree, text, name):
        parent = leaf.parent
        if parent is not None and parent.type == "funcdef" and parent.children[1] is leaf:
            out.append(parent)
    return out


def dotted_calls(tree: Node, text: str, name: str) -> list[Node]:
    """The `power`/`atom_expr` nodes of `tree` that may hold a `.name` trailer (each holding one, and where the text
    does not allow a lookup by position every such node), in a walk's pre-order (by start, an enclosing node
    first)."""
    if not _by_position(text):
        return [n for n in walk(tree) if n.type in ("power", "atom_expr")]
    found: dict[int, Node] = {}
    for leaf in word_leaves(tree, text, name):
        trailer = leaf.parent
        node = trailer.parent if trailer is not None and trailer.type == "trailer" else None
        if node is not None and node.type in ("power", "atom_expr"):
            found[id(node)] = node
    return sorted(found.values(), key=lambda n: (n.start_pos, _depth(n)))


def _depth(node: Node) -> int:
    depth = 0
    while node.parent is not None:
        node, depth = node.parent, depth + 1
    return depth


def says_def(text: str, name: str) -> bool:
    """`re.search(rf"\\bdef\\s+{name}\\b", text)`, for a `name` that ends with a letter, digit or `_`, without the
    leading `\\b`: a pattern starting with it has no literal prefix, so `re` tries it at every character (~10 ms on
    generation/utils.py, stored 4 bytes a character); the `\\b` is tested where `def` stands (`\\w` is
    `str.isalnum` or `_`), and a match refused there is searched again from its next character."""
    pattern = re.compile(rf"def\s+{re.escape(name)}\b")  # re's own cache keeps it compiled
    match = pattern.search(text)
    while match is not None:
        i = match.start()
        if i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_"):
            return True
        match = pattern.search(text, i + 1)
    return False
