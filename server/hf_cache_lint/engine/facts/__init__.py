"""Stage facts: the fact kinds, the unit that crosses from the engine to the rules. Imports base/, environment/
and text/ (and, for type annotations only, the types its facts hold).

A fact is a frozen dataclass the engine records about one module (a call reaching generate, a
`cache_implementation` value written somewhere, a use of a removed cache API, ...). Each kind is one module of
this package, and that module is the whole of it:

- its frozen dataclass(es), the one recorded being `KIND.type`;
- `KIND = FactKind(...)`: its name, the words without one of which it cannot occur in a text (`triggers`, or a
  faster test of its own, `might_occur`), and the compiled names that send a module to the parser for it
  (`parse_names`; None only for the kinds engine/screen/gate.py decides with tests of its own, `GATED_KINDS` there),
  with what else such a module must hold (`source`: a transformers object the interpreter can know, or transformers
  imported by name; engine/screen/gate.py asks it).

The registry (`KINDS`, every module of this package in name order, found by listing it: nothing lists them by
hand) is what the rest reads: the interpreter records any fact through `Session.record(fact)`; the replay keeps
a recorded run's slice of facts without naming kinds (interpreter/replay.py); `Analysis.of(KIND)` gives a kind's
facts in the order recorded; a rule declares the kinds it reads (`Rule.reads`) and the one screen
(engine/screen/screen.py) lets a text through for the enabled rules' kinds only. tests/engine/test_fact_kinds.py fails
on a module without exactly one KIND, on a fact of an unregistered type, and on a fact recorded in a text its
kind's trigger test says cannot hold it.

    generate_call.py    GenerateCall (+ CacheArg, CacheImpl, Keyword, ModelInfo): a call reaching generate
    ci_value.py         CiValue: a `cache_implementation` value written somewhere (call, config, dict, json)
    removed_api_use.py  RemovedApiUse: a use of a cache API the target no longer has (no generate needed)
    cache_crop.py       CacheCrop: `cache.crop(n)` on a transformers cache
    cache_use.py        CacheUse: any use of a transformers cache or model (attribute, call, subscript, loop, ...)
    forward_cache.py    ForwardCache: a legacy tuple passed as the cache to a transformers model's forward
    backbone_generate.py BackboneGenerate: `generate` on a model class built on a transformers backbone alone
    fixed_forward.py    FixedForward: a generated model subclass's `forward` with a fixed keyword list
    patched_attention.py PatchedAttention: a loaded model's `self_attn.forward` patched, with its return count
    pickled_cache.py    PickledCache: a cache saved with `torch.save`, a `torch.load(..., weights_only=True)`
    decoding_override.py DecodingOverride: a decoding method (`_sample`, ...) defined in place of GenerationMixin's
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar

T = TypeVar("T")

# What a module must hold, beside one of a kind's parse names, for the engine to record a fact of that kind
# (engine/screen/gate.py decides it on the compiled names). A transformers value the interpreter knows is made by a
# name imported from transformers or unsloth, or lent by a workspace module (engine/interpreter/known.py,
# loading.py, functions.py `annotated`, imports.py); a cache also comes out of a generate call's output:
# - "": nothing more;
# - "model": a transformers model (a forward call, engine/interpreter/calls.py and methods.py);
# - "cache": a transformers cache, or any generate output's (`out.past_key_values.crop(n)`, methods.py);
# - "object": a cache or model the code says is transformers' (engine/interpreter/cache_uses.py: a generate
#   output's cache only with `return_dict_in_generate=True` written);
# - "import": transformers imported by name (the hook walk, engine/interpreter/hooks.py, binds nothing else), or a
#   forward hook registered on a `.self_attn`.
Source = Literal["", "model", "cache", "object", "import"]


class RegistryError(RuntimeError):
    """A fact kind module that does not define exactly one `KIND`, or a fact of an unregistered type."""


@dataclass(frozen=True, eq=False)
class FactKind(Generic[T]):
    """One kind of fact (the module docstring). Compared by identity: one object per kind."""

    name: str
    type: type[T]
    # Words without one of which (in the text) no fact of this kind can be recorded.
    triggers: tuple[str, ...]
    # The compiled names (identifiers, string constants) of which one must be in a module for it to hold such a
    # fact; None: engine/screen/gate.py decides this kind with tests of its own (gate.GATED_KINDS).
    parse_names: frozenset[str] | None = frozenset()
    # What else the module must hold for such a fact (`Source` above).
    source: Source = ""
    # A faster or finer text test than "a trigger is in the text" (must never say no where a trigger test
    # would find a fact: tests/engine/test_fact_kinds.py).
    might_occur: Callable[[str], bool] | None = field(default=None, repr=False)
    # Equal facts are kept once, the first in place (a value noted by several reads).
    distinct: bool = False

    def said(self, text: str) -> bool:
        """Whether `text` may hold a fact of this kind (the screen's first, text-only stage)."""
        if self.might_occur is not None:
            return self.might_occur(text)
        return any(t in text for t in self.triggers)


def _discover() -> tuple[FactKind[Any], ...]:
    kinds = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        kind = getattr(module, "KIND", None)
        if not isinstance(kind, FactKind) or kind.type.__module__ != module.__name__:
            raise RegistryError(f"fact kind module {module.__name__} must define KIND = FactKind(...) of a "
                                "dataclass defined in it")
        kinds.append(kind)
    return tuple(kinds)


KINDS: tuple[FactKind[Any], ...] = ()
_BY_TYPE: dict[type, FactKind[Any]] = {}


def kind_of(fact: object) -> FactKind[Any]:
    """The registered kind of `fact` (RegistryError for a type no kind module registers)."""
    kind = _BY_TYPE.get(type(fact))
    if kind is None:
        raise RegistryError(f"{type(fact).__name__} is no registered fact kind: add a module to engine/facts/")
    return kind


def grouped(facts: Iterable[object]) -> dict[str, tuple[Any, ...]]:
    """The facts by kind name, each kind's in the order recorded (a `distinct` kind's repeats dropped)."""
    out: dict[str, list[object]] = {}
    for f in facts:
        out.setdefault(kind_of(f).name, []).append(f)
    return {name: tuple(dict.fromkeys(fs)) if _BY_NAME[name].distinct else tuple(fs) for name, fs in out.items()}


_BY_NAME: dict[str, FactKind[Any]] = {}


def _register() -> None:
    global KINDS
    KINDS = _discover()
    _BY_TYPE.update((k.type, k) for k in KINDS)
    _BY_NAME.update((k.name, k) for k in KINDS)
    if len(_BY_NAME) != len(KINDS) or len(_BY_TYPE) != len(KINDS):
        raise RegistryError("two fact kinds share a name or a type")


_register()
