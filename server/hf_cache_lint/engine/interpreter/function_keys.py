"""A function's identity across checks of an editor buffer (engine/interpreter/replay.py): where it starts and
its code, cut from the buffer's text."""

from __future__ import annotations

from itertools import accumulate
from pathlib import Path

import parso.cache

from hf_cache_lint.engine.base import process_state
from hf_cache_lint.engine.syntax import grammar_table
from hf_cache_lint.engine.syntax.nodes import Node, end_pos
from hf_cache_lint.engine.text.text import kept_lines, shared_ends

# parso's grammar: its `_hashed` keys parso's parser_cache, as that of engine/interpreter/interp.py's copy (engine/syntax/fast_parser.py)
# does, so the buffer's kept tree is found under it.
_GRAMMAR = grammar_table.load()  # parso.load_grammar(), its tables read rather than regenerated

Key = tuple[tuple[int, int], str]  # a function or class: where it starts, and its code


class Source:
    """The code of the nodes of a tree parsed from `text`, as slices of it (parso is lossless: a node's code is
    the text between its positions; rendering it from the leaves cost as much as running a small function).

    `before`: the last check's Source of the same buffer, whose keys are carried over the edit (`_carried`): a node
    whose text lies wholly in the lines the two texts share at either end has the key it had, the same objects (no
    slice of the text; the code's hash already computed, and compared with what the last checks recorded by
    identity): on generation/utils.py the keys of ~100 functions, ~1 MB of a text stored 4 bytes a character, were
    cut, hashed and compared again at every keystroke."""

    def __init__(self, text: str, lines: list[str], before: Source | None = None) -> None:
        self.text = text
        self.lines = lines
        self.offsets = [0, *accumulate(map(len, lines))]  # where each line starts (parso's line breaks)
        # Per node (id), once per check: the tree does not change while it is analysed, and a node's
        # positions cost a walk to its first and last leaves (asked for each function, then for each body a
        # replay compares). By id(): parso's leaves hash by their text; the tree outlives the check.
        self._keys: dict[int, Key] = {}
        # The keys made in this check by place (first line, column, last line, column): what the next check carries.
        self._placed: dict[tuple[int, int, int, int], Key] = {}
        self._before = before
        self._shared: tuple[int, int, int] | None = None  # shared head, tail (characters), lines added since before

    def key(self, node: Node) -> Key:
        """A function's identity across checks: where it starts and its code (parso's diff parser keeps an
        edited function's node object, so the node alone says nothing)."""
        got = self._keys.get(id(node))
        if got is None:
            (l1, c1), (l2, c2) = node.start_pos, end_pos(node)
            a, b = self.offsets[l1 - 1] + c1, self.offsets[l2 - 1] + c2
            place = (l1, c1, l2, c2)
            got = self._carried(place, a, b) if self._before is not None else None
            if got is None:
                got = (l1, c1), self.text[a:b]
            self._keys[id(node)] = self._placed[place] = got
        return got

    def _carried(self, place: tuple[int, int, int, int], a: int, b: int) -> Key | None:
        """The last check's key of the text at `place` (characters [a, b)), where that text lies wholly in the
        head or the tail the two texts share (whole lines: engine/text/text.py `shared_ends`): the same code, at
        the same place in the head, moved by the lines added in the tail."""
        before = self._before
        assert before is not None
        if self._shared is None:
            head, tail, _, _ = shared_ends(before.lines, self.lines, len(self.text))
            self._shared = head, tail, len(self.lines) - len(before.lines)
        head, tail, added = self._shared
        if b <= head:
            return before._placed.get(place)
        if a >= len(self.text) - tail and added:
            l1, c1, l2, c2 = place
            got = before._placed.get((l1 - added, c1, l2 - added, c2))
            return ((l1, c1), got[1]) if got is not None else None
        if a >= len(self.text) - tail:
            return before._placed.get(place)
        return None


# The last buffer's Source (one: a keystroke checks the buffer the last check checked; another buffer's check
# starts afresh), whose keys the next check of the same path carries over the edit.
_LAST: tuple[str, Source] | None = None


def _forget_last() -> None:
    global _LAST
    _LAST = None


process_state.resettable("engine/interpreter/function_keys.py", "_LAST", _forget_last)


def source_of(tree: Node, text: str, path: str) -> Source | None:
    """A Source when `tree` is parso's incremental tree of `text` for this path (an editor buffer: the only
    tree that is the same object check after check). A whole file's tree is new at every check, and may be a
    skeleton of the text (engine/interpreter/interp.py): none, and nothing is replayed or recorded for it."""
    if not path or path.startswith("<"):
        return None
    item = parso.cache.parser_cache.get(_GRAMMAR._hashed, {}).get(Path(path))
    if item is None or item.node is not tree:
        return None
    if "\r" in text:
        if "".join(item.lines) != text:
            return None
    else:
        # The lines the parse was given (engine/interpreter/interp.py `parse`: kept_lines(text), kept for the last
        # text) are parso's lines of `text`, where it has no `\r`: the same list, or equal lines, is the same text
        # (joining 247,059 characters stored 4 bytes each to compare them cost ~1 ms a keystroke on generation/utils.py).
        lines = kept_lines(text)
        if item.lines is not lines and item.lines != lines:
            return None
    global _LAST
    last = _LAST
    before = last[1] if last is not None and last[0] == path else None
    if before is not None:
        before._before = None  # one check back only: no chain of old texts kept alive
    got = Source(text, item.lines, before)
    _LAST = (path, got)
    return got
