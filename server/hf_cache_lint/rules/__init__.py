"""The rule registry: every rule module, in code order."""

from __future__ import annotations

from hf_cache_lint.rules.base import Rule
from hf_cache_lint.rules.hfc001_cache_conflict import CacheConflict
from hf_cache_lint.rules.hfc002_legacy_tuple_cache import LegacyTupleCache
from hf_cache_lint.rules.hfc003_cache_keyword import CacheKeyword

ALL_RULES: tuple[Rule, ...] = (CacheConflict(), LegacyTupleCache(), CacheKeyword())

BY_CODE: dict[str, Rule] = {r.code: r for r in ALL_RULES}
