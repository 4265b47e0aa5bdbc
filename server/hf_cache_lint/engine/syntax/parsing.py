"""parso's incremental parse of an editor buffer, told which lines changed instead of finding them with difflib.

`Grammar.parse(..., diff_cache=True)` hands the kept tree to `parso.python.diff.DiffParser.update`, which runs
`difflib.SequenceMatcher` over the old and the new lines of the whole file to learn which lines changed: ~20 % of
the diff parse of a keystroke on a 100-line script (more on long files), for what a keystroke already says (one
place changed). Here the lines are compared from both ends (a few C-speed list comparisons) and the diff parser
gets one opcode for the changed block between the common head and tail. For one changed block that is what
difflib finds too; where it would pair lines inside a multi-line change, the block is re-parsed as one (a fresh
parse of it): the tree is the same either way (tests/engine/test_parsing.py compares the trees node by node).
Everything else is parso's own `Grammar.parse` (parso 0.8): the same kept tree and cache entry (`parser_cache`,
keyed by the path as a `Path`, which jedi and engine/interpreter/replay.py read), the same diff parser.

Process-wide, at import: this module replaces parso's `Leaf.end_pos` and `BaseNode.end_pos` properties (for every
parso user in the process, jedi included) with ones that give the same answers faster (the comment above
`_leaf_end_pos` says why: ~10 % of a keystroke's diff parse). Only when parso's own getters are the code they were
written against (the check beside the assignment; any other parso keeps its own). Test: tests/engine/test_parsing.py
`test_end_pos_is_parsos_for_every_node_and_leaf` compares both over the corpus, node by node. The process's other
state is named in engine/base/process_state.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from parso import tree as parso_tree
from parso.cache import parser_cache, try_to_save_module
from parso.file_io import KnownContentFileIO
from parso.python.diff import DiffParser
from parso.utils import python_bytes_to_unicode, split_lines

from hf_cache_lint.engine.base import process_state
from hf_cache_lint.engine.syntax import splice
from hf_cache_lint.engine.syntax.line_map import LineMap
from hf_cache_lint.engine.syntax.splice import splice_statement

Opcode = tuple[str, int, int, int, int]

# parso 0.8's `Leaf.end_pos` splits the leaf's value with a regex (`split_lines`) every time it is read, and
# `BaseNode.end_pos` asks its last child, one property call per level down to the last leaf. The diff parser
# reads them for every statement it copies or looks up (`get_leaf_for_position`'s binary search, `_get_last_line`),
# the interpreter for every span: ~10 % of a keystroke's diff parse on the 100-line script. The same answers,
# without the split where the value holds no line break (`split_lines` splits only at \n, \r\n and \r) and
# without the recursion (no node class overrides `end_pos`; parso's name, keyword and operator leaves have their
# own, which stays). tests/engine/test_parsing.py compares both with parso's over the corpus.
_PARSO_LEAF_END_POS: Any = parso_tree.Leaf.__dict__["end_pos"]  # the properties themselves
_PARSO_NODE_END_POS: Any = parso_tree.BaseNode.__dict__["end_pos"]
_split_end_pos = _PARSO_LEAF_END_POS.fget


def _leaf_end_pos(self: Any) -> tuple[int, int]:
    value = self.value
    if value == "\n":  # every statement's last leaf
        return self.line + 1, 0
    if "\n" in value or "\r" in value:
        return _split_end_pos(self)  # type: ignore[no-any-return]
    return self.line, self.column + len(value)


def _node_end_pos(self: Any) -> tuple[int, int]:
    node = self.children[-1]
    try:
        while True:
            node = node.children[-1]
    except AttributeError:  # a leaf
        return node.end_pos  # type: ignore[no-any-return]


# Only over parso's own definitions as read above (another parso version may define them otherwise).
if _split_end_pos.__code__.co_names[:1] == ("split_lines",) and \
        _PARSO_NODE_END_POS.fget.__code__.co_names == ("children", "end_pos"):
    parso_tree.Leaf.end_pos = property(_leaf_end_pos)  # type: ignore[method-assign,assignment]
    parso_tree.BaseNode.end_pos = property(_node_end_pos)  # type: ignore[method-assign,assignment]

# Lines compared per step when looking for the first and last changed line: a slice comparison runs in C.
_STEP = 64


def _head(old: list[str], new: list[str], limit: int) -> int:
    """How many lines old and new share at their start (at most `limit`)."""
    n = 0
    while n + _STEP <= limit and old[n:n + _STEP] == new[n:n + _STEP]:
        n += _STEP
    while n < limit and old[n] == new[n]:
        n += 1
    return n


def _tail(old: list[str], new: list[str], limit: int) -> int:
    """How many lines old and new share at their end (at most `limit`)."""
    n_old, n_new = len(old), len(new)
    n = 0
    while n + _STEP <= limit and old[n_old - n - _STEP:n_old - n] == new[n_new - n - _STEP:n_new - n]:
        n += _STEP
    while n < limit and old[n_old - n - 1] == new[n_new - n - 1]:
        n += 1
    return n


def opcodes(old: list[str], new: list[str]) -> list[Opcode]:
    """difflib's `get_opcodes` form: the common head, the changed block between, the common tail."""
    n_old, n_new = len(old), len(new)
    head = _head(old, new, min(n_old, n_new))
    tail = _tail(old, new, min(n_old, n_new) - head)
    out: list[Opcode] = []
    if head:
        out.append(("equal", 0, head, 0, head))
    i2, j2 = n_old - tail, n_new - tail
    if head < i2 or head < j2:
        tag = "replace" if head < i2 and head < j2 else "delete" if head < i2 else "insert"
        out.append((tag, head, i2, head, j2))
    if tail:
        out.append(("equal", i2, n_old, j2, n_new))
    return out


