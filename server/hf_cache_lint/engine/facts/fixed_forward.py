"""The fact kind `fixed_forward`: a model class of the module built on a transformers generation head
(`class LlavaLlamaForCausalLM(LlamaForCausalLM)`) whose own `forward` takes a fixed keyword list (no `**kwargs`, or a `**kwargs` its body never names),
and that the module generates from: `generate` hands that forward the cache keywords of the release table's
`generate_input:` facts (`cache_position` every step up to 5.3.0, `cache` from 5.24.0), and one the list lacks
raises TypeError inside generate. Found by engine/interpreter/fixed_forwards.py."""

from __future__ import annotations

from dataclasses import dataclass

from hf_cache_lint.engine.base.findings import Span
from hf_cache_lint.engine.facts import FactKind


@dataclass(frozen=True)
class FixedForward:
    """`span`: the forward's name in its `def`; `parameters` its parameter names but `self`; `cls` the module's
    class, `base` the transformers head it is built on as written; `generate_at` the first `.generate(` call that
    runs it (its receiver through `.generate`)."""

    span: Span
    cls: str
    base: str
    parameters: tuple[str, ...]
    generate_at: Span
    # The forward's `**` parameter where its body never names it (VideoLLaMA2's `forward(..., past_key_values=None,
    # ..., **kwargs)` calling `super().forward(...)` without them): what generate hands it there is dropped, 5.24's
    # `cache=` with it. None for a forward without `**` (the fixed keyword list above).
    swallows: str | None = None


KIND: FactKind[FixedForward] = FactKind(
    "fixed_forward", FixedForward, triggers=("generate",),
    parse_names=frozenset({"generate"}), source="import",
    might_occur=lambda text: "generate" in text and "transformers" in text and "forward" in text)
