"""What one step of an attribute or call chain sees of it as text (`a.b(c).d`): the head's first characters and
the trailers so far, a long chain's middle elided (its first trailers, a marker, the last two); for expressions.py,
whose unknown values name the chain they came from."""

from __future__ import annotations

from hf_cache_lint.engine.syntax.nodes import Node, code


def _head(node: Node, n: int) -> str:
    """The first `n` characters of a node's code, without rendering all of a large one."""
    leaves: list[str] = []
    leaf = node.get_first_leaf()
    last = node.get_last_leaf()
    size = 0
    while leaf is not None and size < n:
        text = leaf.get_code(include_prefix=bool(leaves))
        leaves.append(text)
        size += len(text)
        if leaf is last:
            break
        leaf = leaf.get_next_leaf()
    return "".join(leaves)[:n]


class _Elided:
    """Stands for the trailers of a long chain left out of what one step sees (rendered as an ellipsis)."""

    type = "elided"

    def get_code(self, include_prefix: bool = True) -> str:
        return "\u2026"


_ELIDED = _Elided()


_CHAIN_PREFIX = 8


_CHAIN_WINDOW = 16


_TEXT_LIMIT = 200


def _text(head: Node, trailers: list[Node]) -> str:
    first = _head(head, _TEXT_LIMIT + 1)
    if len(first) > _TEXT_LIMIT:
        return first[:_TEXT_LIMIT] + "\u2026"
    return first + "".join(code(t) for t in trailers)
