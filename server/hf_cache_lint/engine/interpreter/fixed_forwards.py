"""The `fixed_forward` facts (engine/facts/fixed_forward.py): a model subclass of a transformers generation head
whose own `forward` takes a fixed keyword list, generated from here.

Precision: the class derives only from transformers model classes, `GenerationMixin`, the module's own such
classes and its plain mixins (no base, none of the model's calls defined: LLaVA's `LlavaMetaForCausalLM`), one of them a head whose `prepare_inputs_for_generation` is the reference one the release table reads
(`HEADS`: Llama's, and the decoders that use `GenerationMixin`'s as Llama does from 4.46); its `forward` has no `**`
parameter, or one its body never names (`swallows`); the class (or a base of the module) overrides
`prepare_inputs_for_generation` not at all, or only around the parent's result
(`super().prepare_inputs_for_generation(...)`, naming none of the cache keywords); and `generate` runs on it:
`self.generate(...)` / `super().generate(...)` in its methods (no class of the module deriving from it), or
`x.generate(...)` where every binding of `x` builds the class (engine/interpreter/backbone_generate.py), without
`use_cache=False` (generate then makes no cache and hands none)."""

from __future__ import annotations

from hf_cache_lint.engine.base.findings import Span
from hf_cache_lint.engine.facts.fixed_forward import FixedForward
from hf_cache_lint.engine.interpreter.backbone_generate import (
    defines,
    flat,
    instances,
    self_class,
    subclassed_here,
    tree_nodes,
)
from hf_cache_lint.engine.interpreter.hook_names import (
    Names,
    binds_transformers,
    is_trailer,
    module_names,
    reference_role,
)
from hf_cache_lint.engine.interpreter.hook_signatures import params_of
from hf_cache_lint.engine.interpreter.hook_trees import base_items, suite, walk
from hf_cache_lint.engine.syntax.nodes import Node, dotted, span

# The heads whose generate uses the reference `prepare_inputs_for_generation` (Llama's own on 4.41-4.45, else
# GenerationMixin's; the wheels: none of the others defines its own on 4.57.6, 5.23.0 or 5.24.0). Those of the
# others count only where Llama's is GenerationMixin's too (the rule asks the table). Gemma's (MoDA's
# `LlavaGemmaForCausalLM`, heldout22): run on the oracle, its subclass with LLaVA's keyword list raises on
# `cache_position` at 4.57.6 and on `cache` at 5.24.0 and 5.25.0, as Llama's (HFC010's example).
HEADS = frozenset({"LlamaForCausalLM", "MistralForCausalLM", "MixtralForCausalLM", "Qwen2ForCausalLM",
                   "Qwen3ForCausalLM", "GemmaForCausalLM"})
_CACHE_KEYS = ("cache_position", "past_key_values", "cache")


def fixed_forward_facts(module: Node, text: str) -> list[FixedForward]:
    if "generate" not in text or "forward" not in text or "transformers" not in text:
        return []
    if not binds_transformers(module, text):  # no transformers class or module bound: nothing below applies
        return []
    names = module_names(module)
    if not names.classes and not names.modules:
        return []
    nodes = tree_nodes(module)
    own = {n.children[1].value: n for n in nodes if n.type == "classdef"}
    heads = {name: head for name, node in own.items() if (head := _head(node, names, own)) is not None}
    if not heads:
        return []
    bound = instances(nodes, set(heads))
    subclassed = subclassed_here(own)
    generated: dict[str, Span] = {}
    for node in nodes:
        if node.type not in ("power", "atom_expr"):
            continue
        kids = node.children
        for i in range(1, len(kids) - 1):
            if not (is_trailer(kids[i], ".", "generate") and is_trailer(kids[i + 1], "(")):
                continue
            if "use_cache=False" in flat(kids[i + 1]):
                continue
            receiver = "".join(flat(k) for k in kids[:i])
            cls = self_class(node) if receiver in ("self", "super()") else bound.get(receiver)
            if receiver in ("self", "super()") and cls in subclassed:
                continue  # `self` may be an instance of a subclass with a forward of its own
            if cls is not None and cls in heads:
                generated.setdefault(cls, Span(span(kids[0]).start, span(kids[i]).end))
    facts: list[FixedForward] = []
    for cls, at in generated.items():
        forward = _own_forward(own[cls])
        if forward is None:
            continue
        parameters, var_keyword = params_of(forward)
        if var_keyword is not None and any(n.type == "name" and n.value == var_keyword
                                           for n in walk(forward.children[-1])):
            continue  # the body reads or hands on what `**` holds
        facts.append(FixedForward(span=span(forward.children[1]), cls=cls, base=heads[cls],
                                  parameters=tuple(p for p in parameters if p != "self"), generate_at=at,
                                  swallows=var_keyword))
    return facts


def _own_forward(cls: Node) -> Node | None:
    for stmt in suite(cls.children[-1]):
        fn = stmt.children[-1] if stmt.type == "decorated" else stmt
        if fn.type == "funcdef" and fn.children[1].value == "forward":
            return fn
    return None


def _wraps_parent_hook(cls: Node) -> bool:
    """No `prepare_inputs_for_generation` of its own, or one around the parent's result naming no cache keyword."""
    for stmt in suite(cls.children[-1]):
        fn = stmt.children[-1] if stmt.type == "decorated" else stmt
        if fn.type == "funcdef" and fn.children[1].value == "prepare_inputs_for_generation":
            body = flat(fn)
            return "super().prepare_inputs_for_generation(" in body and not any(
                f'"{k}"' in body or f"'{k}'" in body for k in _CACHE_KEYS)
    return not defines(cls, ("prepare_inputs_for_generation",))


def _head(cls: Node, names: Names, own: dict[str, Node]) -> str | None:
    """The reference head `cls` is built on (as written), when every base is a transformers model class,
    `GenerationMixin` or the module's own such class, and no class on the way replaces the hook's inputs."""
    if len(cls.children) < 7 or not _wraps_parent_hook(cls) or defines(cls, ("__getattr__",)):
        return None
    bases = cls.children[3]
    items = base_items(bases)
    found: str | None = None
    for base in items:
        path = dotted(base) if base.type != "argument" else None
        if path is None:
            return None
        if path in own and own[path] is not cls and _plain_mixin(own[path]):
            continue  # LLaVA's `LlavaMetaForCausalLM`: helpers only, no base, nothing of the model's calls
        if path in own and own[path] is not cls:
            inner = _head(own[path], names, own)
            if inner is None:
                return None
            found = found or inner
        elif path.split(".")[-1] == "GenerationMixin" or reference_role(path, names) == "model":
            original = names.originals.get(path, path.split(".")[-1])
            if original in HEADS:
                found = found or original
        else:
            return None
    return found


def _plain_mixin(cls: Node) -> bool:
    """A module's class without bases (or only `object`) defining none of what generate or the model's call runs
    (`forward`, `prepare_inputs_for_generation`, `generate`, `__call__`, `__getattr__`): a mixin of helper methods
    the model's own code calls, which changes nothing of what generate hands the forward."""
    bases = [dotted(b) for b in base_items(cls.children[3])] if len(cls.children) >= 7 else []
    return all(b == "object" for b in bases) and \
        not defines(cls, ("forward", "prepare_inputs_for_generation", "generate", "__call__", "__getattr__"))

