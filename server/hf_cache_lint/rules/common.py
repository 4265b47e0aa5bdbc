"""Helpers several rules share: where a value was set, in words; the cache keyword a call accepts."""

from __future__ import annotations

from pathlib import Path

from hf_cache_lint.engine.environment.target import Target
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
