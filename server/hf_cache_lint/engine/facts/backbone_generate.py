"""The fact kind `backbone_generate`: `generate` called on a model class of the module built on a transformers
backbone (`class GPT2InferenceModel(GPT2PreTrainedModel)`, `LlamaModel`, `PreTrainedModel`) that neither lists
`GenerationMixin` nor defines `generate` itself: up to 4.51.3 `PreTrainedModel` derives from `GenerationMixin`,
from 4.52.1 it does not (the release table's `name:transformers.modeling_utils.PreTrainedModel`), so there the call
raises AttributeError. Found by engine/interpreter/backbone_generate.py."""

from __future__ import annotations

from dataclasses import dataclass

from hf_cache_lint.engine.base.findings import Span
from hf_cache_lint.engine.facts import FactKind
from hf_cache_lint.engine.text.text import contains


@dataclass(frozen=True)
class BackboneGenerate:
    """`span`: the `receiver.generate` of the call; `cls` the module's class, `base` the transformers backbone it
    is built on as written; `class_span` the class's name in its `class` statement."""

    span: Span
    receiver: str
    cls: str
    base: str
    class_span: Span


KIND: FactKind[BackboneGenerate] = FactKind(
    "backbone_generate", BackboneGenerate, triggers=("generate",),
    parse_names=frozenset({"generate"}), source="import",
    might_occur=lambda text: contains(text, "generate") and contains(text, "transformers") and contains(text, "class"))