class _KnownChangeDiffParser(DiffParser):
    """parso 0.8's `DiffParser.update` with the opcodes given (its own loop, without difflib and debug code)."""

    def update_with(self, old_lines: list[str], new_lines: list[str], ops: list[Opcode]) -> Any:
        self._module._used_names = None  # regenerated on demand, as in `update`
        self._parser_lines_new = new_lines
        self._reset()  # type: ignore[no-untyped-call]
        line_length = len(new_lines)
        for operation, i1, i2, j1, j2 in ops:
            if j2 == line_length and new_lines[-1] == "":
                j2 -= 1  # the empty part after the last newline is not relevant
            if operation == "equal":
                self._copy_from_old_parser(j1 - i1, i1 + 1, i2, j2)  # type: ignore[no-untyped-call]
            elif operation in ("replace", "insert"):
                self._parse(until_line=j2)  # type: ignore[no-untyped-call]
        self._nodes_tree.close()  # type: ignore[no-untyped-call]
        if self._module.end_pos[0] != line_length:  # parso's own consistency check; the caller parses afresh
            raise ValueError(f"diff parse ended at line {self._module.end_pos[0]}, not {line_length}")
        return self._module


def _one_line_changed(ops: list[Opcode]) -> int | None:
    """The index of the one line a same-length edit replaced, if that is all the opcodes say."""
    changed = [op for op in ops if op[0] != "equal"]
    if len(changed) == 1 and changed[0][0] == "replace" and changed[0][2] - changed[0][1] == 1 == \
            changed[0][4] - changed[0][3]:
        return changed[0][1]
    return None


def _block_changed(ops: list[Opcode]) -> tuple[int, int, int] | None:
    """The first and last old row of the one changed block of lines and how many rows it gained (negative: lost),
    when lines were added or removed there; an insertion or a deletion is widened by the unchanged row before it
    (a statement must hold the changed rows)."""
    changed = [op for op in ops if op[0] != "equal"]
    if len(changed) != 1:
        return None
    _, i1, i2, j1, j2 = changed[0]
    if i1 == i2 or j1 == j2:
        if i1 == 0 or j1 == 0:
            return None
        i1, j1 = i1 - 1, j1 - 1
    return i1, i2 - 1, (j2 - j1) - (i2 - i1)


