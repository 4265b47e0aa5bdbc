"""The fact kind `cache_crop`: `cache.crop(n)` with a constant `n` on a value the interpreter knows is a
transformers cache (a cache class built here, a forward or generate output's cache), with a constant or an
expression that is not written negative, recorded by
engine/interpreter/methods.py wherever the cache is: no generate call is needed (a manual decode loop)."""

from __future__ import annotations

from dataclasses import dataclass

from hf_cache_lint.engine.base.findings import Span
from hf_cache_lint.engine.facts import FactKind


@dataclass(frozen=True)
class CacheCrop:
    """`receiver.crop(argument)`: `span` the whole call, `argument` the argument as written and `argument_text` its
    source, `value` the argument when it is a constant int (else None), `receiver` the receiver's source text,
    `cache` what the cache is; `indent` the line's indentation when the call is a whole statement (a fix may then
    replace it with statements), else None; `window` the model family when the code says the cache has
    sliding-window layers (engine/interpreter/values.py `CacheVal.window`), else None; `built` the constructor call in
    this file that gave it those layers (`DynamicCache(config=model.config)`), when one did."""

    span: Span
    argument: Span
    value: int | None
    receiver: str
    cache: str
    argument_text: str = ""
    indent: str | None = None
    window: str | None = None
    built: Span | None = None


# The word alone: `cache . crop (4)` is the same call (what the tokenizer skips never hides one, issue 33).
# Recorded only on a value the interpreter knows is a transformers cache (`source`): a `crop` of an image or a
# tensor in a module with no such value never reaches the parser.
KIND: FactKind[CacheCrop] = FactKind("cache_crop", CacheCrop, triggers=("crop",), parse_names=frozenset({"crop"}),
                                     source="cache")
