"""The one keyword-argument lookup: the item of a call's arguments written as `name=...`.

It serves every kind of argument list the engine and the rules hold: the interpreter's evaluated arguments
(`EvArg`), parso call arguments (`nodes.Arg`) and the keywords recorded on a `GenerateCall` (`Keyword`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol, TypeVar

from hf_cache_lint.engine.base.findings import Span
from hf_cache_lint.engine.output.analysis import CacheArg, GenerateCall, Keyword


class Named(Protocol):
    """An argument that may be a keyword: `name` is its keyword, None for a positional or `*`/`**` one."""

    @property
    def name(self) -> str | None: ...


class Placed(Named, Protocol):
    """A written keyword with its span (`name=value`)."""

    @property
    def span(self) -> Span: ...


# The keywords generate takes a cache under (which one a model and version accept: Target.cache_keyword,
# engine/environment/target.py).
CACHE_KEYWORDS = ("past_key_values", "cache_params", "cache")

N = TypeVar("N", bound=Named)
P = TypeVar("P", bound=Placed)


def find_keyword(items: Iterable[N], name: str) -> N | None:
    """The first of `items` written as `name=...`, else None."""
    for item in items:
        if item.name == name:
            return item
    return None


def keyword_at(items: Iterable[P], name: str, where: Span) -> P | None:
    """The keyword `name=...` written at `where` (a cache argument's span), else None."""
    for item in items:
        if item.name == name and item.span == where:
            return item
    return None


def written_cache_keyword(call: GenerateCall, arg: CacheArg) -> Keyword | None:
    """The keyword a cache argument is written as in the call (None when it arrives through a `**` dict)."""
    if arg.via_kwargs:
        return None
    return keyword_at(call.keywords, arg.keyword, arg.span)
