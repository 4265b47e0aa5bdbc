"""What each transformers version does with caches (docs/facts.md), as data the rules consult: the one import
path for it, gathering the modules that own each part (the engine, the rules and the tests import from here).

- release_version.py: `Version`, a release number as transformers' releases compare (`V`, NEWEST);
- api_changes.py: the tables of what the rules report as removed or changed (classes, methods, reads, keywords,
  generation modules, hook signatures) and BEHAVIOUR_CHANGES;
- target.py: `Target`, the answers for one release, from the release table and the version;
- release_steps.py: the releases where those answers change (a range's steps, `--upgrade-to`, `first_removal`).
"""

from __future__ import annotations

from hf_cache_lint.engine.environment.api_changes import (
    BEHAVIOUR_CHANGES,
    GENERATION_IMPORT_MODULES,
    HOOK_BEHAVIOURS,
    HOOK_SIGNATURES,
    REMOVED_CACHE_CLASSES,
    REMOVED_CACHE_METHODS,
    REMOVED_CACHE_READS,
    REMOVED_GENERATE_KEYWORDS,
    REMOVED_MODEL_CACHES,
    REMOVED_NAMES,
)
from hf_cache_lint.engine.environment.release_steps import first_removal, releases_between, table_changes
from hf_cache_lint.engine.environment.release_version import NEWEST, V, Version
from hf_cache_lint.engine.environment.target import Target, unused_kwargs_message

__all__ = [
    "BEHAVIOUR_CHANGES", "GENERATION_IMPORT_MODULES", "HOOK_BEHAVIOURS", "HOOK_SIGNATURES", "NEWEST",
    "REMOVED_CACHE_CLASSES", "REMOVED_CACHE_METHODS", "REMOVED_CACHE_READS", "REMOVED_GENERATE_KEYWORDS",
    "REMOVED_MODEL_CACHES", "REMOVED_NAMES", "Target", "V", "Version", "first_removal", "releases_between",
    "table_changes", "unused_kwargs_message",
]