def _rows_changed(ops: list[Opcode]) -> tuple[int, int] | None:
    """The first and last row of the one changed block, when it replaces as many lines as it had."""
    changed = [op for op in ops if op[0] != "equal"]
    if len(changed) == 1 and changed[0][0] == "replace" and changed[0][2] - changed[0][1] == \
            changed[0][4] - changed[0][3]:
        return changed[0][1], changed[0][2] - 1
    return None


# The characters parso's tokenizer takes for indentation (its prefix whitespace before a line's first token).
_INDENTATION = " \t\x0c"
# A line's first character after its indentation that cannot start a statement's first token there (a comment,
# a continuation, a line break) or that the tokenizer treats apart at the start of a text (a byte order mark).
_NOT_A_START = frozenset("#\\\r\n\ufeff") | frozenset(_INDENTATION)


def splice_line(grammar: Any, module: Any, old_lines: list[str], new_lines: list[str], row: int) -> bool:
    """An edit inside one line that holds one logical line (a simple statement, or what error recovery made of
    one) in the kept tree `module`: the nodes of that line replaced in place by a parse of the new line alone.
    False, with the tree untouched, where that is not provably what a whole parse of the new text gives; the
    caller then runs the diff parser.

    Why the trees are the same. The tokenizer starts the line in the same state in both texts (the same lines
    before it; the line starts a statement: no bracket, string or f-string open, and the previous statement, a
    sibling in the same block, ended with a NEWLINE) and tokenizes a line by itself after its first token's
    INDENT/DEDENT, which the unchanged indentation decides alike; when the new line ends with a NEWLINE token,
    no bracket, string or f-string stays open, so the lines after tokenize as before. The parser meets the line's
    first token in the same state in both texts (the same tokens before; the previous sibling, a finished simple
    statement, left nothing pending), a block expecting another statement, as `file_input` does when the line is
    parsed alone: a statement parses the same in either, and parso's error recovery only turns what is above the
    block into error nodes and leaves of the block (the block has a statement already, so it stops there) the
    same way in both (a NEWLINE is a statement of its own in parso's grammar, in a block as in a file). When the
    line's last node is a finished simple statement (or that NEWLINE), nothing is pending after it either, so the
    rest of the file parses as before: the kept nodes are a whole parse's. tests/engine/test_parsing.py compares
    the trees with a whole parse over many random edits."""
    old, new = old_lines[row], new_lines[row]
    content = old.rstrip("\r\n")
    ending = old[len(content):]
    if not ending or not new.endswith(ending) or len(new) == len(ending):
        return False
    new_content = new[:-len(ending)]
    if "\r" in new_content or "\n" in new_content or "\ufeff" in new or new_content.rstrip().endswith("\\"):
        return False
    indent = len(content) - len(content.lstrip(_INDENTATION))
    if indent >= len(content) or content[indent] in _NOT_A_START or new_content[:indent] != content[:indent] or \
            indent >= len(new_content) or new_content[indent] in _NOT_A_START:
        return False
    line = row + 1
    # The kept nodes of the line: the children of one block that start on it, the last one a simple statement
    # (or a NEWLINE) ending with the line's own line break, right after a finished simple statement.
    try:
        first = module.get_leaf_for_position((line, indent), include_prefixes=True)
    except ValueError:
        return False
    while first is not None and first.start_pos < (line, indent):
        first = first.get_next_leaf()
    if first is None or first.start_pos != (line, indent) or not first.value or first.type == "endmarker":
        return False
    before = first.get_previous_leaf()
    if before is None or before.type != "newline":
        return False
    node = first
    while node.parent.type not in ("suite", "file_input"):
        node = node.parent
    block = node.parent
    kids = block.children
    i = next(k for k, kid in enumerate(kids) if kid is node)
    # In a suite, children[0] is the NEWLINE after its colon: a statement must come before this line's.
    if i < (2 if block.type == "suite" else 1) or not _ends_a_statement(kids[i - 1], before):
        return False
    j = i
    while j < len(kids) and kids[j].start_pos[0] == line:
        j += 1
    if not _ends_line(kids[j - 1], line, len(content), ending):
        return False
    alone = grammar.parse(new[indent:], error_recovery=True)
    parts = alone.children
    end = parts[-1]
    if len(parts) < 2 or end.type != "endmarker" or end.prefix or end.start_pos != (2, 0) or \
            not _ends_line(parts[-2], 1, len(new_content) - indent, ending):
        return False
    parts = parts[:-1]
    todo = list(parts)
    while todo:  # onto the line, after the indentation
        n = todo.pop()
        kids_of = getattr(n, "children", None)
        if kids_of is not None:
            todo.extend(kids_of)
        else:
            n.line = line
            n.column += indent
    parts[0].get_first_leaf().prefix = first.prefix
    splice.changed(block)
    # A new list, as the diff parser gives every block it rebuilds (the old one stays as it was for whoever holds it).
    block.children = kids[:i] + parts + kids[j:]
    for n in parts:
        n.parent = block
    module._used_names = None  # regenerated on demand, as the diff parser leaves it
    return True


