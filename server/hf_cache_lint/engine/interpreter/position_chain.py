"""Whether positions sent to a forward (`model(..., past_key_values=c, cache_position=p)`) are the cache's own
length by what the code says: literal positions that begin where the literal positions of the forward on the same
cache in the statement right before end, that one's beginning at 0 or continuing the same way (ExecuTorch's
`model(prompt, past_key_values=cache, cache_position=torch.arange(5))` then `model(token, past_key_values=cache,
cache_position=torch.tensor([5]))`). From 5.4 a forward writes at the cache's own length and ignores the positions:
for a chain like this one that length is those positions, so nothing changes (the oracle: the same cache length and
logits on 4.57.6, 5.23.0, 5.24.0 and 5.25.0, HFC011's examples). A rollback (`torch.tensor([5])` twice, positions
from a variable) is no such chain. Read by hooks.py for HFC011."""

from __future__ import annotations

from collections.abc import Container, Iterator

from hf_cache_lint.engine.interpreter.hook_names import is_trailer
from hf_cache_lint.engine.interpreter.hook_trees import walk
from hf_cache_lint.engine.syntax.nodes import Node, call_args

_POSITIONS = frozenset({"arange", "tensor", "LongTensor"})
_OPTIONS = frozenset({"device", "dtype"})


def continues(call: Node, models: Container[str]) -> bool:
    """Whether the forward `call` (an `atom_expr` `model(...)`) sends literal positions that continue the literal
    positions, from 0, of the forward on the same cache name in the statement right before its own."""
    own = _forward(call, models)
    if own is None:
        return False
    cache, (start, _) = own
    previous = _statement_before(call)
    while previous is not None:
        before = [f for f in (_forward(n, models) for n in walk(previous)) if f is not None and f[0] == cache]
        if len(before) != 1:
            return False
        first, end = before[0][1]
        if end != start:
            return False
        if first == 0:
            return True
        start = first
        previous = _statement_before(previous)
    return False


def _forward(node: Node, models: Container[str]) -> tuple[str, tuple[int, int]] | None:
    """`model(..., past_key_values=<name>, cache_position=<literal positions>)`: the cache's name and the positions
    as `[start, end)`."""
    kids = getattr(node, "children", None)
    if node.type != "atom_expr" or not kids or kids[0].type != "name" or kids[0].value not in models:
        return None
    at = 1 if is_trailer(kids[1], "(") else 2 if len(kids) > 2 and is_trailer(kids[1], ".", "forward") and \
        is_trailer(kids[2], "(") else 0
    if not at or len(kids) != at + 1:
        return None
    cache: str | None = None
    positions: tuple[int, int] | None = None
    for a in call_args(kids[at]):
        if a.name == "past_key_values" and a.value.type == "name":
            cache = a.value.value
        elif a.name == "cache_position":
            positions = _literal(a.value)
    return (cache, positions) if cache is not None and positions is not None else None


def _literal(node: Node) -> tuple[int, int] | None:
    """`torch.arange(n)`, `torch.arange(a, b)`, `torch.tensor([k, k + 1, ...])` (`LongTensor`), each int a literal,
    as `[start, end)`."""
    kids = getattr(node, "children", None)
    if node.type != "atom_expr" or not kids or not is_trailer(kids[-1], "("):
        return None
    name = kids[-2].children[1].value if len(kids) >= 2 and is_trailer(kids[-2], ".") else kids[0].value \
        if len(kids) == 2 and kids[0].type == "name" else None
    if name not in _POSITIONS or (len(kids) == 3 and (kids[0].type != "name" or kids[0].value != "torch")) or \
            len(kids) > 3:
        return None
    args = call_args(kids[-1])
    plain = [a for a in args if a.name is None and not a.star]
    if any(a.star or (a.name is not None and a.name not in _OPTIONS) for a in args):
        return None
    if name == "arange":
        ints = [_int(a.value) for a in plain]
        if len(ints) == 1 and ints[0] is not None:
            return (0, ints[0])
        if len(ints) == 2 and ints[0] is not None and ints[1] is not None:
            return (ints[0], ints[1])
        return None
    if len(plain) != 1 or plain[0].value.type != "atom" or plain[0].value.children[0].value != "[":
        return None
    values = list(_list_ints(plain[0].value))
    if not values or any(v is None for v in values):
        return None
    ints_ = [v for v in values if v is not None]
    if ints_ != list(range(ints_[0], ints_[0] + len(ints_))):
        return None
    return (ints_[0], ints_[0] + len(ints_))


def _list_ints(atom: Node) -> Iterator[int | None]:
    inner = atom.children[1] if len(atom.children) == 3 else None
    if inner is None:
        return
    items = [c for c in inner.children if c.type != "operator"] if inner.type == "testlist_comp" else [inner]
    for item in items:
        yield _int(item)


def _int(node: Node) -> int | None:
    if node.type == "number" and node.value.isdigit():
        return int(node.value)
    return None


def _statement_before(node: Node) -> Node | None:
    """The statement right before the one holding `node`, in the same block (None for the block's first)."""
    line: Node | None = node
    while line is not None and line.type != "simple_stmt":
        line = line.parent
    if line is None:
        return None
    block = line.parent
    if block is None or len([c for c in line.children if c.type not in ("newline", "operator")]) != 1:
        return None
    siblings = [c for c in block.children if c.type not in ("newline", "indent", "dedent", "operator")]
    i = next((j for j, c in enumerate(siblings) if c is line), 0)
    return siblings[i - 1] if i > 0 and siblings[i - 1].type == "simple_stmt" else None
