"""The fact kind `ci_value`: a `cache_implementation` value written somewhere (a call's keyword, a
GenerationConfig, an attribute, a dict, a checkpoint's generation_config.json), recorded where transformers
would validate it (engine/interpreter: session.py `note_ci_value`, statements.py, expressions.py, loading.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from hf_cache_lint.engine.base.findings import Span
from hf_cache_lint.engine.facts import FactKind
from hf_cache_lint.engine.text.prefilter import NEEDED, might_matter

if TYPE_CHECKING:
    from hf_cache_lint.engine.output.analysis import CiLocation


@dataclass(frozen=True)
class CiValue:
    """A `cache_implementation` value written somewhere (call, config, attribute, dict, json)."""

    value: str
    span: Span  # the string literal, quotes included
    where: CiLocation
    path: str | None = None
    # For "json": the call in this file that reads the file (`from_pretrained(...)`), where a bad value raises.
    origin: Span | None = None


# The same words as a generate call (a value is validated at a call, a load, a config): the gate decides it.
KIND: FactKind[CiValue] = FactKind("ci_value", CiValue, NEEDED, parse_names=None, might_occur=might_matter,
                                   distinct=True)
