"""Names a model module or the top level lost, for the removed-API reader (engine/interpreter/removed_api.py):
`from transformers.models.llama.modeling_llama import LlamaFlashAttention2`, `modeling_llama.LlamaFlashAttention2.
forward = f` (a read of the class: the assignment is over its attribute), `transformers.models.mistral.
modeling_mistral.MistralSdpaAttention`, `from transformers import BeamScorer`, as the release table says
(engine/environment/releases_models.py). A store onto the module (`modeling_llama.LlamaFlashAttention2 = X`) is no
read and raises nothing; once the code stores a name there, reading it finds what was stored."""

from __future__ import annotations

from collections.abc import Collection, Iterator

from hf_cache_lint.engine.environment.releases_models import (
    MODEL_NAME_MODULES,
    REMOVED_GENERATION_EXPORTS,
    removed_generation_export,
    removed_model_name,
)
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.engine.facts.removed_api_use import RemovedApiUse
from hf_cache_lint.engine.interpreter.removed_reads import is_target
from hf_cache_lint.engine.interpreter.removed_scopes import Scope, handled
from hf_cache_lint.engine.syntax.nodes import (
    Node,
    code,
    dotted,
    import_paths,
    import_statements,
    imported_from,
    in_statement_walk,
    span,
    statement_walk,
    word_leaves,
)

_MODULES = frozenset(MODEL_NAME_MODULES)
# Plain names: `in` for each (a fast substring search in C) costs a fraction of a regular expression's alternation of
# them, which tries the alternatives at every character whose first letter one has (~0.2 M instructions a check
# on the 100-line script, at every keystroke).
_WORDS = ("modeling_", *REMOVED_GENERATION_EXPORTS)


def model_words(text: str) -> bool:
    """Whether the text names a model module or a removed top-level export (else nothing here applies)."""
    return any(word in text for word in _WORDS)


def model_imports(node: Node, target: Target, scope: Scope) -> Iterator[RemovedApiUse]:
    """`from <a tabled model module> import <name>` and `from transformers import <removed generation export>`."""
    if node.level != 0:
        return
    source = imported_from(node)
    if source != "transformers" and source not in _MODULES:
        return
    for _, path in import_paths(node):  # parso's get_path_for_name per name is quadratic in the names
        name_node = path[-1]  # the original name, not its alias
        name = name_node.value
        removed = removed_generation_export(name, target.version) if source == "transformers" else \
            removed_model_name(source, name, target.version)
        if removed is None or handled("import", name, scope) or _version_gated(node, scope):
            continue
        yield RemovedApiUse("import", name, source, removed, span(name_node), condition=scope.condition,
                            deferred=scope.deferred)


class ModelModules:
    """The module's local names bound to a tabled model module (`from transformers.models.llama import
    modeling_llama`, `import transformers.models.llama.modeling_llama as ml`), and the names it stores onto one.

    The aliases come from the imports alone (`nodes.import_statements`: from the word `import` in the text). The
    stored names are the dotted targets (with a dot) of the module's assignments that start at an alias or at one
    of `firsts` (the names bound to the transformers module): `model_attribute_uses` asks only of such a chain.
    They are found from those words' places in the text (`nodes.word_leaves`), not from every assignment: on
    transformers' generation/utils.py (no alias; `transformers` only in strings) the statement walk and the
    dotted names of its ~700 targets went (the reader 3.5 -> 2.7 ms a keystroke, speed31l)."""

    def __init__(self, module: Node, text: str | None = None, firsts: Collection[str] = ("transformers",)) -> None:
        self.aliases: dict[str, str] = {}
        for stmt in import_statements(module, text):
            if stmt.type == "import_name":
                for name, path in import_paths(stmt):
                    full = ".".join(n.value for n in path)
                    if full in _MODULES:
                        self.aliases[name.value] = full
            elif stmt.level == 0:
                source = imported_from(stmt)
                if source.startswith("transformers.models."):
                    for name, path in import_paths(stmt):
                        if f"{source}.{path[-1].value}" in _MODULES:
                            self.aliases[name.value] = f"{source}.{path[-1].value}"
        self.stored = _stored(module, text, {*self.aliases, *firsts})
        # The words a function must hold to use any of them (removed_api.py `_Quiet` skips the others).
        self.words = ("modeling_", *self.aliases, *REMOVED_GENERATION_EXPORTS)


