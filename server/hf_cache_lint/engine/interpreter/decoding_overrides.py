"""The `decoding_override` facts (engine/facts/decoding_override.py): a decoding method the module defines in place of
`GenerationMixin`'s, with its signature.

Precision: the method is defined in a class whose every base is `GenerationMixin` or a transformers model class (as
hooks.py reads them: imported from transformers, by role), or a class of the module built so, and that has `generate`
(a generation head or `GenerationMixin` among its bases, hook_classes.py `generates`: a backbone's own `_sample` is no
loop of generate's from 4.52.1); or a module function assigned over the method of such a class
(`GenerationMixin._sample = f`, `LlamaForCausalLM._sample = f`). A class that
also derives from a project's own class outside the module is not judged (its base may define the method again)."""

from __future__ import annotations

import re

from hf_cache_lint.engine.facts.decoding_override import DECODING_METHODS, DecodingOverride, Param, ParamKind
from hf_cache_lint.engine.interpreter.backbone_generate import tree_nodes
from hf_cache_lint.engine.interpreter.hook_classes import Generates, _backbone, generates
from hf_cache_lint.engine.interpreter.hook_names import (
    binds_transformers,
    module_names,
    reference_role,
)
from hf_cache_lint.engine.interpreter.hook_trees import base_items, suite
from hf_cache_lint.engine.syntax.nodes import (
    Node,
    code,
    dotted,
    param_span,
    span,
    unparenthesised,
)
from hf_cache_lint.engine.text.text import contains

_METHODS = frozenset(DECODING_METHODS)
_MIXIN = re.compile(r"^\s*from\s+transformers[\w.]*\s+import\s+(\([^)]*|[^#\n]*)\bGenerationMixin\b|"
                    r"\btransformers(\.\w+)*\.GenerationMixin\b", re.M)


def decoding_override_facts(module: Node, text: str) -> list[DecodingOverride]:
    if not any(m in text for m in DECODING_METHODS) or "transformers" not in text:
        return []
    if not binds_transformers(module, text):
        return []
    names = module_names(module)
    mixin = _mixin_names(text)
    nodes = tree_nodes(module)
    generating: set[str] = set()  # the module's classes built on GenerationMixin or a transformers model class
    sources: dict[str, Generates] = {}
    facts: list[DecodingOverride] = []
    for node in nodes:
        if node.type != "classdef" or len(node.children) < 7:
            continue
        items = [b for b in base_items(node.children[3]) if b.type != "argument"]
        paths = [dotted(b) for b in items]
        if not paths or not all(p is not None and (p.split(".")[-1] in mixin or p in generating or
                                                   reference_role(p, names) == "model") for p in paths):
            continue
        cls = node.children[1].value
        generating.add(cls)
        # Only a class with `generate` (a generation head, or `GenerationMixin` among its bases): a backbone's
        # `_sample` (a diffusion or TTS model's own helper) is no decoding loop of generate's from 4.52.1.
        sources[cls] = generates(node, names, sources)
        if sources[cls] not in ("head", "mixin"):
            continue
        for stmt in suite(node.children[-1]):
            fn = stmt.children[-1] if stmt.type == "decorated" else stmt
            if fn.type == "funcdef" and fn.children[1].value in _METHODS:
                facts.append(_fact(fn, cls, fn.children[1].value, qualname(fn)))
    for node in nodes:
        if node.type != "expr_stmt" or len(node.children) != 3 or code(node.children[1]).strip() != "=":
            continue
        path = dotted(node.children[0])
        value = unparenthesised(node.children[2])  # a wrapped line's `(f)` is `f`
        if path is None or "." not in path or value.type != "name":
            continue
        owner, method = path.rsplit(".", 1)
        fn = names.functions.get(value.value)
        if method not in _METHODS or fn is None or not (
                owner.split(".")[-1] in mixin or sources.get(owner) in ("head", "mixin") or
                (reference_role(owner, names) == "model" and not _backbone(owner.split(".")[-1]))):
            continue
        facts.append(_fact(fn, owner, method, qualname(fn)))
    facts.sort(key=lambda f: (f.span.start.line, f.span.start.column))
    return facts


def _mixin_names(text: str) -> frozenset[str]:
    """`GenerationMixin` where the module imports it from transformers (`from transformers import ...,
    GenerationMixin`, `from transformers.generation.utils import GenerationMixin`) or names it off a transformers
    module (`transformers.GenerationMixin`); a project's own class of that name is none."""
    # Every match says `GenerationMixin`: the word test first (carried over the edit), as the pattern, anchored at
    # no literal, tries every character (63 ms over a module of generation/utils.py's size that does not say it).
    return frozenset({"GenerationMixin"}) if contains(text, "GenerationMixin") and _MIXIN.search(text) else \
        frozenset()


def _fact(fn: Node, owner: str, method: str, function: str) -> DecodingOverride:
    return DecodingOverride(owner, method, function, span(fn.children[1]), signature_of(fn))


def qualname(fn: Node) -> str:
    """The function's `__qualname__`, as CPython's TypeError names it (`Cls.forward`, `outer.<locals>.f`)."""
    parts = [fn.children[1].value]
    node = fn.parent
    while node is not None:
        if node.type == "classdef":
            parts.append(node.children[1].value)
        elif node.type == "funcdef":
            parts.append(f"{node.children[1].value}.<locals>")
        node = node.parent
    return ".".join(reversed(parts))


def signature_of(fn: Node) -> tuple[Param, ...]:
    """The parameters but a first `self`/`cls`: name, how each binds, whether it has a default, its span."""
    params: list[Param] = []
    keyword_only = False
    for i, p in enumerate(fn.get_params()):
        if p.star_count == 1 and p.name is None:
            keyword_only = True  # a bare `*`
            continue
        if p.name is None:
            continue
        name = p.name.value
        if i == 0 and p.star_count == 0 and name in ("self", "cls"):
            continue
        kind: ParamKind = "var_positional" if p.star_count == 1 else "var_keyword" if p.star_count == 2 else \
            "keyword_only" if keyword_only else "positional"
        if p.star_count == 1:
            keyword_only = True
        params.append(Param(name, kind, p.default is not None, param_span(p)))
    return tuple(params)
