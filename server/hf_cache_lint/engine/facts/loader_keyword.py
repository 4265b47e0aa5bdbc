"""The fact kind `loader_keyword`: a generation keyword written into a transformers model's `from_pretrained(...)`
(`AutoModelForCausalLM.from_pretrained(id, cache_implementation="static")`), which the loader does not take: it
hands keywords the model's config does not have to the model class's `__init__`, which raises. Recorded by
engine/interpreter/loading.py where the model is loaded (and for the project's model subclasses, methods.py)."""

from __future__ import annotations

from dataclasses import dataclass

from hf_cache_lint.engine.base.findings import Span
from hf_cache_lint.engine.facts import FactKind

# The keywords recorded: generation settings the model's config does not hold (docs/facts.md §2 "Routes that do NOT
# raise it": `from_pretrained(id, cache_implementation="static")` fails earlier, in the model's `__init__`).
LOADER_KEYWORDS = ("cache_implementation",)


@dataclass(frozen=True)
class LoaderKeyword:
    """`keyword=` (its whole argument: `span`) written in the loader call `call` (`loader`: its callee as written,
    `model_class` the class whose `__init__` gets it, when the code says which, else None; `arguments`: every
    argument of the call, for a fix that removes one with its comma)."""

    span: Span
    keyword: str
    call: Span
    loader: str
    model_class: str | None = None
    arguments: tuple[Span, ...] = ()


KIND: FactKind[LoaderKeyword] = FactKind("loader_keyword", LoaderKeyword, triggers=LOADER_KEYWORDS,
                                         parse_names=frozenset({"from_pretrained"}))
