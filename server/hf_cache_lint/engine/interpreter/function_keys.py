"""A function's identity across checks of an editor buffer (engine/interpreter/replay.py): where it starts and
its code, cut from the buffer's text."""

from __future__ import annotations

from itertools import accumulate
from pathlib import Path

import parso.cache

from hf_cache_lint.engine.syntax import grammar_table
from hf_cache_lint.engine.syntax.nodes import Node, end_pos

# parso's grammar: its `_hashed` keys parso's parser_cache, as that of engine/interpreter/interp.py's copy (engine/syntax/fast_parser.py)
# does, so the buffer's kept tree is found under it.
_GRAMMAR = grammar_table.load()  # parso.load_grammar(), its tables read rather than regenerated

Key = tuple[tuple[int, int], str]  # a function or class: where it starts, and its code


class Source:
    """The code of the nodes of a tree parsed from `text`, as slices of it (parso is lossless: a node's code is
    the text between its positions; rendering it from the leaves cost as much as running a small function)."""

    def __init__(self, text: str, lines: list[str]) -> None:
        self.text = text
        self.offsets = [0, *accumulate(map(len, lines))]  # where each line starts (parso's line breaks)
        # Per node (id), once per check: the tree does not change while it is analysed, and a node's
        # positions cost a walk to its first and last leaves (asked for each function, then for each body a
        # replay compares). By id(): parso's leaves hash by their text; the tree outlives the check.
        self._keys: dict[int, Key] = {}

    def key(self, node: Node) -> Key:
        """A function's identity across checks: where it starts and its code (parso's diff parser keeps an
        edited function's node object, so the node alone says nothing)."""
        got = self._keys.get(id(node))
        if got is None:
            (l1, c1), (l2, c2) = node.start_pos, end_pos(node)
            got = self._keys[id(node)] = (l1, c1), self.text[self.offsets[l1 - 1] + c1:self.offsets[l2 - 1] + c2]
        return got


def source_of(tree: Node, text: str, path: str) -> Source | None:
    """A Source when `tree` is parso's incremental tree of `text` for this path (an editor buffer: the only
    tree that is the same object check after check). A whole file's tree is new at every check, and may be a
    skeleton of the text (engine/interpreter/interp.py): none, and nothing is replayed or recorded for it."""
    if not path or path.startswith("<"):
        return None
    item = parso.cache.parser_cache.get(_GRAMMAR._hashed, {}).get(Path(path))
    if item is None or item.node is not tree or "".join(item.lines) != text:
        return None
    return Source(text, item.lines)