def _stored(module: Node, text: str | None, firsts: set[str]) -> frozenset[str]:
    """The dotted names with a dot, starting at one of `firsts`, that an assignment of the statement walk stores to
    (`a.b = c`, `a.b.c = d = e`, `a.b += 1`)."""
    if text is None or "\r" in text or text.startswith("\ufeff"):
        stores: list[Node] = []
        for stmt in statement_walk(module):
            if stmt.type == "expr_stmt" and len(stmt.children) >= 3:
                stores.extend(stmt.children[:-1:2])
        return frozenset(d for s in stores if (d := dotted(s)) is not None and "." in d and d.split(".")[0] in firsts)
    found: set[str] = set()
    for first in firsts:
        for leaf in word_leaves(module, text, first):
            node = leaf.parent
            if leaf.type != "name" or node is None or node.type not in ("power", "atom_expr") or \
                    node.children[0] is not leaf:
                continue
            stmt = node.parent
            if stmt is None or stmt.type != "expr_stmt" or len(stmt.children) < 3 or \
                    not any(t is node for t in stmt.children[:-1:2]) or not in_statement_walk(stmt):
                continue
            d = dotted(node)
            if d is not None and "." in d:
                found.add(d)
    return frozenset(found)


def model_attribute_uses(node: Node, target: Target, scope: Scope, modules: ModelModules,
                         transformers_names: Collection[str]) -> Iterator[RemovedApiUse]:
    """A read of a name the target's model module (or top level, for a removed generation export) lacks:
    `<alias>.Name`, `transformers.models.<x>.modeling_<x>.Name`, `transformers.BeamScorer`."""
    kids = node.children
    first = kids[0]
    if first.type != "name":
        return
    where, i = modules.aliases.get(first.value), 1
    if where is None:
        if first.value not in transformers_names:
            return
        path = ["transformers"]
        while i < len(kids) - 1 and _attr(kids[i]) is not None and ".".join(path) not in _MODULES:
            if i == 1 and _attr(kids[1]) in REMOVED_GENERATION_EXPORTS:
                break
            path.append(_attr(kids[i]) or "")
            i += 1
        where = ".".join(path)
        if where != "transformers" and where not in _MODULES:
            return
    attr = _attr(kids[i]) if i < len(kids) else None
    if attr is None:
        return
    if (i == len(kids) - 1 and is_target(node)) or \
            ".".join(n.value if n.type == "name" else n.children[1].value for n in kids[:i + 1]) in modules.stored:
        return  # a store onto the module (`modeling_llama.X = Y`), or a read of what the code stored there
    removed = removed_generation_export(attr, target.version) if where == "transformers" else \
        removed_model_name(where, attr, target.version)
    if removed is None or handled("attribute", attr, scope) or _version_gated(node, scope):
        return
    name = kids[i].children[1]
    yield RemovedApiUse("attribute", attr, where, removed, span(name), condition=scope.condition,
                        deferred=scope.deferred)


def _attr(trailer: Node) -> str | None:
    """`x` of a `.x` trailer, else None."""
    if trailer.type == "trailer" and trailer.children[0].value == "." and len(trailer.children) == 2:
        return str(trailer.children[1].value)
    return None


def _version_gated(node: Node, scope: Scope) -> bool:
    """Under a condition the analysis cannot decide, in a branch of an `if` whose tests read a version (`if
    is_transformers_version_in_range(min_version="4.54.0"): ... else: from ...modeling_qwen2_vl import
    Qwen2VLFlashAttention2`, verl; the scope keeps only the outermost undecided condition): compat code written for
    the releases that have the name. A version test the analysis decides (version_guard.py) leaves no condition,
    and a dead branch is never walked."""
    if scope.condition is None:
        return False
    parent = node.parent
    while parent is not None:
        if parent.type == "if_stmt":
            kids = parent.children
            if any("version" in code(kids[i + 1]).lower() for i, kid in enumerate(kids)
                   if kid.type == "keyword" and kid.value in ("if", "elif")):
                return True
        parent = parent.parent
    return False
