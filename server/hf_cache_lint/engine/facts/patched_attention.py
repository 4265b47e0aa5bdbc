"""The fact kind `patched_attention`: a function of the module patched in as the `forward` of a loaded transformers
model's attention module (`layer.self_attn.forward = types.MethodType(f, layer.self_attn)`, DuoAttention) whose
every `return` is a tuple of the same length (or patched onto the modules of an attention class by a walker
`setattr(instance, "forward", types.MethodType(f, instance))`, SelfExtend's): transformers' decoder layer unpacks `self.self_attn(...)` into as many
names as the release table's `unpack:` facts say (3 up to 4.47.1, 2 from 4.48.0 for Llama), so another count
raises ValueError in every layer's forward. Found by engine/interpreter/patched_attentions.py."""

from __future__ import annotations

from dataclasses import dataclass

from hf_cache_lint.engine.base.findings import Span
from hf_cache_lint.engine.facts import FactKind


@dataclass(frozen=True)
class PatchedAttention:
    """`span`: the patched `<owner>.forward` target; `function` the patched-in function, `returned` how many values
    each of its `return`s gives, `return_at` the first such `return`."""

    span: Span
    owner: str
    function: str
    returned: int
    return_at: Span
    # The module's own attention class installed in the layer (`layer.self_attn = Fused(layer.self_attn)`, AutoGPTQ's
    # fused attention): `function` is its `forward`, the fact sits on that `return` (the installing statement is not
    # what returns the values).
    installed: bool = False


KIND: FactKind[PatchedAttention] = FactKind(
    "patched_attention", PatchedAttention, triggers=("self_attn", "setattr"),
    parse_names=frozenset({"self_attn", "setattr"}), source="import",
    might_occur=lambda text: ("self_attn" in text or ("setattr" in text and "Attention" in text)) and
    "forward" in text and "transformers" in text)
