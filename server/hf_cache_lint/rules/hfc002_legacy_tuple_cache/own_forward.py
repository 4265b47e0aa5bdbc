"""A model class of the project (remote-code style: `class XForCausalLM(XPreTrainedModel)` on `PreTrainedModel`,
with `GenerationMixin`) whose own `forward` reads `past_key_values` as the legacy tuple (`past_key_values[0][0]
.size(-2)`, `for layer_past in past_key_values`, `zip(self.h, past_key_values)`), as ChatGLM, Baichuan, Qwen-1,
CodeShell and InternLM-1 do. `generate` hands that forward what it prepared, and on some releases that is a
`DynamicCache` (empty on the first step), not None (checked on the oracle with such a class, /tmp probe
`codeshell_like.py`, recorded in docs/facts.md):

- 4.52.4, 4.53.0: None, then the forward's own returned tuple: it runs (4.54-4.56 not run: not claimed);
- 4.57.6: a `DynamicCache` whose layers hold None: `past_key_values[0][0].size(-2)` raises
  `AttributeError: 'NoneType' object has no attribute 'size'` (an index, a `for` and a `zip` read alike);
- 5.0.0: None, then the tuple: it runs (5.1, 5.2 not run);
- 5.3.0, 5.4.0, 5.13.1, 5.23.0: a `DynamicCache`: `past_key_values[0]` raises `TypeError: 'DynamicCache' object
  is not subscriptable` (a `for` / `zip` read gets layers of None: `AttributeError: 'NoneType' object ...`);
- 5.24.0, 5.25.0: the cache goes as `cache=` (the release table's `generate_input:cache`): `past_key_values` stays
  None, it runs (without its past where `**kwargs` swallows it: HFC010's).

A forward that converts or tests the cache itself (`from_legacy_cache`, `isinstance(past_key_values, ...)`,
`get_seq_length`, `Cache`), a class that says it is stateful or answers `_supports_default_dynamic_cache`, is not
claimed."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hf_cache_lint.engine.base.findings import Finding, Severity, Span
from hf_cache_lint.engine.environment import releases
from hf_cache_lint.engine.environment.release_version import Version
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.engine.interpreter.hook_trees import base_items, walk
from hf_cache_lint.engine.output.analysis import Analysis
from hf_cache_lint.engine.syntax.nodes import Node, code, span

if TYPE_CHECKING:
    from hf_cache_lint.rules.base import Rule

_KEY = "past_key_values"
# The forward handles a Cache itself: not claimed.
_AWARE = re.compile(r"from_legacy_cache|isinstance[\s\\]*\([\s\\]*past_key_values\b|get_seq_length|\bCache\b|"
                    r"_supports_default_dynamic_cache|_is_stateful|to_legacy_cache")
# A `.generate(` call (ChatGLM's `chat`, a completion endpoint): a class whose own decode loop calls its forward
# (`stream_generate`) gets what the loop passes, not what generate prepares.
_GENERATES = re.compile(r"\.[\s\\]*generate[\s\\]*\(")
# Releases whose generate hands such a forward a DynamicCache, as run (the module docstring).
_FIRST_457 = Version.parse("4.57.0")
_FIRST_5X = Version.parse("5.3.0")


@dataclass(frozen=True)
class LegacyForward:
    """`param`: the forward's `past_key_values` parameter; `cls` the class; `read` the first legacy read as
    written; `how` "index" (a subscript) or "iterate" (a `for` / `zip` over it)."""

    param: Span
    cls: str
    read: str
    how: str


def hands_cache(target: Target) -> bool:
    """generate hands a model's own forward a `DynamicCache` in `past_key_values` at the target (the runs above)."""
    v = target.version
    if releases.value("generate_input:cache", v) == "always":
        return False  # 5.24+: the cache goes as `cache=`
    return (v.major == 4 and v >= _FIRST_457) or (v.major == 5 and v >= _FIRST_5X)


def legacy_forwards(tree: Node, text: str) -> Iterator[LegacyForward]:
    """The module's generation model classes whose `forward` reads `past_key_values` as a tuple first."""
    if "GenerationMixin" not in text or "PreTrainedModel" not in text or "def forward" not in text or \
            not _GENERATES.search(text):
        return  # the cheap test: no such class in the text, or nothing here runs `generate` (a loop of its own)
    classes = {n.children[1].value: n for n in walk(tree) if n.type == "classdef"}
    for name, node in classes.items():
        if not _generation_model(name, classes) or _AWARE.search(code(node)):
            continue
        found = _legacy_read(node)
        if found is not None:
            yield LegacyForward(span(found[0]), name, found[1], found[2])


