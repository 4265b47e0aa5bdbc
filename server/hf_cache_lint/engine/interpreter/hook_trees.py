"""The tree shapes the hook readers share (hook_signatures.py, hook_returns.py, hooks.py, hook_classes.py,
hook_registrations.py, backbone_generate.py, fixed_forwards.py): every node under one in order (`walk`), a suite's
statements (`suite`), a class's bases as written (`base_items`), a read by key (`x["key"]`, `x.get("key")`:
`_key_read`), and the names bound to one of the cache's old keys (`cache_key_names`)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from hf_cache_lint.engine.facts.hook_override import ReadHow
from hf_cache_lint.engine.interpreter.hook_names import is_trailer
from hf_cache_lint.engine.syntax.nodes import Node, call_args, code, string_value


def walk(node: Node) -> Iterator[Node]:
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(getattr(n, "children", ())))


def base_items(bases: Node) -> list[Node]:
    """The entries of a class's base list (`cls.children[3]`): each base, keyword arguments included, without the
    commas."""
    return [c for c in bases.children if c.type != "operator"] if bases.type == "arglist" else [bases]


def _key_read(node: Node, named: Mapping[str, str] | None = None) -> tuple[str, ReadHow, Node] | None:
    """`x["key"]` -> (key, "subscript", that trailer); `x.get("key", ...)` / `x.pop("key", ...)` -> (key, "get",
    the call's trailer). `named`: the keys a subscript by a name or attribute stands for (`x[self._kv_name]`,
    `cache_key_names` below)."""
    kids = node.children
    if len(kids) >= 2 and is_trailer(kids[1], "[") and len(kids[1].children) == 3:
        index = kids[1].children[1]
        key = string_value(index)
        if key is None and named:
            key = named.get(code(index).strip())
        return (key, "subscript", kids[1]) if key is not None else None
    if len(kids) >= 3 and is_trailer(kids[1], ".") and kids[1].children[1].value in ("get", "pop") and \
            is_trailer(kids[2], "("):
        args = call_args(kids[2])
        key = string_value(args[0].value) if args and args[0].name is None and not args[0].star else None
        return (key, "get", kids[2]) if key is not None else None
    return None


def suite(suite: Node) -> list[Node]:
    return [c for c in getattr(suite, "children", ()) if c.type not in ("newline", "indent", "dedent", "operator")]


# The cache's names by the release they stop being passed: a key chosen among them at run time is, on a release
# that passes none of them, one it no longer passes, whichever was chosen; the latest to go stands for them all.
_CACHE_KEYS = ("past_key_value", "past_key_values")


def cache_key_names(body: Node) -> dict[str, str]:
    """Names and attributes (`name`, `module._past_kv_name`) that every assignment in `body` binds to a string
    constant, or a conditional expression of such, naming the cache's old keys only (llm-compressor's
    `module._past_kv_name = "past_key_value" if "past_key_value" in inspect.signature(...).parameters else
    "past_key_values"`): the text -> the latest-going of them (`_CACHE_KEYS`). A binding to anything else (another
    string, `"cache"`, a call) drops the name: then the key may be the right one."""
    seen: dict[str, set[str]] = {}
    for node in walk(body):
        if node.type != "expr_stmt" or len(node.children) != 3 or code(node.children[1]).strip() != "=":
            continue
        target = code(node.children[0]).strip()
        values = _strings(node.children[2])
        seen.setdefault(target, set()).update(values if values is not None else {""})
    return {t: max(v, key=_CACHE_KEYS.index) for t, v in seen.items() if v and v <= set(_CACHE_KEYS)}


def _strings(node: Node) -> set[str] | None:
    """The strings an expression can be: a constant, or `a if test else b` of such; None for anything else."""
    value = string_value(node)
    if value is not None:
        return {value}
    if node.type == "atom" and len(node.children) == 3 and code(node.children[0]).strip() == "(":
        return _strings(node.children[1])
    if node.type == "test" and len(node.children) == 5:
        a, b = _strings(node.children[0]), _strings(node.children[4])
        return a | b if a is not None and b is not None else None
    return None
