"""HFC007's model-output part: a project's `@dataclass` subclass of transformers' `ModelOutput` that declares the
cache under its old name (`past_key_values`, or `cache_params`) and no `cache` field, built with that name as a
keyword (Baichuan-Audio's `GenerateAudioTokensOutput(..., past_key_values=...)`).

5.24.0's `ModelOutput` has a metaclass (`_BCCacheNameMeta`) that wraps every subclass's dataclass `__init__` to
rename `past_key_values`/`cache_params` to `cache` in the keywords, so such a class's own `__init__` is handed
`cache=` and raises TypeError; 5.25.0 leaves the `__init__` of a class that declares an old name alone, and 5.23.0
and 4.57.6 rename nothing (the wheels: `transformers/utils/generic.py`; docs/facts.md). Read from the syntax tree:
the class, its base (`ModelOutput` imported from transformers) and its constructions by name in the module."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from hf_cache_lint.engine.base.findings import Finding, Related
from hf_cache_lint.engine.environment.release_version import V
from hf_cache_lint.engine.interpreter.hook_trees import base_items, walk
from hf_cache_lint.engine.output.analysis import Analysis
from hf_cache_lint.engine.syntax.nodes import Node, call_args, code, span

if TYPE_CHECKING:
    from hf_cache_lint.rules.base import Rule

# The releases whose ModelOutput renames the old keywords of every subclass (5.24.0 up to 5.25.0, which exempts a
# class that declares an old name itself).
RENAMES = (V("5.24.0"), V("5.25.0"))
_OLD = ("past_key_values", "cache_params")
# `ModelOutput` imported from transformers (its public homes: `transformers.utils`, `transformers.utils.generic`,
# `transformers.file_utils`, `transformers.modeling_outputs`).
_IMPORTED = re.compile(r"^\s*from\s+transformers(?:\.[\w.]+)?\s+import\s+[^\n]*\bModelOutput\b", re.MULTILINE)


def findings(rule: Rule, analysis: Analysis) -> Iterator[Finding]:
    version = analysis.context.target.version
    if not RENAMES[0] <= version < RENAMES[1] or analysis.tree is None or "ModelOutput" not in analysis.text \
            or not _IMPORTED.search(analysis.text):
        return
    classes = dict(_old_name_outputs(analysis.tree))
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


def _old_name_outputs(tree: Node) -> Iterator[tuple[str, str]]:
    """Each `@dataclass` class based directly on `ModelOutput` whose own annotated fields hold an old cache name and
    no `cache`: its name and that field."""
    for node in walk(tree):
        if node.type != "classdef" or node.parent is None or node.parent.type != "decorated":
            continue
        decorators = node.parent.children[0]
        if "dataclass" not in code(decorators):
            continue
        kids = node.children
        bases = base_items(kids[3]) if len(kids) > 5 and kids[2].type == "operator" and kids[2].value == "(" else []
        if not any(code(b).strip().rsplit(".", 1)[-1] == "ModelOutput" for b in bases):
            continue
        fields = [s.children[0].value for s in walk(kids[-1]) if s.type == "expr_stmt" and len(s.children) >= 2
                  and s.children[0].type == "name" and s.children[1].type == "annassign"
                  and s.parent is not None and s.parent.parent is kids[-1]]
        old = [f for f in fields if f in _OLD]
        if old and "cache" not in fields:
            yield kids[1].value, old[0]
