"""What a hook reads from the model inputs transformers' own `prepare_inputs_for_generation` returns to it (called
as `super().prepare_inputs_for_generation(...)` or through a name bound to the model's original hook): the cache
and the position, by key, with whether the hook handed its own `cache_position` on; for hook_signatures.py."""

from __future__ import annotations

from collections.abc import Iterator

from hf_cache_lint.engine.facts.hook_override import HookRead, ReadHow
from hf_cache_lint.engine.interpreter.hook_names import is_trailer
from hf_cache_lint.engine.interpreter.hook_trees import _key_read, walk
from hf_cache_lint.engine.syntax.nodes import Node, code, span, span_between, string_value


def _returned_reads(body: Node) -> Iterator[HookRead]:
    """The cache read by key (`"past_key_values"`) from the model inputs transformers' own
    `prepare_inputs_for_generation` returns, called in the hook `fn` as `super().prepare_inputs_for_generation(...)`
    or through a name bound to `<model>.prepare_inputs_for_generation` (a wrapper's `original`): `inputs[key]`
    (`how` "subscript", or "write" as a store's target), `inputs.get(key)` / `.pop(key)` ("get"), `key in inputs`
    ("in")."""
    originals = _originals(body)
    results: set[str] = set()
    for node in walk(body):
        if node.type == "expr_stmt" and len(node.children) == 3 and node.children[0].type == "name" and \
                node.children[1].type == "operator" and node.children[1].value == "=" and \
                _calls_original(node.children[2], originals):
            results.add(node.children[0].value)
    if not results:
        return
    handed = _hands_position_on(body)
    # A `cache_position` parameter kept back (not handed on) leaves the returned key None on every release: the
    # override's own doing, not a release's. Without the parameter the position rides in `**kwargs`.
    taken = any(p.star_count == 0 and p.name.value == "cache_position" for p in body.parent.get_params()) \
        if body.parent is not None and body.parent.type == "funcdef" else False
    for node in walk(body):
        if node.type in ("power", "atom_expr") and node.children[0].type == "name" and \
                node.children[0].value in results:
            got = _key_read(node)
            if got is not None and got[0] == "cache_position":
                if handed or not taken:
                    yield from _returned_position(node, got, handed)
                continue
            if got is None or got[0] != "past_key_values":
                continue
            key, how, end = got
            if how == "subscript" and _stored(node):
                how = "write"
            yield HookRead(key, how, span_between(node.children[0], end),
                           "".join(code(k) for k in node.children[:node.children.index(end) + 1]),
                           node.children[0].value, returned=True)
        elif node.type == "comparison" and len(node.children) == 3 and string_value(node.children[0]) == \
                "past_key_values" and code(node.children[1]).strip() in ("in", "not in") and \
                node.children[2].type == "name" and node.children[2].value in results:
            yield HookRead("past_key_values", "in", span(node), code(node), node.children[2].value, returned=True)


def _returned_position(node: Node, got: tuple[str, ReadHow, Node], handed: bool) -> Iterator[HookRead]:
    """`inputs["cache_position"]` read from the model inputs transformers' own hook returned. From the release that
    stops passing positions (5.4) the key is absent (`inputs["cache_position"]`: KeyError, `.get`: None), unless the
    hook hands its own `cache_position` parameter on by name (LiveCC's `cache_position=cache_position`): then the
    key holds that None, and only using it (`inputs["cache_position"][0]`, `.shape`) raises (`entry_none`, the span
    running to the use). The oracle: tests/oracle (HFC011's examples), 4.57.6-5.25.0."""
    _, how, end = got
    kids = node.children
    if _stored(node) or (how == "get" and handed):
        return  # a store, or a None read silently either way
    at = kids.index(end)
    if handed:
        after = kids[at + 1] if at + 1 < len(kids) else None
        if after is None or not (is_trailer(after, "[") or is_trailer(after, ".")) or how != "subscript":
            return  # the None itself, handed on or tested: nothing raises
        how, end, at = ("subscript" if is_trailer(after, "[") else "get"), after, at + 1
    yield HookRead("cache_position", how, span_between(kids[0], end), "".join(code(k) for k in kids[:at + 1]),
                   kids[0].value, returned=True, entry_none=handed)


def _hands_position_on(body: Node) -> bool:
    """The body hands `cache_position=cache_position` to transformers' own hook (its parameter, by name)."""
    for node in walk(body):
        if node.type == "argument" and len(node.children) == 3 and \
                getattr(node.children[0], "value", None) == "cache_position" and \
                code(node.children[2]).strip() == "cache_position":
            return True
    return False


def _originals(body: Node) -> set[str]:
    """The names the module binds to `<x>.prepare_inputs_for_generation` (the hook transformers had before the code
    replaced it: `original = model.prepare_inputs_for_generation`)."""
    module = body
    while module.parent is not None:
        module = module.parent
    out: set[str] = set()
    for node in walk(module):
        if node.type == "expr_stmt" and len(node.children) == 3 and node.children[0].type == "name":
            value = node.children[2]
            if value.type in ("power", "atom_expr") and \
                    is_trailer(value.children[-1], ".", "prepare_inputs_for_generation"):
                out.add(node.children[0].value)
    return out


def _calls_original(value: Node, originals: set[str]) -> bool:
    """`original(...)` (a name of `originals`) or `super().prepare_inputs_for_generation(...)`."""
    kids = value.children if value.type in ("power", "atom_expr") else []
    if len(kids) == 2 and kids[0].type == "name" and kids[0].value in originals and is_trailer(kids[1], "("):
        return True
    return len(kids) == 4 and code(kids[0]) == "super" and is_trailer(kids[2], ".", "prepare_inputs_for_generation") \
        and is_trailer(kids[3], "(")


def _stored(node: Node) -> bool:
    """`node` is the target of an assignment (`inputs["past_key_values"] = cache`)."""
    parent = node.parent
    return parent is not None and parent.type == "expr_stmt" and parent.children[0] is node and \
        len(parent.children) >= 3 and parent.children[1].type == "operator" and parent.children[1].value == "="
