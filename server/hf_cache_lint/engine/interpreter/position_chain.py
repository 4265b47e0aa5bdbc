"""Whether positions sent to a forward (`model(..., past_key_values=c, cache_position=p)`) are the cache's own
length by what the code says: literal positions that begin where the literal positions of the forward on the same
cache in the statement right before end, that one's beginning at 0 or continuing the same way (ExecuTorch's
`model(prompt, past_key_values=cache, cache_position=torch.arange(5))` then `model(token, past_key_values=cache,
cache_position=torch.tensor([5]))`). From 5.4 a forward writes at the cache's own length and ignores the positions:
for a chain like this one that length is those positions, so nothing changes (the oracle: the same cache length and
logits on 4.57.6, 5.23.0, 5.24.0 and 5.25.0, HFC011's examples). A rollback (`torch.tensor([5])` twice, positions
from a variable) is no such chain. Read by hooks.py for HFC011."""

from __future__ import annotations

from collections.abc import Container, Iterator, Mapping

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


def advanced(call: Node, functions: Mapping[str, Node], calls: list[Node]) -> bool:
    """Whether the forward `call` sends `cache_position=<name>` where the name only ever holds positions that
    start at 0 or advance step by step, by what the function sending them says: every binding of it there is
    `torch.arange(n)` (a prefill's positions, from 0), `torch.tensor([...])` or `+= <int literal>`, and a
    `torch.tensor` binding comes with a `+=` in a loop (SPQR's static decode: `cache_position = torch.arange(
    seq_len)` for the prefill, then `torch.tensor([seq_len])` and `cache_position += 1` after each one-token step).
    A parameter holds such positions where every call of its function in the module (at least one) passes a name
    that does in the caller. From 5.4 a forward writes at the cache's own length, which such positions are (the
    oracle: `facts:advanced_positions_are_the_length`); a rollback re-sends positions (`pos = torch.tensor([p])`
    with `p` given twice: recall's static_rollback.py) and has no `+=`."""
    kids = call.children
    at = 1 if is_trailer(kids[1], "(") else 2
    for a in call_args(kids[at]):
        if a.name == "cache_position" and a.value.type == "name":
            return _advanced_name(a.value.value, _function_of(call), functions, calls, 1)
    return False


def _function_of(node: Node) -> Node | None:
    fn: Node | None = node.parent
    while fn is not None and fn.type != "funcdef":
        fn = fn.parent
    return fn


def _advanced_name(name: str, fn: Node | None, functions: Mapping[str, Node], calls: list[Node], depth: int) -> bool:
    if fn is None:
        return False
    bindings = list(_bindings(fn.children[-1], name, False))
    if bindings:
        kinds = {kind for kind, _ in bindings}
        if "other" in kinds or "value" in kinds:
            return False
        return "tensor" not in kinds or any(kind == "advance" and looped for kind, looped in bindings)
    params = [p.name.value for p in fn.get_params() if p.star_count == 0]
    if name not in params or depth <= 0:
        return False
    index, fname, found = params.index(name), fn.children[1].value, False
    if functions.get(fname) is not fn:
        return False
    for node in calls:
        if len(node.children) != 2 or node.children[0].type != "name" or node.children[0].value != fname or \
                not is_trailer(node.children[1], "("):
            continue
        args = call_args(node.children[1])
        given = next((a.value for a in args if a.name == name), None)
        plain = [a for a in args if a.name is None and not a.star]
        if given is None and index < len(plain) and not any(a.star for a in args[:index + 1]):
            given = plain[index].value
        if given is None or not _advanced_value(given, _function_of(node), functions, calls, depth - 1):
            return False
        found = True
    return found


def _advanced_value(given: Node, fn: Node | None, functions: Mapping[str, Node], calls: list[Node],
                    depth: int) -> bool:
    """What a caller hands the sending function: a name holding such positions; `torch.tensor([p])` with `p` an
    int the caller only advances the same way (`position += 1` after each step); or a chunk `name[start:end]` of
    positions from 0 (`torch.arange(seq_length)`) where `start` counts up from 0 in a loop (`for start in range(0,
    seq_length, chunk)`: ktransformers' chunked prefill)."""
    if given.type == "name":
        return _advanced_name(given.value, fn, functions, calls, depth)
    kids = given.children if given.type in ("atom_expr", "power") else []
    if _tensor(given):
        inner = call_args(kids[2])[0].value.children
        if len(inner) != 3 or inner[1].type != "name" or fn is None:
            return False
        steps = list(_bindings(fn.children[-1], inner[1].value, False))
        # `position = seq_length` once, then `position += 1` in the loop: an int counting up by steps
        return [kind for kind, _ in steps].count("value") == 1 and \
            all(kind == "value" or (kind == "advance" and looped) for kind, looped in steps) and \
            any(kind == "advance" for kind, _ in steps)
    if len(kids) == 2 and kids[0].type == "name" and is_trailer(kids[1], "[") and fn is not None:
        sliced = kids[1].children[1]
        start = sliced.children[0] if sliced.type == "subscript" and sliced.children[0].type == "name" else None
        kinds = {kind for kind, _ in _bindings(fn.children[-1], kids[0].value, False)}
        return start is not None and kinds == {"zero"} and _counts_from_zero(start.value, fn)
    return False


