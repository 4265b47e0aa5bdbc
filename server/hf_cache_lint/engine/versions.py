"""What each transformers version does with caches (docs/facts.md), as data the rules consult."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property, lru_cache, total_ordering

from hf_cache_lint.engine.families import is_mamba_family

NEWEST = "5.24.0"


@total_ordering
@dataclass(frozen=True)
class Version:
    """A transformers release, compared numerically (pre-release tags are ignored)."""

    major: int
    minor: int
    patch: int = 0

    @staticmethod
    @lru_cache(maxsize=256)  # the rules compare against the same few literals on every call of every check
    def parse(text: str) -> Version:
        m = re.match(r"\s*v?(\d+)\.(\d+)(?:\.(\d+))?", text)
        if not m:
            raise ValueError(f"not a transformers version: {text!r}")
        return Version(int(m[1]), int(m[2]), int(m[3] or 0))

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Version):
            return NotImplemented
        return (self.major, self.minor, self.patch) < (other.major, other.minor, other.patch)

    # Written out, not derived by total_ordering (which calls __lt__ through another frame): the rules ask
    # `version >= V(...)` dozens of times a check.
    def __ge__(self, other: object) -> bool:
        if not isinstance(other, Version):
            return NotImplemented
        return (self.major, self.minor, self.patch) >= (other.major, other.minor, other.patch)

    def __gt__(self, other: object) -> bool:
        if not isinstance(other, Version):
            return NotImplemented
        return (self.major, self.minor, self.patch) > (other.major, other.minor, other.patch)

    def __le__(self, other: object) -> bool:
        if not isinstance(other, Version):
            return NotImplemented
        return (self.major, self.minor, self.patch) <= (other.major, other.minor, other.patch)

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}.{self.patch}"


V = Version.parse

_VALID_5 = ("static", "offloaded_static", "dynamic", "offloaded", "quantized", "paged")
_DEPRECATED_5 = ("sliding_window", "hybrid", "hybrid_chunked", "offloaded_hybrid", "offloaded_hybrid_chunked")
_VALID_457 = ("static", "offloaded_static", "dynamic", "offloaded", "quantized", "dynamic_full",
              "sliding_window", "hybrid", "hybrid_chunked", "offloaded_hybrid", "offloaded_hybrid_chunked")

# What `validate()` lists after "Choose one of:" (configuration_utils.py ALL_CACHE_IMPLEMENTATIONS, + "paged" in 5.x).
_CHOICES_5 = ("static", "offloaded_static", *_DEPRECATED_5, "dynamic", "offloaded", "quantized", "paged")
_CHOICES_457 = ("static", "offloaded_static", *_DEPRECATED_5, "dynamic", "dynamic_full", "offloaded", "quantized")


# Keywords `generate` took in 4.x and rejects from 5.0 as unused model kwargs (checked on 4.57.6, 5.0.0, 5.23.0
# and 5.24.0: `use_model_defaults` was a parameter of generate, `return_legacy_cache` a GenerationConfig field).
REMOVED_GENERATE_KEYWORDS: dict[str, str] = {"use_model_defaults": "5.0.0", "return_legacy_cache": "5.0.0"}


# Cache classes 4.57.6 exports and later releases do not (the import raises ImportError, the attribute
# AttributeError): class -> the first release known without it. Checked by importing on 4.57.6, 5.23.0 and 5.24.0
# and by reading 5.0.0's `transformers/__init__.py` (MambaCache was still exported there, so for it the
# first release checked without it is given).
REMOVED_CACHE_CLASSES: dict[str, str] = {
    "HybridCache": "5.0.0", "HybridChunkedCache": "5.0.0", "SlidingWindowCache": "5.0.0", "OffloadedCache": "5.0.0",
    "OffloadedStaticCache": "5.0.0", "QuantoQuantizedCache": "5.0.0", "HQQQuantizedCache": "5.0.0",
    "SinkCache": "5.0.0", "MambaCache": "5.23.0",
    # Gone before 4.57 (code written for 4.4x breaks on 4.57): exported from 4.42.0 to 4.55.4, absent from
    # `transformers` and `transformers.cache_utils` in every wheel from 4.56.0 (read from the wheels; the import
    # raises ImportError on 4.57.6, 5.0.0 and 5.24.0).
    "QuantizedCacheConfig": "4.56.0",
}
# `transformers.cache_utils` keeps `SlidingWindowCache` in 5.x (only the top-level export is gone); MambaCache
# lived in `transformers.models.mamba.modeling_mamba`, never in cache_utils.
KEPT_IN_CACHE_UTILS = frozenset({"SlidingWindowCache"})
# Cache classes a model's modeling module defined and a later release does not (ImportError): module -> name ->
# the first release without it. Jamba's cache is in every wheel up to 5.4.0 and in none from 5.5.0 (read from
# the wheels; the import runs on 4.57.6 and 5.0.0 and raises on 5.24.0).
REMOVED_MODEL_CACHES: dict[str, dict[str, str]] = {
    "transformers.models.jamba.modeling_jamba": {"HybridMambaAttentionDynamicCache": "5.5.0"},
}
# Cache methods 4.57.6 has and 5.0.0+ do not (AttributeError), with what replaces them.
REMOVED_CACHE_METHODS: dict[str, tuple[str, str]] = {
    "to_legacy_cache": ("5.0.0", "use the `Cache` object itself (generate and the models take it)"),
    # The class's own constructor: `EncoderDecoderCache(legacy)` for an encoder-decoder's 4-tuples (a
    # `DynamicCache` rejects those on 4.57.6, and on 5.x builds no encoder-decoder cache from them).
    "from_legacy_cache": ("5.0.0", "pass the legacy tuple to the class's constructor: `{cls}(legacy)`"),
}

# Reads of a cache that 4.57.6 supports and a later release removed, reported where the code says the value is a
# transformers cache (engine/cache_values.py): read -> the first release without it. Checked on 4.57.6, 5.0.0,
# 5.18.0, 5.23.0 and 5.24.0 (docs/facts.md §7): a cache stopped being subscriptable (`cache[i]`, the legacy
# `(keys, values)` of layer i) in 5.0.0, whose `DynamicCache` iterates as `(keys, values, sliding_window_tensor)`
# so `for k, v in cache:` no longer unpacks; `get_max_cache_shape()` and `StaticCache.max_cache_len` are still in
# 5.18.0 (deprecated for `get_max_length()`) and gone in 5.23.0, the first release checked without them.
# Gone before 4.57 (read from the wheels, each raising AttributeError on 4.57.6, 5.0.0 and 5.24.0): the
# `seen_tokens` property and `get_usable_length()` are in every wheel up to 4.53.3 and in none from 4.54.0; the
# `key_cache` / `value_cache` lists (deprecated properties over the layers in 4.54-4.55) in none from 4.56.0, so
# `cache.key_cache[i]` raises, as a read and as the target of `cache.key_cache[i] = k`.
REMOVED_CACHE_READS: dict[str, str] = {"subscript": "5.0.0", "unpack": "5.0.0", "get_max_cache_shape": "5.23.0",
                                       "max_cache_len": "5.23.0", "seen_tokens": "4.54.0",
                                       "get_usable_length": "4.54.0", "key_cache": "4.56.0", "value_cache": "4.56.0"}
# Every removed name an import can bind (the screens look for these words).
REMOVED_NAMES: tuple[str, ...] = (*REMOVED_CACHE_CLASSES, *(n for m in REMOVED_MODEL_CACHES.values() for n in m))
# The earliest release any table above names: a target before it has nothing removed to report.
FIRST_REMOVAL = min((*REMOVED_CACHE_CLASSES.values(), *(r for r, _ in REMOVED_CACHE_METHODS.values()),
                     *REMOVED_CACHE_READS.values(), *(r for m in REMOVED_MODEL_CACHES.values() for r in m.values())),
                    key=lambda r: Version.parse(r))

# Every release at which something these tables or `Target` describe changes (a test keeps it complete): the
# upgrade check names the first of them where a new finding appears.
BEHAVIOUR_CHANGES: tuple[str, ...] = ("4.41.0", "4.43.0", "4.50.0", "4.54.0", "4.55.0", "4.56.0", "4.57.0", "5.0.0",
                                      "5.5.0", "5.23.0", "5.24.0")


def releases_between(old: Target, new: Target) -> tuple[Target, ...]:
    """The behaviour changes after `old` up to and including `new`, in order, ending with `new` itself."""
    points = [Target.of(v) for v in BEHAVIOUR_CHANGES if old.version < V(v) < new.version]
    return (*points, new)


def unused_kwargs_message(names: list[str]) -> str:
    """The ValueError `_validate_model_kwargs` raises for keywords neither generate nor the model takes."""
    return (f"ValueError: The following `model_kwargs` are not used by the model: {names!r} (note: typos in the "
            "generate arguments will also show up in this list)")


@dataclass(frozen=True)
class Target:
    """The transformers version being linted for, and the behaviour that follows from it.

    Its properties are functions of the version alone, each worked out once per Target (`cached_property`:
    the rules read them dozens of times a check, each a version comparison); they are not fields, so
    equality, hashing and `repr` stay the version's."""

    version: Version

    @staticmethod
    def of(text: str | None) -> Target:
        return Target(Version.parse(text or NEWEST))

    @cached_property
    def has_conflict_error(self) -> bool:
        """4.41+ raise the 'Passing both' ValueError (4.39-4.40 a static-only variant, older nothing)."""
        return self.version >= V("4.41")

    @cached_property
    def unified_cache_keyword(self) -> bool:
        """5.24 renamed every cache keyword of generate to `cache=`."""
        return self.version >= V("5.24")

    def cache_keyword(self, model_class: str | None) -> str:
        """The keyword `generate` takes the cache under for a model of this class name."""
        if self.unified_cache_keyword:
            return "cache"
        if self.version >= V("4.43") and is_mamba_family(model_class):
            return "cache_params"
        if model_class and V("4.55") <= self.version < V("5.5") and model_class.startswith("FalconH1"):
            return "cache_params"
        return "past_key_values"

    def conflict_message(self, keyword: str, model_class: str | None) -> str:
        """The exact text transformers raises for a cache passed with `cache_implementation` set."""
        name = "cache" if self.unified_cache_keyword else keyword
        return (
            "ValueError: Passing both `cache_implementation` (used to initialize certain caches) and "
            f"`{name}` (a Cache object) is unsupported. Please use only one of the two."
        )

    @cached_property
    def hybrid_is_reset(self) -> bool:
        """5.x resets an effective "hybrid" to None, so it never conflicts."""
        return self.version >= V("5.0")

    @cached_property
    def hub_hybrid_dropped(self) -> bool:
        """4.56+ drop a Hub-loaded "hybrid" default (Gemma 2/3)."""
        return self.version >= V("4.56")

    @cached_property
    def user_config_inherits_model(self) -> bool:
        """A passed GenerationConfig inherits the model's unset fields (4.50+; 5.x always)."""
        return self.version >= V("4.50")

    def removed_cache_class(self, name: str) -> str | None:
        """The release that stopped exporting this cache class, when the target is at or past it."""
        removed = REMOVED_CACHE_CLASSES.get(name)
        return removed if removed is not None and self.version >= V(removed) else None

    def removed_cache_method(self, name: str) -> str | None:
        """The release that removed this Cache method, when the target is at or past it."""
        removed = REMOVED_CACHE_METHODS.get(name)
        return removed[0] if removed is not None and self.version >= V(removed[0]) else None

    def removed_cache_read(self, read: str) -> str | None:
        """The release that removed this way of reading a cache (REMOVED_CACHE_READS), when the target is past it."""
        removed = REMOVED_CACHE_READS.get(read)
        return removed if removed is not None and self.version >= V(removed) else None

    def removed_model_cache(self, module: str, name: str) -> str | None:
        """The release whose `module` no longer defines the cache class `name`, when the target is past it."""
        removed = REMOVED_MODEL_CACHES.get(module, {}).get(name)
        return removed if removed is not None and self.version >= V(removed) else None

    def removed_keyword(self, name: str) -> str | None:
        """The release that removed this generate keyword, when the target is at or past it."""
        removed = REMOVED_GENERATE_KEYWORDS.get(name)
        return removed if removed is not None and self.version >= V(removed) else None

    @cached_property
    def tuple_cache_is_error(self) -> bool:
        return self.version >= V("5.0")

    @cached_property
    def valid_cache_implementations(self) -> tuple[str, ...]:
        if self.version >= V("5.0"):
            return _VALID_5 + _DEPRECATED_5
        return _VALID_457 + (("mamba",) if self.version < V("4.56") else ())

    @cached_property
    def deprecated_cache_implementations(self) -> tuple[str, ...]:
        """Accepted, but generate logs a deprecation when it builds a cache from them (4.57.6 already does,
        generation/utils.py `_prepare_cache_for_generation`; checked by the oracle)."""
        return _DEPRECATED_5 if self.version >= V("4.57") else ()

    def invalid_cache_implementation_message(self, value: str) -> str:
        """The exact ValueError `GenerationConfig.validate()` raises (the tuple in transformers' own order)."""
        choices = _CHOICES_5 if self.version >= V("5.0") else _CHOICES_457
        return f"ValueError: Invalid `cache_implementation` ({value}). Choose one of: {choices!r}"

    def keyword_deprecation_message(self, keyword: str, model_class: str | None) -> str:
        """The FutureWarning 5.24+ emit for a pre-5.24 cache keyword (utils/deprecation.py `deprecate_kwarg`,
        which names the model's class; `<model class>` stands in when the linter does not know it)."""
        owner = f"{model_class or '<model class>'}.generate"
        return (f"FutureWarning: `{keyword}` is deprecated and will be removed in version 6.0.0 for `{owner}`. "
                "Use `cache` instead.")

    def deprecated_cache_implementation_message(self, value: str) -> str:
        """What generate logs when it builds a cache from a deprecated `cache_implementation` name
        (generation/utils.py `_prepare_cache_for_generation`, `logger.warning_once`; 4.57.6, 5.23.0, 5.24.0)."""
        removal = " and will be removed in v5.13" if self.version >= V("5.0") else ""
        return (f"Using `cache_implementation='{value}' is deprecated{removal}. Please only use one of "
                "('static', 'offloaded_static'), and the layer structure will be inferred automatically.")

    @cached_property
    def tuple_cache_message(self) -> str:
        """The ValueError for a legacy tuple cache (5.0+; 4.x converts it with a deprecation warning)."""
        what = "for `cache`" if self.unified_cache_keyword else "of `past_key_values`"
        return f"ValueError: Passing a tuple {what} is not supported anymore. Please use a `Cache` instance."

    def __str__(self) -> str:
        return str(self.version)
