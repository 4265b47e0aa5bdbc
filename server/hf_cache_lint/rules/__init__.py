"""The rule registry: every rule module, in code order."""

from __future__ import annotations

from hf_cache_lint.rules.base import Rule
from hf_cache_lint.rules.hfc001_cache_conflict import CacheConflict
from hf_cache_lint.rules.hfc002_legacy_tuple_cache import LegacyTupleCache
from hf_cache_lint.rules.hfc003_cache_keyword import CacheKeyword
from hf_cache_lint.rules.hfc004_invalid_cache_implementation import InvalidCacheImplementation
from hf_cache_lint.rules.hfc005_unused_generate_kwarg import UnusedGenerateKwarg
from hf_cache_lint.rules.hfc006_deprecated_cache_usage import DeprecatedCacheUsage
from hf_cache_lint.rules.hfc007_removed_cache_api import RemovedCacheApi

ALL_RULES: tuple[Rule, ...] = (CacheConflict(), LegacyTupleCache(), CacheKeyword(),
                              InvalidCacheImplementation(), UnusedGenerateKwarg(), DeprecatedCacheUsage(),
                              RemovedCacheApi())

BY_CODE: dict[str, Rule] = {r.code: r for r in ALL_RULES}