def _counts_from_zero(name: str, fn: Node) -> bool:
    """`name` is bound in `fn` only as the target of `for name in range(n)` / `range(0, n[, step])`."""
    loops = [n for n in walk(fn.children[-1]) if n.type == "for_stmt" and n.children[1].type == "name" and
             n.children[1].value == name]
    if len(loops) != 1 or any(kind != "other" for kind, _ in _bindings(fn.children[-1], name, False)):
        return False
    source = loops[0].children[3]
    kids = source.children if source.type in ("atom_expr", "power") else []
    if len(kids) != 2 or kids[0].type != "name" or kids[0].value != "range" or not is_trailer(kids[1], "("):
        return False
    args = call_args(kids[1])
    return len(args) == 1 or (len(args) in (2, 3) and _int(args[0].value) == 0)


def _bindings(node: Node, name: str, looped: bool) -> Iterator[tuple[str, bool]]:
    """("zero" | "tensor" | "value" (any other `=`) | "advance" | "other", inside a loop) for each binding of `name`
    in a function's body
    (not in its nested functions or classes)."""
    for child in getattr(node, "children", ()):
        t = child.type
        if t in ("funcdef", "classdef", "lambdef"):
            continue
        if t == "expr_stmt" and child.children[0].type == "name" and child.children[0].value == name:
            op = child.children[1]
            value = child.children[-1]
            if op.type == "operator" and op.value == "=" and len(child.children) == 3:
                literal = _literal(value)
                kind = "zero" if literal is not None and literal[0] == 0 else \
                    "zero" if _arange_from_zero(value) else "tensor" if _tensor(value) else "value"
                yield kind, looped
            elif op.type == "operator" and op.value == "+=" and _int(value) is not None:
                yield "advance", looped
            else:
                yield "other", looped
            continue
        if t in ("for_stmt", "while_stmt"):
            if t == "for_stmt" and any(leaf.type == "name" and leaf.value == name for leaf in walk(child.children[1])):
                yield "other", True
            yield from _bindings(child, name, True)
            continue
        if t == "expr_stmt" and child.children[0].type in ("testlist_star_expr", "exprlist", "atom") and \
                any(leaf.type == "name" and leaf.value == name for leaf in walk(child.children[0])):
            yield "other", looped  # `a, p = ...`: unpacked from something else
        if t in ("import_from", "import_name", "namedexpr_test", "with_item", "global_stmt", "nonlocal_stmt") and \
                any(leaf.type == "name" and leaf.value == name for leaf in walk(child)):
            yield "other", looped  # bound some other way (or maybe: `global`): not positions this reader knows
        yield from _bindings(child, name, looped)


def _arange_from_zero(node: Node) -> bool:
    """`torch.arange(n)` (one positional argument, any expression; `dtype=` / `device=` allowed): 0 .. n - 1."""
    kids = getattr(node, "children", None)
    if node.type != "atom_expr" or not kids or len(kids) != 3 or kids[0].type != "name" or \
            kids[0].value != "torch" or not is_trailer(kids[1], ".", "arange") or not is_trailer(kids[2], "("):
        return False
    args = call_args(kids[2])
    plain = [a for a in args if a.name is None and not a.star]
    return len(plain) == 1 and all(a.name in _OPTIONS for a in args if a.name is not None or a.star)


def _tensor(node: Node) -> bool:
    """`torch.tensor([...])` (`LongTensor`): positions given as a list."""
    kids = getattr(node, "children", None)
    if node.type != "atom_expr" or not kids or len(kids) != 3 or kids[0].type != "name" or \
            kids[0].value != "torch" or not is_trailer(kids[1], ".") or \
            kids[1].children[1].value not in ("tensor", "LongTensor") or not is_trailer(kids[2], "("):
        return False
    args = call_args(kids[2])
    return len(args) >= 1 and args[0].name is None and not args[0].star and args[0].value.type == "atom" and \
        args[0].value.children[0].value == "["
