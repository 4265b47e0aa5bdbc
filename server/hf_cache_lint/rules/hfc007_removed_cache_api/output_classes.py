"""HFC007's model-output part: a project's `@dataclass` subclass of transformers' `ModelOutput` that declares the
cache under its old name (`past_key_values`, or `cache_params`) and no `cache` field, built with that name as a
keyword (Baichuan-Audio's `GenerateAudioTokensOutput(..., past_key_values=...)`).

5.24.0's `ModelOutput` has a metaclass (`_BCCacheNameMeta`) that wraps every subclass's dataclass `__init__` to
rename `past_key_values`/`cache_params` to `cache` in the keywords, so such a class's own `__init__` is handed
`cache=` and raises TypeError; 5.25.0 leaves the `__init__` of a class that declares an old name alone, and 5.23.0
and 4.57.6 rename nothing (the wheels: `transformers/utils/generic.py`; docs/facts.md). Read from the syntax tree:
the class from its output_class fact (engine/interpreter/functions.py: its base resolved to transformers'
`ModelOutput`), its constructions by name in the module's syntax tree."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from hf_cache_lint.engine.base.findings import Finding, Related
from hf_cache_lint.engine.environment.release_version import V
from hf_cache_lint.engine.facts.output_class import KIND as OUTPUT_CLASS
from hf_cache_lint.engine.interpreter.hook_trees import walk
from hf_cache_lint.engine.output.analysis import Analysis
from hf_cache_lint.engine.syntax.nodes import Node, call_args, span

if TYPE_CHECKING:
    from hf_cache_lint.rules.base import Rule

# The releases whose ModelOutput renames the old keywords of every subclass (5.24.0 up to 5.25.0, which exempts a
# class that declares an old name itself).
RENAMES = (V("5.24.0"), V("5.25.0"))


def findings(rule: Rule, analysis: Analysis) -> Iterator[Finding]:
    version = analysis.context.target.version
    if not RENAMES[0] <= version < RENAMES[1] or analysis.tree is None:
        return
    classes = {fact.name: fact.field for fact in analysis.of(OUTPUT_CLASS)}
    if not classes:
        return
    for node in walk(analysis.tree):
        kids: list[Node] = getattr(node, "children", [])
        if node.type not in ("power", "atom_expr") or len(kids) != 2 or kids[0].type != "name" \
                or kids[0].value not in classes or kids[1].type != "trailer" or kids[1].children[0].value != "(":
            continue
        cls = kids[0].value
        for arg in call_args(kids[1]):
            if arg.name == classes[cls]:
                error = f"TypeError: {cls}.__init__() got an unexpected keyword argument 'cache'"
                yield rule.report(
                    span(node),  # where it raises: the construction
                    f"`{cls}(..., {arg.name}=...)`: transformers {analysis.context.target}'s `ModelOutput` renames "
                    f"the keyword `{arg.name}` to `cache` in every subclass's `__init__`, and `{cls}` declares "
                    f"`{arg.name}` but no `cache` field, so building it raises {error} (5.23 and earlier rename "
                    f"nothing; 5.25 leaves a class declaring `{arg.name}` alone). Pass it by position, or set it "
                    f"after building the output (`out.{arg.name} = ...`)",
                    story=f"5.24.0 renamed the cache of every model output to `cache` and, so that remote code "
                          f"building `Output(past_key_values=...)` keeps working, wraps every `ModelOutput` "
                          f"subclass's `__init__` to rename the old keyword. A class of your own that still declares "
                          f"`{arg.name}` then receives `cache=`, which it has no field for. 5.25.0 exempts such "
                          "classes.",
                    related=(Related(span(arg.node), f"`{arg.name}=` is passed here"),))
