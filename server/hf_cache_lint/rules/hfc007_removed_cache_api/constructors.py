"""HFC007's constructor part: a cache class's constructor call the target rejects (engine/constructor_calls.py)."""

from __future__ import annotations

from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.engine.facts.removed_api_use import RemovedApiUse

# What works instead, per class whose constructor only raises (the behaviour's own message names it).
_RAISING_INSTEAD = {"SinkCache": "the `custom_generate` repository `transformers-community/sink_cache` "
                                 "(`model.generate(..., custom_generate=\"transformers-community/sink_cache\", "
                                 "trust_remote_code=True)`), as the error says"}


def message(use: RemovedApiUse, target: Target) -> str:
    error = use.error or ""
    if use.remeant is not None and len(use.parameters) == 2:
        old, new = use.parameters
        return (f"`{use.name}`'s first positional argument `{use.remeant}`: transformers {target} takes it as "
                f"`{new}` (the per-layer tensors it iterates; before {use.removed} it took `{old}` there), so a layer count raises {error}. Instead, drop the argument: the cache adds its "
                f"layers as they come (`{use.name}()` runs on every release)")
    if use.rebound is not None and len(use.parameters) == 3:
        bound, before, flag = use.parameters
        return (f"`{use.name}(...)`'s positional arguments bind in transformers {target} (from {use.removed}) as "
                f"`{bound}` ({before} in the last release naming them before): `{flag}` gets the number "
                f"`{use.rebound}`, a true value, so the cache offloads its layers, which needs an accelerator (a "
                f"forward with the cache raises {error} on a torch without CUDA), and its length is the number meant "
                f"as another parameter. "
                f"Pass the arguments by keyword (`max_cache_len=...`; the batch size is taken from the inputs from "
                f"4.56)")
    if use.base_subclass is not None:
        return (f"`{use.base_subclass}` (a subclass of `Cache`) runs `Cache.__init__` with no argument: transformers "
                f"{target}'s `Cache.__init__` needs the cache's layers (from {use.removed}), so building one raises "
                f"{error}. Instead, subclass `DynamicCache` (its constructor builds its layers, with no argument, on "
                f"every release), or pass `layer_class_to_replicate=DynamicLayer` (4.56+)")
    if use.positional is not None:
        takes = use.parameters[0] if use.parameters else ""
        return (f"`{use.name}(...)` with {use.positional} positional argument{'s' if use.positional != 1 else ''}: "
                f"transformers {target}'s `{use.name}` takes `({takes})` (since {use.removed}), so this call raises "
                f"{error}. Pass the arguments by keyword, as the target's constructor names them")
    if use.keyword is None:
        return (f"`{use.name}(...)` raises in transformers {target} (from {use.removed}): the class is still "
                f"exported but its constructor only raises {error.rstrip('.')}. Instead, use "
                f"{_RAISING_INSTEAD.get(use.name, 'another cache class')}")
    takes = ", ".join(f"`{p}`" for p in use.parameters) or "no keyword"
    return (f"`{use.name}(..., {use.keyword}=...)`: transformers {target}'s `{use.name}` takes no `{use.keyword}`; "
            f"this call raises {error}. Its constructor takes {takes}")


def story(use: RemovedApiUse, target: Target) -> str:
    what = f"`{use.name}(...)`" if use.keyword is None else f"`{use.name}(..., {use.keyword}=...)`"
    if use.positional is not None:
        what = f"`{use.name}(...)` with these positional arguments"
    if use.remeant is not None:
        what = f"`{use.name}`'s first positional argument `{use.remeant}`"
    if use.base_subclass is not None:
        what = f"`{use.base_subclass}`'s bare `Cache.__init__` call"
    if use.rebound is not None:
        what = f"`{use.name}(...)`'s positional `{use.rebound}`"
    return "\n".join([f"**HFC007 removed-cache-api**: {what} does not work in transformers {target}.", "",
                      message(use, target), "", f"It raises when this line runs (transformers {target}):", "",
                      f"```\n{use.error}\n```"])