def _ends_a_statement(node: Any, last_leaf: Any) -> bool:
    """A finished simple statement (or parso's NEWLINE statement) whose last leaf is `last_leaf`."""
    return node.type in ("simple_stmt", "newline") and node.get_last_leaf() is last_leaf


def _ends_line(node: Any, line: int, column: int, ending: str) -> bool:
    """A simple statement (or NEWLINE statement) ending with the line break `ending` of `line` at `column`."""
    if node.type not in ("simple_stmt", "newline"):
        return False
    last = node.get_last_leaf()
    return last.type == "newline" and last.value == ending and last.start_pos == (line, column)  # type: ignore[no-any-return]


# Per kept tree (its key): how many of its updates changed the line count, the first line (of the text after the
# last one) from which nodes may stand elsewhere than before it, and where the last one moved the old text's lines
# (engine/syntax/line_map.py). A splice that adds or removes lines moves the nodes after the statement, keeping
# their objects (the diff parser may keep some too): what was recorded of where such a node stood
# (engine/interpreter/replay.py) is moved through this.
_MOVES: dict[str, tuple[int, int, LineMap | None]] = {}


def moves(key: str) -> tuple[int, int]:
    """(updates of the kept tree of `key` that changed its line count, the first line the last one may have moved)."""
    count, first, _ = _MOVES.get(key, (0, 1, None))
    return count, first


def last_map(key: str) -> LineMap | None:
    """Where the last update of the kept tree of `key` that changed its line count moved the lines (old -> new)."""
    return _MOVES.get(key, (0, 1, None))[2]


def line_map(ops: list[Opcode]) -> LineMap:
    """The lines' moves the opcodes (`opcodes`: a common head, one changed block, a common tail) say."""
    n_old, n_new = ops[-1][2], ops[-1][4]
    head = ops[0][2] if ops[0][0] == "equal" else 0
    changed = [op for op in ops if op[0] != "equal"]
    return LineMap(head, changed[0][2] if changed else head, n_new - n_old)


def forget_moves() -> None:
    _MOVES.clear()


def lines_of(code: str) -> list[str]:
    """parso's `split_lines(code, keepends=True)`: the lines ending at `\n`, `\r\n` or `\r` (a form feed and the
    other breaks `str.splitlines` knows are text), an empty one after a final break. Without a `\r`, cut at `\n`
    in C: parso's own loop over every line to merge what `splitlines` broke at form feeds cost ~1 ms a keystroke
    on transformers' generation/utils.py. tests/engine/test_parsing.py compares both."""
    if "\r" in code:
        return split_lines(code, keepends=True)
    parts = code.split("\n")
    last = parts[-1]
    lines = [p + "\n" for p in parts]
    lines[-1] = last
    return lines


