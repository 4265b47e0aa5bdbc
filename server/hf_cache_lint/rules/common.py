"""Helpers several rules share: where a value was set, in words; the cache keyword a call accepts; the name a hook
receives the cache under, and whether its first use of it raises."""

from __future__ import annotations

from pathlib import Path

from hf_cache_lint.engine.base.findings import Span
from hf_cache_lint.engine.environment import releases
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.engine.facts.hook_override import HookOverride
from hf_cache_lint.engine.output.analysis import CacheImpl, GenerateCall, Site
from hf_cache_lint.engine.output.keywords import CACHE_KEYWORDS


def where(site: Site | None, via: str) -> str:
    """`at line 12`, `in generation_config.json line 3`, `by the checkpoint's Hub default`."""
    if via == "hub-default":
        return "by the checkpoint's Hub generation_config.json default"
    if via == "wrapper":
        return ""
    if site is None:
        return "on the model's generation config"
    if site.path:
        return f"in {Path(site.path).name} line {site.span.start.line}"
    if via == "keyword":
        return ""
    return f"at line {site.span.start.line}"


def source_words(ci: CacheImpl) -> str:
    """How `cache_implementation` reaches the call, as the end of "... is <words>"."""
    if ci.via == "kwargs" and ci.through:
        return f"passed in through {ci.through}"
    return {
        "keyword": "passed in this call",
        "kwargs": "passed through a `**` dict",
        "generation_config": "set on the GenerationConfig passed to this call",
        "model": "set on the model's generation_config",
        "checkpoint": "loaded from the checkpoint's generation_config.json",
        "hub-default": "shipped in the checkpoint's Hub generation_config.json",
        "pipeline": "given to the pipeline",
        "wrapper": "injected by Unsloth's fast generate, over any keyword you pass (set "
                   "UNSLOTH_DISABLE_FAST_GENERATION=1 before importing unsloth to turn it off)",
    }.get(ci.via, "set")


def accepts(target: Target, call: GenerateCall, keyword: str) -> bool:
    """Whether generate takes the cache under `keyword` for this model and version (else it is rejected
    as an unused model kwarg before any cache check, HFC003's business)."""
    if target.unified_cache_keyword:
        return keyword in CACHE_KEYWORDS
    return keyword == target.cache_keyword(call.model.class_name)


def link(site: Site, base_path: str) -> str:
    """A Markdown link to a site (VS Code opens `file#Lnn`)."""
    path = site.path or base_path
    label = f"{Path(site.path).name}:{site.span.start.line}" if site.path else f"line {site.span.start.line}"
    if path.startswith("<"):
        return label
    return f"[{label}]({Path(path).resolve().as_uri()}#L{site.span.start.line})"


def since(target: Target, first: str) -> str:
    """"transformers 5.24.0", or "transformers 5.24.0 (since 5.4.0)" when the change came before the target."""
    return f"transformers {target}" + (f" (since {first})" if first != str(target) else "")


def cache_moved(hook: HookOverride, key: str, target: Target) -> tuple[str, str] | None:
    """(the name the cache arrives under at the target, the first release that passes it so) when `key` is no
    longer it; None when the hook still gets the cache as `key` (or the code never says which hook it is)."""
    if hook.kind in ("prepare_inputs", "model_kwargs"):
        if key != "past_key_values":
            return None
        first = target.behaviour_since("cache_reaches_hooks_as_cache")
        return ("cache", first) if first is not None else None
    if hook.kind in ("forward", "forward_hook") and hook.reference:
        signature = target.hook_signature(hook.reference)
        if key in signature:
            return None
        gone = target.hook_parameter_gone(hook.reference, key)
        now = next((n for n in ("cache", "past_key_values", "past_key_value") if n in signature), None)
        return (now, gone) if gone is not None and now is not None else None
    return None


def raised_before(hook: HookOverride, at: Span, target: Target) -> bool:
    """The hook's first use of its cache parameter (`none_read`), before `at`, raises at the target: the
    parameter is None there (the target passes the cache under another name), or the read takes a member the
    target's caches lack (`past_key_values.key_cache`, gone in 4.56.0). What the body would do at `at` never runs
    (the oracle: `heldout20/pyramidkv_monkeypatch.py`'s patched hook raises at its `key_cache` read on 5.23.0 and
    5.24.0, before its `cache_position` read)."""
    if hook.none_read is None:
        return False
    key, place, text, _ = hook.none_read
    if (place.start.line, place.start.column) >= (at.start.line, at.start.column):
        return False
    if cache_moved(hook, key, target) is not None:
        return True
    member = text.rsplit(".", 1)[-1] if "." in text else ""
    return bool(member) and target.removed_member("transformers.cache_utils", "DynamicCache", member) is not None


def fails_first(fails: str, target: Target) -> bool:
    """The class fails at the target before any layer calls `update`: a bare `super().__init__()` of `Cache`, whose
    `__init__` takes `layers` / `layer_class_to_replicate` there (from 4.56.0; it raises ValueError without either),
    or it never runs a base `__init__` and so has no `layers`, which the forward's mask and length calls read (from
    4.54.0, when caches got layers: AttributeError '<Class>' object has no attribute 'layers', the oracle:
    `recall:heldout9/moa_streaming_cache.py` on 4.57.6-5.25.0),
    or its own `get_seq_length` raises where the forward calls it: it
    takes no `layer_idx` and the target's forward asks for one layer's length (`Cache.get_query_offset`, from
    5.14.0: `TypeError: ... got an unexpected keyword argument 'layer_idx'`), or it reads an attribute the class never
    sets that the target's caches lack (`self._seen_tokens`, the counter behind `seen_tokens`, gone in 4.54.0)."""
    if not fails:
        return False
    if fails == "base_init":
        init = releases.value("init:transformers.cache_utils.Cache", target.version) or ""
        return "layer_class_to_replicate" in releases.parameters(f"def{init}")
    if fails == "no_layers":
        return target.cache_layers
    if fails == "layer_idx":
        return releases.member("transformers.cache_utils", "Cache", "get_query_offset", target.version) is not None
    gone = target.removed_member("transformers.cache_utils", "DynamicCache", fails.removeprefix("_")
                                 if fails == "_seen_tokens" else fails)
    return gone is not None
