"""The fact kind `output_class`: a project's `@dataclass` subclass of transformers' `ModelOutput` that declares the
cache under an old name (`past_key_values`, `cache_params`) and no `cache` field, recorded by
engine/interpreter/functions.py where the class is defined (its base resolved to transformers' `ModelOutput`); HFC007
reports its constructions with that keyword on 5.24.0 (rules/hfc007_removed_cache_api/output_classes.py)."""

from __future__ import annotations

from dataclasses import dataclass

from hf_cache_lint.engine.base.findings import Span
from hf_cache_lint.engine.facts import FactKind


@dataclass(frozen=True)
class OutputClass:
    """`class name(ModelOutput)` under `@dataclass`, declaring `field` (an old cache name); `span` its name."""

    name: str
    field: str
    span: Span


# The base's name is written (`ModelOutput`, `utils.ModelOutput`); transformers imported by name (`source`).
KIND: FactKind[OutputClass] = FactKind("output_class", OutputClass, triggers=("ModelOutput",),
                                       parse_names=frozenset({"ModelOutput"}), source="import")