def _bases(node: Node) -> list[str]:
    if len(node.children) < 7:
        return []
    return [code(b).strip() for b in base_items(node.children[3])]


def _generation_model(name: str, classes: dict[str, Node]) -> bool:
    """Built on `PreTrainedModel` (through the module's own classes) with `GenerationMixin` among its bases'."""
    seen: set[str] = set()
    todo, names = [name], []
    while todo:
        cls = todo.pop()
        if cls in seen or cls not in classes:
            continue
        seen.add(cls)
        for base in _bases(classes[cls]):
            names.append(base.rsplit(".", 1)[-1])
            todo.append(base)
    return "GenerationMixin" in names and "PreTrainedModel" in names


def _legacy_read(cls: Node) -> tuple[Node, str, str] | None:
    """The `past_key_values` parameter of the class's own `forward` and the first read of it as a tuple, unless
    the body assigns it first or reads it otherwise first (an attribute: a Cache's method)."""
    suite = cls.children[-1]
    for fn in suite.children if suite.type == "suite" else ():
        if fn.type == "decorated":
            fn = fn.children[-1]
        if fn.type != "funcdef" or fn.children[1].value != "forward":
            continue
        param = next((p for p in fn.get_params() if p.name.value == _KEY), None)
        if param is None:
            return None
        for leaf in walk(fn.children[-1]):
            if leaf.type != "name" or leaf.value != _KEY:
                continue
            parent, nxt = leaf.parent, leaf.get_next_sibling()
            if nxt is not None and nxt.type == "trailer" and nxt.children[0].value == "[":
                return param.name, code(parent).strip(), "index"
            if nxt is not None and nxt.type == "trailer":
                return None  # `past_key_values.x`: a Cache's member
            if parent.type == "for_stmt" and parent.children[3] is leaf:
                return param.name, f"for ... in {_KEY}", "iterate"
            if parent.type == "arglist" and code(parent.parent.parent).lstrip().startswith("zip"):
                return param.name, code(parent.parent.parent).strip(), "iterate"
            if parent.type in ("comparison", "not_test") or (parent.type == "expr_stmt" and parent.children[0] is
                                                               not leaf):
                continue  # `is None` tests; `x = past_key_values` copies
            if parent.type == "expr_stmt" and not _under_none_test(parent):
                return None  # assigned before any read (not the `if past_key_values is None:` default)
        return None
    return None


def _under_none_test(node: Node) -> bool:
    """`node` is in the body of an `if past_key_values is None:` (the forward's default for the first step)."""
    while node.parent is not None and node.type != "funcdef":
        node = node.parent
        if node.type == "if_stmt" and re.match(rf"{_KEY}\s+is\s+None\b", code(node.children[1]).strip()):
            return True
    return False


def legacy_forward_finding(rule: Rule, analysis: Analysis, own: LegacyForward) -> Finding:
    """The project's generation model whose forward reads `past_key_values` as the legacy tuple, where
    generate hands it a `DynamicCache` (own_forward.py: the releases run)."""
    target = analysis.context.target
    if own.how == "index" and target.version.major == 5:
        error = "TypeError: 'DynamicCache' object is not subscriptable"
    elif ".size(" in own.read:
        error = "AttributeError: 'NoneType' object has no attribute 'size'"
    else:
        error = "an error on the None it reads (AttributeError: 'NoneType' object has no attribute ...)"
    message = (f"`{own.cls}.forward` reads `past_key_values` as the legacy tuple (`{own.read}`), and "
               f"transformers {target}'s `generate` hands the model's forward a `DynamicCache` (its layers "
               f"empty on the first step), not None: the read raises {error} (checked with such a class on "
               "4.57.6, 5.3.0, 5.4.0, 5.13.1 and 5.23.0; 4.53.0 and 5.0.0 hand it None, 5.24.0+ hand the cache as "
               "`cache=`)")
    return rule.report(own.param, message, severity=Severity.ERROR, fixes=(),
                       story=f"**{rule.code} {rule.name}**: `{own.cls}` is a generation model of the project "
                             "(remote-code style) whose forward was written for the legacy cache format.\n\n"
                             f"{message}.\n\n**Fix**: accept a `Cache` in the forward (`DynamicCache` and "
                             "its `update(key, value, layer_idx)` in the attention), or convert it at the top of "
                             "`forward` where it is one (`past_key_values.to_legacy_cache()` on 4.x).")
