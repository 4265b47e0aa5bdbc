"""The fact kind `decoding_override`: a decoding method a class of the module defines in place of `GenerationMixin`'s
(`_sample`, `_beam_search`, `_assisted_decoding`, ...: a method of a class deriving from `GenerationMixin` or from a
transformers model class, or a function assigned over one, `GenerationMixin._sample = f`), with its signature.
`generate` calls that method itself (through the class, so the override is what runs), with the arguments the
release table's `call:...GenerationMixin.generate-><method>` facts record; HFC010 binds them to the signature. Found by
engine/interpreter/decoding_overrides.py."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from hf_cache_lint.engine.base.findings import Span
from hf_cache_lint.engine.facts import FactKind

# The decoding methods generate has called at some release (scripts/release_table.py DECODING_METHODS).
DECODING_METHODS = ("_sample", "_greedy_search", "_beam_search", "_beam_sample", "_group_beam_search",
                    "_constrained_beam_search", "_contrastive_search", "_assisted_decoding", "_dola_decoding")
_WORDS = re.compile("|".join(DECODING_METHODS))

ParamKind = Literal["positional", "keyword_only", "var_positional", "var_keyword"]


@dataclass(frozen=True)
class Param:
    """One parameter but `self`: its name, how it binds, whether it has a default, and its span in the `def`."""

    name: str
    kind: ParamKind
    default: bool
    span: Span


@dataclass(frozen=True)
class DecodingOverride:
    """`owner`: the class as written (`CustomMixin`) or the patched class (`GenerationMixin`); `method` the decoding
    method's name; `function` the function's name as the error names it (`CustomMixin._sample`, or the patched-in
    function's own name); `span` the name in its `def`; `params` its parameters but `self`."""

    owner: str
    method: str
    function: str
    span: Span
    params: tuple[Param, ...]


KIND: FactKind[DecodingOverride] = FactKind(
    "decoding_override", DecodingOverride, triggers=DECODING_METHODS,
    parse_names=frozenset(DECODING_METHODS), source="import",
    might_occur=lambda text: "transformers" in text and _WORDS.search(text) is not None)
