"""The fact kind `cache_crop`: `cache.crop(n)` with a constant `n` on a value the interpreter knows is a
transformers cache (a cache class built here, a forward or generate output's cache), recorded by
engine/interpreter/methods.py wherever the cache is: no generate call is needed (a manual decode loop)."""

from __future__ import annotations

from dataclasses import dataclass

from hf_cache_lint.engine.facts import FactKind
from hf_cache_lint.engine.findings import Span


@dataclass(frozen=True)
class CacheCrop:
    """`receiver.crop(value)`: `span` the whole call, `argument` the argument as written, `receiver` its source
    text, `cache` what the cache is."""

    span: Span
    argument: Span
    value: int
    receiver: str
    cache: str


KIND: FactKind[CacheCrop] = FactKind("cache_crop", CacheCrop, triggers=(".crop(",), parse_names=frozenset({"crop"}))