def incremental_parse(grammar: Any, text: str, key: str, lines: list[str] | None = None) -> Any:
    """What `grammar.parse(text, error_recovery=True, path=key, diff_cache=True, cache=False)` returns, parso's kept
    tree of `key` updated in place. Raises what the diff parser raises (the caller then parses afresh).
    `lines`: the text's `lines_of`, where the caller has them already (not changed here, nor by parso)."""
    path = Path(key)
    code = python_bytes_to_unicode(text)
    if lines is None:
        lines = lines_of(code)
    item = parser_cache.get(grammar._hashed, {}).get(path)
    if item is None:  # the buffer's first parse: a whole one, kept for the next
        return grammar.parse(text, error_recovery=True, path=key, diff_cache=True, cache=False)
    if item.lines == lines:
        return item.node
    ops = opcodes(item.lines, lines)
    if len(item.lines) != len(lines):
        count, _ = moves(key)
        _MOVES[key] = count + 1, (ops[0][2] if ops[0][0] == "equal" else 0) + 1, line_map(ops)
    # A keystroke inside one line: that line's nodes re-parsed alone where that is provably a whole parse's tree
    # (splice_line); the diff parser's copy of every other statement cost more than its parse of the line.
    row = _one_line_changed(ops) if len(item.lines) == len(lines) else None
    rows = _rows_changed(ops) if len(item.lines) == len(lines) else _block_changed(ops)
    if row is not None and splice_line(grammar, item.node, item.lines, lines, row):
        node = item.node
    elif rows is not None and splice_statement(grammar, item.node, item.lines, lines, *rows):
        # The one statement holding the edit re-parsed alone, the leaves after it moved when lines were added or
        # removed (engine/syntax/splice.py).
        node = item.node
    else:
        splice.forget_leaves(item.node)  # the diff parser may change what is under any node
        differ = _KnownChangeDiffParser(grammar._pgen_grammar, grammar._tokenizer, item.node)  # type: ignore[no-untyped-call]
        node = differ.update_with(item.lines, lines, ops)
    file_io = KnownContentFileIO(path, code)  # type: ignore[no-untyped-call]
    try_to_save_module(grammar._hashed, file_io, node, lines, pickling=False)  # type: ignore[no-untyped-call]
    return node


def forget(grammar: Any, key: str, unlink: bool = False) -> None:
    """Drop the kept tree of `key` (parso keys it by the path as a `Path`). `unlink`: nothing reads that tree
    again (a whole file's check is over), so its cycles are broken here (`unlink`)."""
    kept = parser_cache.get(grammar._hashed, {})
    items = (kept.pop(Path(key), None), kept.pop(key, None))
    _MOVES.pop(key, None)
    for item in items:
        if item is not None:
            splice.forget_leaves(item.node)
    if unlink:
        for item in items:
            if item is not None:
                unlink_tree(item.node)


def unlink_tree(node: Any) -> None:
    """Empty the `children` of every inner node of a parse tree nothing will read again: a node knows its parent, so
    the tree is one cycle that only the cyclic collector frees, after tracing all of it (a check of transformers'
    tree collected ~1.5 M such objects, ~6 % of its CPU); without the downward links each node is freed by its
    reference count as soon as the last reference to it goes (generation/utils.py: 5.7 ms here and none left for
    the collector, against 8.5-16 ms of a young collection). Leaves and nodes held elsewhere stay valid objects,
    only without their children."""
    if getattr(node, "_used_names", None) is not None:  # parso's Module: its names' leaves, another way back up
        node._used_names = None
    stack = [node]
    pop, push = stack.pop, stack.append
    while stack:
        children = pop().children
        for child in children:
            if isinstance(child, parso_tree.BaseNode):
                push(child)
        children.clear()


process_state.resettable("engine/syntax/parsing.py", "_MOVES", forget_moves)
