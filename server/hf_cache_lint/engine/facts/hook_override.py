"""The fact kind `hook_override`: a function the code gives transformers to call in place of one of its own
generation hooks, with the parameters it takes and the cache names it reads. Found by engine/interpreter/hooks.py (one walk of
the module, like engine/interpreter/removed_api.py) only where the code says the hook is transformers': a method of a class that
derives from a transformers model, layer or cache class (or from such a class of the module), a function assigned
onto such a class's `forward`/`prepare_inputs_for_generation`/`update` or bound onto a loaded model's module with
`types.MethodType`, or a forward hook registered `with_kwargs=True` on a loaded model's module. A project's own
method of the same name is none of these."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from hf_cache_lint.engine.base.findings import Span
from hf_cache_lint.engine.facts import FactKind
from hf_cache_lint.engine.facts.decoding_override import Param
from hf_cache_lint.engine.text.text import contains

# prepare_inputs: `prepare_inputs_for_generation`; forward: an attention or decoder layer's `forward` (reference:
# which of transformers' layers); model_kwargs: a model method taking generate's `model_kwargs`; forward_hook: a
# `register_forward_hook(..., with_kwargs=True)` hook (its kwargs are the layer's keywords); cache_update:
# `Cache.update`.
HookKind = Literal["prepare_inputs", "forward", "model_kwargs", "forward_hook", "cache_update"]
ReadHow = Literal["parameter", "subscript", "get", "in", "write"]
CACHE_NAMES = ("past_key_values", "past_key_value")
KEYS = (*CACHE_NAMES, "cache_position")


@dataclass(frozen=True)
class HookRead:
    """One read of a name transformers passes the hook: a parameter the body uses (`how="parameter"`, `span` the
    parameter with its default), or `container["key"]` / `container.get("key", ...)` (`span` that expression,
    `container` the dict's name). `text` is the source the span covers. `returned`: `container` holds the model
    inputs transformers' own `prepare_inputs_for_generation` returned to the hook (`inputs = original(*args,
    **kwargs)`, `super().prepare_inputs_for_generation(...)`), read by key as above, tested with `"key" in inputs`
    (`how="in"`, `span` the test) or stored into (`inputs["key"] = ...`, `how="write"`). A forward pre-hook's store
    into the layer's keywords (`kwargs["past_key_value"] = my_cache`) is a `how="write"` read too, not `returned`:
    the layer is called with what it stores."""

    key: str
    how: ReadHow
    span: Span
    text: str
    container: str = ""
    returned: bool = False
    # A returned read whose key holds None from 5.4 (the hook handed its own None `cache_position` on by name), the
    # span running to the use of it (`inputs["cache_position"][0]`); else the key is absent there.
    entry_none: bool = False


@dataclass(frozen=True)
class PositionalSuper:
    """`super().prepare_inputs_for_generation(a, b, ...)` (in a layer's `forward`: `super().forward(...)`): the
    positional arguments as written, whether the call spreads a `**` dict, and the span of the call."""

    span: Span
    arguments: tuple[str, ...]
    spreads: bool


@dataclass(frozen=True)
class HookOverride:
    """`function` given to transformers as `target` (the hook, in words: "`LlamaForCausalLM` subclass `M`'s
    `prepare_inputs_for_generation`"). `span`: the function's name in its `def`; `parameters`: its parameter names
    but `self`, `var_keyword` its `**` parameter; `reads`: the cache names it reads that transformers passes;
    `compat`: the body also reads the cache under 5.24's name `cache`, so it works on both sides; `reference`: for a layer `forward` or a forward hook, which transformers layer
    ("attention" or "decoder_layer"); `insert_at`/`indent`: where a first body line goes (after a docstring),
    None for a one-line body; `signature_end`: the position after the last parameter (for adding `**kwargs`); `passes_on`: the body
    passes its cache parameter on by name."""

    kind: HookKind
    function: str
    target: str
    span: Span
    parameters: tuple[str, ...]
    var_keyword: str | None
    reads: tuple[HookRead, ...] = ()
    compat: bool = False
    reference: str = ""
    positional_super: PositionalSuper | None = None
    insert_at: Span | None = None
    indent: str = ""
    signature_end: Span | None = None
    guarded: bool = False  # the body tests `cache_kwargs` against None (`if cache_kwargs is not None`)
    passes_on: bool = False  # the body passes the cache parameter on by name (`f(..., past_key_values=past_key_values)`)
    base: str = ""  # a subclass's transformers base class (`LlamaAttention`)
    # A `cache_update` hook in a module that patches transformers' attention `forward` with a function of its own
    # calling `<cache>.update(...)` itself, without `kwargs=`: that function, not transformers' attention, updates
    # the module's caches, so how transformers calls `update` says nothing about this override.
    updated_by_patch: bool = False
    # The attributes the body reads off a cache parameter (`past_key_values.seen_tokens`): an override written
    # against members a later release's caches lack raises wherever it gets the cache (HFC007's finding), so where
    # it no longer gets it, losing the cache is not what breaks it (HFC010 asks the release table).
    members: tuple[str, ...] = ()
    # Why a `cache_update` hook's class fails before any layer calls `update` (engine/interpreter/hook_classes.py):
    # "base_init" (a `Cache` subclass running `super().__init__()` bare cannot be built), "no_layers" (its
    # `__init__` runs no base `__init__`, so it has no `layers` for the forward's mask to read), "layer_idx" (its own
    # `get_seq_length`, which the forward calls first, takes none), or the attribute that `get_seq_length` reads
    # off `self` and the class never sets; "" when none of these.
    fails_first: str = ""
    # A `cache_update` hook of a class the module defines: each class whose instances the module hands to a
    # transformers model's forward or generate and whose `update` is this one (the class itself, or a subclass of it
    # here that does not define its own), with why that class fails first (as `fails_first`, for its own
    # `__init__` / `get_seq_length` where it defines them). Empty: no instance reaches transformers' code, which is
    # what calls `update` with the release's arguments (the project's own calls pass its own), while the module
    # uses instances itself. None: not a class of the module (a function patched onto a transformers class), or one
    # the module neither hands to a model nor uses (it may be handed to one elsewhere).
    reached_by: tuple[tuple[str, str], ...] | None = None
    # A `cache_update` hook whose `cache_kwargs` parameter defaults to a dict (`cache_kwargs={}`, `=dict()`): where
    # 5.4+ pass no fourth argument it reads that dict, so `.get` answers None and a subscript raises KeyError.
    dict_default: bool = False
    # A `prepare_inputs_for_generation` override's first read of its cache parameter's content (`past_key_values[0]`,
    # `past_key_values.get_seq_length()`), where it sits under an `if` testing that parameter (`if past_key_values
    # is not None:`): (the span of the read through its first trailer, its text, the outermost such test's text).
    # Where the cache no longer comes as that parameter the branch never runs: HFC010 names it (and the read) in a
    # finding that stands on the parameter.
    guarded_read: tuple[Span, str, str] | None = None
    # A `prepare_inputs_for_generation` override's or layer `forward`'s first use of its cache parameter where that
    # use raises if the parameter is None (engine/interpreter/hook_none_reads.py): (the parameter, the read's span
    # through its first trailer, its text, the error None raises there). Where the release passes the cache under
    # another name, the hook raises there at its first call.
    none_read: tuple[str, Span, str, str] | None = None
    # A patched-in hook (`modeling_llama.LlamaAttention.forward = f`): the transformers model-module classes
    # (`transformers.models.llama.modeling_llama.LlamaSdpaAttention`) that the statements of its block patch, its
    # own first. A class the target lacks makes its patch statement raise AttributeError (HFC007's read), so the
    # block never completes and the program stops before any of its hooks serves a forward.
    patched_classes: tuple[str, ...] = ()
    # A `prepare_inputs_for_generation` override's first dict-display entry `"past_key_values": <parameter>` (the
    # model inputs it returns): (the entry's span, its text, the parameter's name). Where generate does not pass
    # the cache under that parameter's name, the entry hands the forward None: the line that drops the cache.
    handed: tuple[Span, str, str] | None = None
    # That entry's parameter (its span with the default) where the body reads it on another line too (a test, a
    # slice): the finding is then about what the hook takes and stands on the parameter; None where the entry is the
    # only line reading it.
    handed_parameter: Span | None = None
    # A `prepare_inputs_for_generation` override's truth tests of its `past_key_values` parameter (`if
    # past_key_values:`, or the first operand of an `and` there) whose branch cuts the model's input (`input_ids =
    # input_ids[...]`): (the tested name's span, the test's text). Where generate hands the hook an empty cache
    # built with its layers at the first step, the test is True there and the prompt is cut before it is cached.
    truthy_cuts: tuple[tuple[Span, str], ...] = ()
    # The parameters a positional argument must fill (no default, before any `*`), but `self`: a `Cache.update`
    # override requiring a fourth (`cache_kwargs`) raises where the release's layers call `update` with three.
    required: tuple[str, ...] = ()
    # The span after a parameter's name where a default goes (`cache_kwargs` -> `cache_kwargs=None`), by name.
    default_at: tuple[tuple[str, Span], ...] = ()
    # The whole signature (but `self`) and the function's `__qualname__`: HFC010 binds them to how the release's
    # caller calls the hook (the release table's `call:` facts).
    signature: tuple[Param, ...] = ()
    qualname: str = ""


def might_hold_hook(text: str) -> bool:
    """A hook fact needs the transformers import and one of the names transformers passes its hooks."""
    return contains(text, "transformers") and (contains(text, "past_key_value") or contains(text, "cache_position") or contains(text, "cache_kwargs"))


KIND: FactKind[HookOverride] = FactKind(
    "hook_override", HookOverride, triggers=("past_key_value", "cache_position", "cache_kwargs"),
    parse_names=frozenset({"past_key_values", "past_key_value", "cache_position", "cache_kwargs"}), source="import",
    might_occur=might_hold_hook)
