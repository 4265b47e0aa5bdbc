"""Imports of names the target no longer has, for the removed-API reader (engine/interpreter/removed_api.py):
removed cache classes (`from transformers import SinkCache`), names a generation module lost, and `import_fails`,
which the interpreter's import statement asks too (statements.py: the path ends inside a handling `try`)."""

from __future__ import annotations

from collections.abc import Iterator

from hf_cache_lint.engine.environment.api_changes import GENERATION_IMPORT_MODULES, REMOVED_MODEL_CACHES
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.engine.facts.removed_api_use import RemovedApiUse
from hf_cache_lint.engine.interpreter.removed_scopes import Scope, handled
from hf_cache_lint.engine.syntax.nodes import Node, import_paths, imported_from, span

_CACHE_MODULES = ("transformers", "transformers.cache_utils", "transformers.models.mamba.modeling_mamba",
                  *REMOVED_MODEL_CACHES)


def import_fails(source: str, name: str, target: Target) -> str | None:
    """The release since which `from <source> import <name>` raises ImportError, if the target is past it."""
    if source not in _CACHE_MODULES:
        return None
    if source in REMOVED_MODEL_CACHES:
        return target.removed_model_cache(source, name)
    return target.import_fails(source, name)  # what the release table says that module binds at the target


def imports(node: Node, target: Target, scope: Scope) -> Iterator[RemovedApiUse]:
    source = imported_from(node)
    if node.level != 0 or source not in _CACHE_MODULES:
        return
    for _, path in import_paths(node):  # parso's get_path_for_name per name is quadratic in the names
        name_node = path[-1]  # the original name, not its alias
        name = name_node.value
        removed = import_fails(source, name, target)
        if removed is None or handled("import", name, scope):
            continue
        yield RemovedApiUse("import", name, source, removed, span(name_node), condition=scope.condition,
                            deferred=scope.deferred)


def generation_imports(node: Node, target: Target, scope: Scope) -> Iterator[RemovedApiUse]:
    """`from transformers.generation.utils import _crop_past_key_values`, `from transformers.generation import
    GreedySearchDecoderOnlyOutput`: any name a generation module (or the top level, from `generation`) lost by the
    target, as the release table says (api_changes.GENERATION_IMPORT_MODULES)."""
    source = imported_from(node)
    if node.level != 0 or (source != "transformers" and source not in GENERATION_IMPORT_MODULES):
        return
    for _, path in import_paths(node):  # parso's get_path_for_name per name is quadratic in the names
        name_node = path[-1]  # the original name, not its alias
        name = name_node.value
        removed = target.removed_generation_name(source, name)
        if removed is None or handled("import", name, scope):
            continue
        yield RemovedApiUse("import", name, source, removed, span(name_node), condition=scope.condition,
                            deferred=scope.deferred)
