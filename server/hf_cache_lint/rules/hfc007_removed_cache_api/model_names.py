"""HFC007's words for a name a tabled model module or the top level lost (engine/interpreter/removed_model_names.py):
the exact error (as the oracle's releases word it) and what replaced the name, where the release table shows a
mechanical replacement (engine/environment/releases_models.py)."""

from __future__ import annotations

from hf_cache_lint.engine.environment.releases_models import (
    MODEL_NAME_MODULES,
    REMOVED_GENERATION_EXPORTS,
    model_replacement,
)
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.engine.facts.removed_api_use import RemovedApiUse


def error(use: RemovedApiUse) -> str | None:
    """The exception, for a model module's name or a removed top-level generation export; else None."""
    if use.module in MODEL_NAME_MODULES:
        if use.kind == "import":
            return (f"ImportError: cannot import name '{use.name}' from '{use.module}' "
                    f"(.../{use.module.replace('.', '/')}.py)")
        return f"AttributeError: module '{use.module}' has no attribute '{use.name}'"
    if use.kind == "import" and use.module == "transformers" and use.name in REMOVED_GENERATION_EXPORTS:
        return f"ImportError: cannot import name '{use.name}' from 'transformers' (.../transformers/__init__.py)"
    return None


def replacement(use: RemovedApiUse, target: Target) -> str | None:
    """What to use instead of a model module's removed name; None for any other use."""
    if use.module not in MODEL_NAME_MODULES:
        return None
    instead = model_replacement(use.module, use.name, target.version)
    if instead is not None:
        return f"Instead, use {instead}."
    return (f"Instead, nothing to import: transformers {target} has no `{use.name}` in `{use.module}` (the release "
            "table shows it gone from that release on); the code needs its own copy of what it did, or a "
            "`try: ... except (ImportError, AttributeError):` around it for the releases that lack it")


def owner(use: RemovedApiUse, target: Target) -> str:
    """What lost the name: `transformers 5.0.0`, or a model module there (transformers still has `StaticCache`;
    `modeling_llama` no longer imports it)."""
    if use.module in MODEL_NAME_MODULES:
        return f"`{use.module}` in transformers {target}"
    return f"transformers {target}"
