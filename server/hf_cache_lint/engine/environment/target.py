"""`Target`: the transformers release being linted for and what it does with caches (docs/facts.md), answered
from the release table (engine/environment/releases.py) and the version alone."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from hf_cache_lint.engine.environment import releases
from hf_cache_lint.engine.environment.api_changes import (
    GENERATION_IMPORT_MODULES,
    HOOK_SIGNATURES,
    REMOVED_CACHE_CLASSES,
    REMOVED_CACHE_METHODS,
    REMOVED_GENERATE_KEYWORDS,
    REMOVED_MODEL_CACHES,
)
from hf_cache_lint.engine.environment.families import is_mamba_family
from hf_cache_lint.engine.environment.release_version import NEWEST, V, Version

_DEPRECATED_5 = ("sliding_window", "hybrid", "hybrid_chunked", "offloaded_hybrid", "offloaded_hybrid_chunked")

_READ_BEHAVIOURS = {"subscript": "cache_subscript", "unpack": "cache_iterates_triples",
                    "unpack4": "encoder_decoder_cache_iterates_six"}
_READ_MEMBERS = {"get_max_cache_shape": "DynamicCache", "max_cache_len": "StaticCache", "seen_tokens": "Cache",
                 "get_usable_length": "Cache", "key_cache": "Cache", "value_cache": "Cache"}
_CU = "transformers.cache_utils"
_GENERATION = "transformers.generation.utils"


def _str(version: Version | None) -> str | None:
    return None if version is None else str(version)


# The order the rules' messages list `cache_implementation` values in (unchanged from before the release table);
# a value transformers adds later comes after these, alphabetically.
_DISPLAY = ("static", "offloaded_static", "dynamic", "offloaded", "quantized", "dynamic_full", "paged", "mamba",
            *_DEPRECATED_5)


def _display_order(value: str) -> tuple[int, str]:
    return (_DISPLAY.index(value) if value in _DISPLAY else len(_DISPLAY), value)


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
    def positive_crop_raises(self) -> bool:
        """`cache.crop(n)` with n > 0 raises at the target (the release table's `crop_positive_raises`: 5.20.0;
        5.15.0 to 5.19.0 warn, 4.x reads n as the length to keep)."""
        return releases.holds("crop_positive_raises", self.version)

    @property
    def crop_zero_keeps(self) -> bool:
        """`cache.crop(0)` is a no-op at the target (the release table's `crop_zero_keeps`: 5.14.0; before, it
        emptied the cache: 0 read as the length to keep)."""
        return releases.holds("crop_zero_keeps", self.version)

    @cached_property
    def sliding_crop_error(self) -> tuple[str, str] | None:
        """What `crop` raises at the target on a cache whose sliding-window layer has seen more tokens than its
        window, and the release that brings that error; None before sliding-window layers (`DynamicSlidingWindowLayer`,
        the release table: 4.56.0; before, a sliding model's cache was a `HybridCache` and `DynamicCache` had no
        sliding layers). From 5.15.0 a RuntimeError (the behaviour `sliding_crop_needs_recording`), before it the
        ValueError that behaviour's `before` quotes (4.56.0's wheel is the first with it)."""
        b = releases.behaviour("sliding_crop_needs_recording")
        if releases.holds(b.id, self.version):
            return b.effect, str(b.first)
        layer = "name:transformers.cache_utils.DynamicSlidingWindowLayer"
        if releases.value(layer, self.version) is None:
            return None
        return b.before, str(releases.first_release(layer))

    @cached_property
    def quantized_window_error(self) -> tuple[str, str] | None:
        """What building a QuantizedCache for a model with sliding-window layers raises at the target, and the
        release that brings it (the release table's `quantized_cache_full_attention_only`: 5.14.0); None before."""
        b = releases.behaviour("quantized_cache_full_attention_only")
        return (b.effect, str(b.first)) if releases.holds(b.id, self.version) else None

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

    # The answers below come from the release table (engine/environment/releases.py, data/releases.json): what the target's
    # release itself has, so a release between two checked ones is read, never guessed.

    def removed_cache_class(self, name: str) -> str | None:
        """The release since which `from transformers import <name>` fails, when the target is at or past it (only
        for the classes REMOVED_CACHE_CLASSES names: the rules report those)."""
        if name not in REMOVED_CACHE_CLASSES:
            return None
        return _str(releases.gone_since(f"export:transformers.{name}", self.version))

    def import_fails(self, module: str, name: str) -> str | None:
        """The release since which `from <module> import <name>` fails, when the target is at or past it and the
        name is one REMOVED_CACHE_CLASSES lists (`transformers.cache_utils.SlidingWindowCache`: 5.0.0 to 5.5.0
        only; a name the module never had is not reported: the table cannot say it was ever there)."""
        if name not in REMOVED_CACHE_CLASSES:
            return None
        if module == "transformers":
            return self.removed_cache_class(name)
        return _str(releases.gone_since(f"name:{module}.{name}", self.version))

    def removed_generation_name(self, module: str, name: str) -> str | None:
        """The release since which `from <module> import <name>` fails, for a generation module's name, when the
        target is at or past it; None when the target has it or no release the table read ever had it (a typo is
        not "removed"). The top level's `generation` exports are in the table (`export:`) but not asked here: the
        screens would have to load the table for every `from transformers import` to know their names."""
        if module not in GENERATION_IMPORT_MODULES:
            return None
        return _str(releases.gone_since(f"name:{module}.{name}", self.version))

    def generation_alias(self, module: str, name: str, removed: str) -> str | None:
        """What a removed generation name was an alias of in the last release that had it, as `module.Other`
        importable at the target (`GreedySearchDecoderOnlyOutput` -> `GenerateDecoderOnlyOutput`), else None."""
        known = releases.known_releases()
        i = known.index(Version.parse(removed))
        if i == 0:
            return None
        before = known[i - 1]
        defining, described = module, releases.value(f"name:{module}.{name}", before) or ""
        if module == "transformers.generation" and described.startswith("import(."):
            # the package served it from a submodule: that module's binding says what it was
            defining = "transformers.generation." + described[len("import(."):-1].rpartition(".")[0]
            described = releases.value(f"name:{defining}.{name}", before) or ""
        if not described.startswith("alias("):
            return None
        other = described[len("alias("):-1]
        for where in (module, defining):
            if releases.value(f"name:{where}.{other}", self.version) is not None:
                return f"{where}.{other}"
        return None

    def removed_cache_method(self, name: str) -> str | None:
        """The release that removed this DynamicCache method, when the target is at or past it."""
        if name not in REMOVED_CACHE_METHODS:
            return None
        return _str(releases.member_gone_since(_CU, "DynamicCache", name, self.version))

    def removed_cache_read(self, read: str) -> str | None:
        """The release that removed this way of reading a cache (REMOVED_CACHE_READS), when the target is past it."""
        if read in _READ_BEHAVIOURS:
            b = releases.behaviour(_READ_BEHAVIOURS[read])
            return str(b.first) if releases.holds(b.id, self.version) else None
        if read in _READ_MEMBERS:
            return _str(releases.member_gone_since(_CU, _READ_MEMBERS[read], read, self.version))
        return None

    def cache_not_iterable(self, cls: str) -> str | None:
        """The release since which a `cls` (a StaticCache: checked on the oracle) no longer iterates at all (the
        release table: `Cache.__iter__` is gone from 5.0.0 and only DynamicCache and EncoderDecoderCache define
        their own), when the target is past it."""
        if cls != "StaticCache" or releases.member(_CU, cls, "__getitem__", self.version) is not None:
            return None
        return _str(releases.member_gone_since(_CU, cls, "__iter__", self.version))

    @cached_property
    def cache_layers(self) -> bool:
        """Whether a cache has `.layers` of `.keys`/`.values` at this release (the release table: `Cache.layers`,
        from 4.54.0): the replacement of legacy reads runs here."""
        return releases.member(_CU, "DynamicCache", "layers", self.version) is not None

    def removed_member(self, module: str, cls: str, name: str) -> str | None:
        """The release since which the cache class `module.cls` has no `name` (its bases resolved), when the target
        is at or past it; None when it still has it, or no release the table read ever had it."""
        return _str(releases.member_gone_since(module, cls, name, self.version))

    def removed_model_member(self, name: str) -> str | None:
        """The release since which a model has no `name` (a `PreTrainedModel` class attribute, a `GenerationMixin`
        method), when the target is at or past it; None when either still has it, or neither ever had it."""
        attr = f"model_attr:PreTrainedModel.{name}"
        if releases.value(attr, self.version) is not None or \
                releases.member(_GENERATION, "GenerationMixin", name, self.version) is not None:
            return None
        gone = releases.gone_since(attr, self.version) or \
            releases.member_gone_since(_GENERATION, "GenerationMixin", name, self.version)
        return _str(gone)

    def generation_method(self, name: str) -> bool:
        """Whether `name` is a `GenerationMixin` method generate runs on the model at the target, or was at an earlier
        release (`_update_model_kwargs_for_generation`, `_reorder_cache`): a function the code sets on a model under
        that name runs as the model's method."""
        return releases.member(_GENERATION, "GenerationMixin", name, self.version) is not None or \
            releases.member_gone_since(_GENERATION, "GenerationMixin", name, self.version) is not None

    def backbone_generate_gone(self) -> str | None:
        """The release since which `PreTrainedModel` has not derived from `GenerationMixin` (4.52.1, the release
        table's `name:transformers.modeling_utils.PreTrainedModel`), when the target is at or past it: a model
        class built on a backbone alone has no `generate` there. None where `GenerationMixin` is still a base."""
        runs = releases.table().facts.get("name:transformers.modeling_utils.PreTrainedModel", ())
        here = releases.value("name:transformers.modeling_utils.PreTrainedModel", self.version)
        if here is None or "GenerationMixin" in here:
            return None
        since = None
        for run in runs:
            if run.first > self.version:
                break
            if "GenerationMixin" in run.value:
                since = None
            elif since is None:
                since = run.first
        return _str(since)

    def class_exists(self, module: str, cls: str) -> bool:
        """Whether the target's `module` defines (or binds) `cls`."""
        return releases.value(f"name:{module}.{cls}", self.version) is not None

    def removed_model_cache(self, module: str, name: str) -> str | None:
        """The release whose `module` no longer defines the cache class `name`, when the target is past it."""
        if name not in REMOVED_MODEL_CACHES.get(module, ()):
            return None
        return _str(releases.gone_since(f"name:{module}.{name}", self.version))

    def removed_keyword(self, name: str) -> str | None:
        """The release that removed this generate keyword (a parameter of `generate`, or a GenerationConfig
        field), when the target is at or past it."""
        if name not in REMOVED_GENERATE_KEYWORDS:
            return None
        gone = releases.parameter_gone_since("member:transformers.generation.utils.GenerationMixin.generate", name,
                                             self.version) or releases.gone_since(f"genconfig:{name}", self.version)
        if gone is None:
            return None
        # Still a parameter or a field: generate takes it.
        signature = releases.value("member:transformers.generation.utils.GenerationMixin.generate", self.version)
        if (signature and name in releases.parameters(signature)) or releases.value(f"genconfig:{name}", self.version):
            return None
        return str(gone)

    def generate_takes(self, name: str) -> bool:
        """Whether the target's `GenerationMixin.generate` has the parameter `name` (the release table)."""
        signature = releases.value("member:transformers.generation.utils.GenerationMixin.generate", self.version)
        return signature is not None and name in releases.parameters(signature)

    # Generation hooks (HFC010/HFC011): the signature transformers calls a hook with at the target, from the
    # release table (the reference models' hooks and GenerationMixin's, read from each wheel), and the hand-written
    # behaviours a signature does not show (what the cache reaches `Cache.update` and the hooks as).

    def hook_signature(self, hook: str) -> tuple[str, ...]:
        """The parameters (but `self`) transformers' `hook` takes at the target, in order, `*`/`**` ones as
        `*name`/`**name`: "attention", "decoder_layer" (Llama's `forward`s, the keywords a layer passes down) or
        "prepare_inputs" (`GenerationMixin.prepare_inputs_for_generation`)."""
        signature = releases.value(HOOK_SIGNATURES[hook], self.version) or ""
        inside = signature[signature.rfind("(") + 1:signature.rfind(")")]
        names = (p.split("=", 1)[0].strip() for p in inside.split(", "))
        return tuple(n for n in names if n and n not in ("self", "/"))

    def hook_parameter_gone(self, hook: str, name: str) -> str | None:
        """The release since which transformers' `hook` no longer takes `name`, when the target is at or past it."""
        return _str(releases.parameter_gone_since(HOOK_SIGNATURES[hook], name, self.version))

    def cache_class_exists(self, name: str) -> bool:
        """Whether `transformers.<name>` or `transformers.cache_utils.<name>` is importable at the target."""
        return releases.value(f"export:transformers.{name}", self.version) is not None or \
            releases.value(f"name:transformers.cache_utils.{name}", self.version) is not None

    def behaviour_since(self, behaviour_id: str) -> str | None:
        """The first release of a hand-written behaviour of the release table, when the target has it."""
        return str(releases.behaviour(behaviour_id).first) if releases.holds(behaviour_id, self.version) else None

    @cached_property
    def tuple_cache_is_error(self) -> bool:
        return releases.holds("tuple_cache_to_generate", self.version)

    @cached_property
    def tuple_cache_to_forward_raises(self) -> bool:
        """Every model's forward raises on a legacy tuple (the release table: `tuple_cache_to_forward`)."""
        return releases.holds("tuple_cache_to_forward", self.version)

    @cached_property
    def _cache_implementations(self) -> dict[str, str]:
        prefix = "cache_implementation:"
        got = {}
        for key in releases.table().facts:
            if key.startswith(prefix) and (status := releases.value(key, self.version)) is not None:
                got[key[len(prefix):]] = status
        return got

    @cached_property
    def cache_implementation_checked(self) -> bool:
        """Whether `GenerationConfig.validate()` rejects an unknown value at all (4.45.0+); 4.41-4.44 keep any
        string and generate ignores the ones it does not know (the release table, `cache_implementation:*`)."""
        return self._cache_implementations.get("*") == "checked"

    @cached_property
    def assisted_rejects_stateful(self) -> bool:
        """Whether generate refuses assisted generation on a stateful (Mamba-family) model: `ValueError: assisted
        generation is not supported with stateful models` while `PreTrainedModel._is_stateful` exists (the release
        table's `model_attr:`); 5.25.0 drops both (its caches record recurrent states to roll back; read in the
        5.24.0/5.25.0 wheels, and HFC003's example runs on both in the oracle)."""
        return releases.value("model_attr:PreTrainedModel._is_stateful", self.version) is not None

    def rejects_cache_implementation(self, value: str) -> bool:
        """Whether `GenerationConfig.validate()` raises for `value` (4.41-4.44 raise for none: they keep it)."""
        return self.cache_implementation_checked and value not in self.valid_cache_implementations

    @cached_property
    def valid_cache_implementations(self) -> tuple[str, ...]:
        """What `GenerationConfig.validate()` accepts (where it checks nothing, 4.41-4.44: the values generate
        builds a cache for), current ones first, each group in the order the messages have always listed them."""
        table = {v: s for v, s in self._cache_implementations.items() if not v.startswith(("*", "("))}
        current = sorted((v for v, s in table.items() if s != "deprecated"), key=_display_order)
        return (*current, *sorted((v for v, s in table.items() if s == "deprecated"), key=_display_order))

    @cached_property
    def deprecated_cache_implementations(self) -> tuple[str, ...]:
        """Accepted, but generate logs a deprecation when it builds a cache from them (the values transformers
        lists in DEPRECATED_STATIC_CACHE_IMPLEMENTATIONS; checked by the oracle)."""
        return tuple(v for v in self.valid_cache_implementations if self._cache_implementations[v] == "deprecated")

    def invalid_cache_implementation_message(self, value: str) -> str:
        """The exact ValueError `GenerationConfig.validate()` raises (the choices as transformers prints them)."""
        choices = self._cache_implementations.get("(choices)", repr(self.valid_cache_implementations))
        return f"ValueError: Invalid `cache_implementation` ({value}). Choose one of: {choices}"

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

