"""The fact kind `removed_api_use`: a use of a cache API the target transformers no longer has (an import of a
removed class, an attribute, a removed method called on a cache, a removed read of a cache or model the
interpreter says the code has: its `cache_use` facts), found by engine/interpreter/removed_api.py. It needs no
generate call: an import, or a manual decode loop, is enough."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from hf_cache_lint.engine.base.findings import Span
from hf_cache_lint.engine.environment.api_changes import REMOVED_NAMES
from hf_cache_lint.engine.facts import FactKind
from hf_cache_lint.engine.facts.cache_use import KIND as CACHE_USE
from hf_cache_lint.engine.facts.cache_use import CacheUse
from hf_cache_lint.engine.text.prefilter import EXPORT_STEMS, might_use_removed_api

UseKind = Literal["import", "attribute", "method", "read", "constructor"]


@dataclass(frozen=True)
class RemovedApiUse:
    """One use of a removed cache API that the code reaches.

    `name`: the class or method; `module`: where it is imported from (import/attribute) or the receiver's
    source text (method); `removed`: the first release without it; `span`: the name as written (for a method,
    `.name(...)` through the call's closing parenthesis is the whole call); `condition`: an undecided condition
    on the way, else None.
    """

    kind: UseKind
    name: str
    module: str
    removed: str
    span: Span
    call_span: Span | None = None
    argument_span: Span | None = None  # `from_legacy_cache(x)`: the argument `x`
    condition: str | None = None
    deferred: bool = False  # in a function body (runs when called)
    cache: CacheUse | None = None  # "read": the use of a cache (or model) the interpreter recorded there
    shown_class: str = "DynamicCache"  # "read": the receiver's class at the target, as its error names it
    index: str | None = None  # "read" subscript: `i` of `cache[i]`
    part: int | None = None  # "read" subscript: 0 (keys) ... 3 (cross values) of `cache[i][0]` ... `cache[i][3]`
    silent: bool = False  # "read" `key_cache`/`value_cache`: `cache.key_cache = x` binds a plain attribute, no error
    # "read" by `getattr(cache, "key_cache", [])`: the default as written (an empty container the code goes on to
    # use as the layers' tensors: it always gets it, silently). None for every other read.
    default: str | None = None
    # "constructor" (engine/constructor_calls.py): the keyword the target's `__init__` does not take (None: the
    # constructor itself raises), the exact error, and the parameters it does take.
    keyword: str | None = None
    error: str | None = None
    parameters: tuple[str, ...] = ()
    # "constructor" with positional arguments the target's `__init__` cannot bind: how many the call passes.
    positional: int | None = None
    # "constructor" whose first positional argument an earlier release took as this parameter (`num_hidden_layers`)
    # and the target as `parameters[1]` (constructor_calls.py `_REMEANT`); `argument_span`: that argument.
    remeant: str | None = None
    # "constructor": a base constructor's bare call (`super().__init__()` in a `Cache` subclass) the target's
    # `Cache.__init__` rejects (constructor_calls.py `_layerless`): the project's subclass it builds.
    base_subclass: str | None = None
    # "constructor" whose positional number the target binds to a flag an earlier release bound to another
    # parameter (constructor_calls.py `_rebound`): that argument as written; `parameters`: the target's binding of the
    # rebound arguments, the earlier parameters, the flag.
    rebound: str | None = None


# "modeling_", EXPORT_STEMS: a name a tabled model module or the top level lost (removed_model_names.py).
# "generation": an import from a generation module (api_changes.GENERATION_IMPORT_MODULES) of a name it lost.
# The gate decides it on the compiled names (engine/screen/gate.py `_no_removed_api`).
KIND: FactKind[RemovedApiUse] = FactKind(
    "removed_api_use", RemovedApiUse,
    ("_legacy_cache(", "Cache(", "past_key_values", ".cache", "generation", *REMOVED_NAMES, *CACHE_USE.triggers,
     "modeling_", *EXPORT_STEMS),
    parse_names=None, might_occur=lambda text: might_use_removed_api(text) or CACHE_USE.said(text))
