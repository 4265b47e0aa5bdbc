"""The values a generate or forward call hands back and the caches they hold: the `Output` (whether the code says
its cache is a transformers cache, layered, windowed: `output`), the cache an output holds under a name
(`output_cache`), what the code stored on it since (`stored`, `storing`, `same_output`) and an
`EncoderDecoderCache`'s two parts (`sub_cache`); made by calls.py and methods.py, read by expressions.py."""

from __future__ import annotations

from dataclasses import replace

from hf_cache_lint.engine.environment.families import is_mamba_family, windowed_family
from hf_cache_lint.engine.facts.cache_use import SUB_CACHE
from hf_cache_lint.engine.interpreter.session import EvArg
from hf_cache_lint.engine.interpreter.values import CacheVal, Const, Maybe, ModelState, Output, Value
from hf_cache_lint.engine.output.analysis import Site


def output(kind: str, model: ModelState | None, args: list[EvArg], site: Site | None) -> Output:
    """A generate or forward output, with what its cache is: said to be a transformers cache for a dict output
    (generate: `return_dict_in_generate=True` written in the call) of a call with `use_cache` not False, on a
    model without remote code (a receiver the linter cannot see: its generate may be anyone's); layered for a
    model loaded as decoder-only and not of the Mamba family; windowed for a model the code says has sliding-window
    layers."""
    flags = {a.arg.name: a.value.value for a in args
             if a.arg.name in ("return_dict_in_generate", "use_cache") and isinstance(a.value, Const)}
    said = flags.get("use_cache") is not False and (kind == "forward" or flags.get("return_dict_in_generate") is True)
    if model is not None and (model.remote_code or not model.is_transformers):
        said = False
    if model is None and kind == "forward":
        said = False
    layered = model is not None and model.decoder_only and not model.encoder_decoder and \
        not is_mamba_family(model.class_name)
    if model is None:
        return Output(kind, site, said, layered)
    own_code = model.remote_code or not model.is_transformers  # its cache may be anything
    window = None if own_code else windowed_family(model.class_name, model.checkpoint)
    return Output(kind, site, said, layered, model.class_name, window)


def stored(value: Output, name: str) -> Value | None:
    """What the code stored on the output under `name` (an attribute or a key: a ModelOutput keeps both in step),
    None where it stored nothing there."""
    for key, member in value.members:
        if key == name:
            return member
    return None


def storing(value: Output, name: str, member: Value) -> Output:
    """The output with `member` stored under `name` (`out.past_key_values = legacy`)."""
    return replace(value, members=(*((k, v) for k, v in value.members if k != name), (name, member)))


def same_output(value: Value, given: Output) -> bool:
    """`value` is the output `given` on every path, whatever members the code stored on it since: a helper's
    parameter that still holds the caller's output when the helper returns (its stores are the caller's too)."""
    bare = replace(given, members=())
    options = [v for v, _ in value.options] if isinstance(value, Maybe) else [value]
    return all(isinstance(v, Output) and replace(v, members=()) == bare for v in options)


# An `EncoderDecoderCache`'s two parts (attributes on every supported release), each a cache of its own.
SUB_CACHES = frozenset({"self_attention_cache", "cross_attention_cache"})


def sub_cache(value: CacheVal, name: str) -> CacheVal | None:
    """`cache.self_attention_cache` / `.cross_attention_cache` of a cache the code says is an `EncoderDecoderCache`:
    a cache with `.layers` (4.54+), whose class the code does not say (DynamicCache unless it built the parts from
    others). Both parts are one value (no site): code that picks one of them by a flag reads the same kind of cache
    either way."""
    if value.cls != "EncoderDecoderCache" or name not in SUB_CACHES:
        return None
    return CacheVal(SUB_CACHE, None, None, value.module, value.said, True)


# The cache class a Mamba-family model's forward returns as `cache_params`, while its modeling module defines one
# (the release table says until when: from 5.5 they are gone, and the model returns a cache_utils cache).
_STATE_CACHES = {"Mamba2": ("Mamba2Cache", "transformers.models.mamba2.modeling_mamba2"),
                 "FalconMamba": ("FalconMambaCache", "transformers.models.falcon_mamba.modeling_falcon_mamba"),
                 "Mamba": ("MambaCache", "transformers.models.mamba.modeling_mamba")}


def output_cache(output: Output, name: str) -> CacheVal:
    """The cache a generate or forward output holds under `name` (`past_key_values`, `cache`, `cache_params`)."""
    by = "generate" if output.kind == "generate" else "the forward pass"
    cls, module = None, "transformers.cache_utils"
    if name == "cache_params" and output.model_class:
        for prefix, (cls_name, mod) in _STATE_CACHES.items():
            if output.model_class.startswith(prefix):
                cls, module = cls_name, mod
                break
    return CacheVal(f"the cache returned by {by}", output.site, cls, module, output.said, output.layered,
                    output.window)
