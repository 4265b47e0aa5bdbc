"""The fact kind `forward_cache`: a legacy tuple (or a list) passed as the cache to a transformers model's forward
(`model(ids, past_key_values=legacy)`, `model.forward(...)`, `self.model(...)`), recorded by the interpreter where
it calls a model it knows (engine/interpreter/calls.py, methods.py). No generate call is needed: speculative
decoding's verification step and manual decode loops call the forward themselves."""

from __future__ import annotations

from dataclasses import dataclass

from hf_cache_lint.engine.base.findings import Span
from hf_cache_lint.engine.facts import FactKind


@dataclass(frozen=True)
class ForwardCache:
    """`keyword=value` in a forward call: `span` the keyword argument as written, `value_span` / `value_text` its
    value, `model_class` / `checkpoint` what the code loaded (None when it does not say), `encoder_decoder` a
    seq2seq model, `call` the whole call; `container` "tuple", "list" or "object" (below); `spread` the `**dict` expression the
    cache came through (`inputs` of `model(**inputs)`: `span` is then the dict's key where the entry was set, and
    there is no value text to edit), else ""."""

    keyword: str
    span: Span
    value_span: Span
    value_text: str
    call: Span
    model_class: str | None
    checkpoint: str | None
    encoder_decoder: bool = False
    container: str = "tuple"
    spread: str = ""
    # The value is None on some paths and the tuple on the others (a helper that returns None early, then the
    # tuple it built): it raises only where it is not None.
    maybe_none: bool = False
    # Through a `**dict` whose entry was set outside the function that calls the forward (a caller's dict, a
    # helper's): where the entry was set (`span` is then the `**dict` argument of the call); else None.
    entry: Span | None = None
    # container "object": an instance of the project's own class `own_class` (a subclass of a transformers cache
    # when `cache_subclass`) that lacks `missing`, the member the forward reads first ("" when it lacks none), or
    # whose `get_seq_length` takes no `layer_idx` (interpreter/own_caches.py); `NONE_LAYERS`: it has `layers`, a
    # list of None the class sets itself.
    own_class: str = ""
    missing: str = ""
    cache_subclass: bool = False
    narrow_length: bool = False  # its own `get_seq_length` takes no `layer_idx` (5.14.0+ pass it)
    # The call gives `position_ids=` (not a literal None): a Llama-style forward then skips `get_seq_length` and
    # from 5.14.0 first reads `get_query_offset` of the cache (building the mask; checked on the oracle).
    positions: bool = False
    # Through a `**dict` whose entry is set only under a branch (`if self.config.use_past: kwargs["past_key_values"]
    # = pairs`, exporters' Core ML wrapper): the branch's condition as written (`not (...)` where it is the else
    # side); the forward gets the tuple only where it holds. "" when the entry is set on every path.
    condition: str = ""


# `ForwardCache.missing` of a cache subclass whose `layers` the class sets to a list of None (`self.layers = [None] *
# n`): the forward asks a layer of it (4.57.6: `self.layers[i].get_mask_sizes(...)`).
NONE_LAYERS = "layers[i]"


KIND: FactKind[ForwardCache] = FactKind(
    "forward_cache", ForwardCache, triggers=("past_key_values", "cache"),
    parse_names=frozenset({"past_key_values", "cache"}), source="model")
