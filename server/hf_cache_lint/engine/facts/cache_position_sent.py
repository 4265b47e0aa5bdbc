"""The fact kind `cache_position_sent`: positions sent to transformers for it to write the cache at: `cache_position=`
given to a loaded model's forward (`model(...)`, `model.forward(...)`, a name the module binds to a transformers
`from_pretrained`), or `{"cache_position": ...}` given as `Cache.update`'s fourth argument. Found by
engine/interpreter/hooks.py."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from hf_cache_lint.engine.base.findings import Span
from hf_cache_lint.engine.facts import FactKind


@dataclass(frozen=True)
class CachePositionSent:
    """`via`: "forward" (`span` the `cache_position=...` keyword, `receiver` the model's source text) or "update"
    (`span` the `"cache_position": ...` entry of the dict passed to `receiver.update`)."""

    via: Literal["forward", "update"]
    span: Span
    receiver: str
    text: str
    removal: Span | None = None  # "forward": the keyword with its comma, what removing it deletes
    # "forward": literal positions continuing, from 0, the literal positions of the forward on the same cache in
    # the statement before (engine/interpreter/position_chain.py): the cache's own length, what 5.4+ write at.
    continues: bool = False


KIND: FactKind[CachePositionSent] = FactKind(
    "cache_position_sent", CachePositionSent, triggers=("cache_position",),
    parse_names=frozenset({"cache_position"}), source="import",
    might_occur=lambda text: "cache_position" in text and "transformers" in text)
