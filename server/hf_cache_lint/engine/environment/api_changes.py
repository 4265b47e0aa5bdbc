"""What changed in transformers' cache API that the rules report, as tables of names (removed classes, methods,
reads, keywords, generation modules; the hooks' signatures) and the releases where behaviour changes; `Target`
(engine/environment/target.py) asks the release table which of them the target's release has."""

from __future__ import annotations

# Keywords `generate` took in 4.x and rejects from 5.0 as unused model kwargs (checked on 4.57.6, 5.0.0, 5.23.0
# and 5.24.0: `use_model_defaults` was a parameter of generate, `return_legacy_cache` a GenerationConfig field).
REMOVED_GENERATE_KEYWORDS: dict[str, str] = {"use_model_defaults": "5.0.0", "return_legacy_cache": "5.0.0"}


# Cache classes 4.57.6 exports and later releases do not (the import raises ImportError, the attribute
# AttributeError): class -> the first release without it since. The names drive the prefilter and the gate; the
# releases are what the release table (engine/environment/releases.py, `export:transformers.<name>`) answers at NEWEST, and
# `Target.removed_cache_class` asks the table itself for the target's release (tests/engine/test_releases.py keeps
# the two equal). MambaCache: exported up to 5.4.0 (5.0.0 still has it), gone from 5.5.0.
REMOVED_CACHE_CLASSES: dict[str, str] = {
    "HybridCache": "5.0.0", "HybridChunkedCache": "5.0.0", "SlidingWindowCache": "5.0.0", "OffloadedCache": "5.0.0",
    "OffloadedStaticCache": "5.0.0", "QuantoQuantizedCache": "5.0.0", "HQQQuantizedCache": "5.0.0",
    "SinkCache": "5.0.0", "MambaCache": "5.5.0",
    # Gone before 4.57 (code written for 4.4x breaks on 4.57): exported from 4.42.0 to 4.55.4 (the table's
    # `export:` and `name:transformers.cache_utils.` facts).
    "QuantizedCacheConfig": "4.56.0",
    # Its base, exported over the same releases (`export:transformers.CacheConfig`, 4.42.0-4.55.4): KVQ's config
    # imports it (heldout21).
    "CacheConfig": "4.56.0",
}
# Cache classes a model's modeling module defined and a later release does not (ImportError): module -> names.
# The release is the table's (`name:<module>.<name>`): Jamba's cache is in every wheel up to 5.4.0, none from 5.5.0.
REMOVED_MODEL_CACHES: dict[str, tuple[str, ...]] = {
    "transformers.models.jamba.modeling_jamba": ("HybridMambaAttentionDynamicCache",),
}
# Cache methods 4.57.6 has and 5.0.0+ do not (AttributeError), with what replaces them (the release is the table's
# answer for `DynamicCache`, `Target.removed_cache_method` asks the table).
REMOVED_CACHE_METHODS: dict[str, tuple[str, str]] = {
    "to_legacy_cache": ("5.0.0", "use the `Cache` object itself (generate and the models take it)"),
    # The class's own constructor: `EncoderDecoderCache(legacy)` for an encoder-decoder's 4-tuples (a
    # `DynamicCache` rejects those on 4.57.6, and on 5.x builds no encoder-decoder cache from them).
    "from_legacy_cache": ("5.0.0", "pass the legacy tuple to the class's constructor: `{cls}(legacy)`"),
}

# Reads of a cache that 4.57.6 supports and a later release removed, reported where the code says the value is a
# transformers cache (its cache_use facts: engine/interpreter/cache_uses.py); `Target.removed_cache_read` gives the first release without it. `subscript` and `unpack`
# are the release table's hand-written behaviours `cache_subscript` / `cache_iterates_triples` (5.0.0);
# `get_max_cache_shape()` (DynamicCache) and `StaticCache.max_cache_len` are its `member:` facts, and so are the
# reads gone before 4.57: `Cache.seen_tokens` and `get_usable_length()` (to 4.53.3), the `key_cache` /
# `value_cache` lists (deprecated properties in 4.54-4.55, none from 4.56.0; before 4.54 attributes of the
# instance, which the table does not list, so nothing is reported there).
REMOVED_CACHE_READS: tuple[str, ...] = ("subscript", "unpack", "unpack4", "get_max_cache_shape", "max_cache_len", "seen_tokens",
                                        "get_usable_length", "key_cache", "value_cache")
# `unpack4`: `for sk, sv, ck, cv in cache:` over an EncoderDecoderCache (6-tuples from 5.0.0).
# The generation modules whose every top-level name the release table holds (scripts/release_table.py
# GENERATION_MODULES, and the package's lazy exports): an import of a name one of them lost is reported, whatever
# the name (private helpers such as `_crop_past_key_values` too); the top level's are its `export:` facts served from
# `generation`.
GENERATION_IMPORT_MODULES: tuple[str, ...] = ("transformers.generation", "transformers.generation.utils",
                                              "transformers.generation.candidate_generator")
# Every removed name an import can bind (the screens look for these words).
REMOVED_NAMES: tuple[str, ...] = (*REMOVED_CACHE_CLASSES, *(n for names in REMOVED_MODEL_CACHES.values() for n in names))

# Every release at which something these tables or `Target` describe changes (a test keeps it complete): the
# upgrade check names the first of them where a new finding appears. Each is a release the release table holds (a
# test checks it), so a range is never said to be checked at one it does not: 4.57's first is 4.57.1 (4.57.0 is not
# on the package index), where HFC002's `(4, 57)` test changes.
BEHAVIOUR_CHANGES: tuple[str, ...] = ("4.41.0", "4.43.0", "4.50.0", "4.54.0", "4.55.0", "4.56.0", "4.57.1", "5.0.0",
                                      "5.5.0", "5.23.0", "5.24.0")

# The hooks HFC010/HFC011 compare an override with: the table's signature of each, and the behaviours they read.
HOOK_SIGNATURES = {
    "attention": "member:transformers.models.llama.modeling_llama.LlamaAttention.forward",
    "decoder_layer": "member:transformers.models.llama.modeling_llama.LlamaDecoderLayer.forward",
    "prepare_inputs": "member:transformers.generation.utils.GenerationMixin.prepare_inputs_for_generation",
}
HOOK_BEHAVIOURS = ("cache_reaches_hooks_as_cache", "update_gets_no_cache_kwargs", "update_called_with_kwargs",
                   "static_cache_ignores_cache_position", "model_inputs_hold_cache")
