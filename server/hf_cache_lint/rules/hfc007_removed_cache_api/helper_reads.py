"""A private `GenerationMixin` helper called on a loaded model with a config or dict generate would have prepared
first: code that runs generate's steps itself (InternLM's streaming chat, RL4LMs' rollouts, Chinese-LLaMA's
speculative sampling) copies the calls of an older `generate` and skips the preparation a later one added.

The release table's `reads:` facts (scripts/release_table.py `helper_reads`, probed at every oracle release by
tests/oracle/test_releases.py) say what each helper reads on every call:
- `_get_stopping_criteria` reads `generation_config._eos_token_tensor` from 4.43.0 on, an attribute only
  `_prepare_special_tokens` sets (generate runs it first): a config the code never prepared raises
  `AttributeError: 'GenerationConfig' object has no attribute '_eos_token_tensor'`;
- `_update_model_kwargs_for_generation` reads `model_kwargs["cache_position"]` on 4.43.0-5.2.0 (generate puts the
  positions there first): a dict without them raises `KeyError: 'cache_position'`.

Precision: the receiver is a model the code loads (the interpreter's `cache_use` of a model), not `self` in a
method (an override of generate's gets generate's own prepared arguments; `self` in a module function the
interpreter runs as a model's method, EasyEdit's `GenerationMixin.generate = deco_generate`, is judged, and so is
`self._get_stopping_criteria(config)` in a method that makes the config itself and a class that does not define the
helper: ChatGLM2's `stream_generate`, `_own_config`); the config case needs the function
holding the call (the module, at top level) to neither call `_prepare_special_tokens` nor set `_eos_token_tensor`;
the dict case needs the module never to mention `cache_position` (nothing there can have put the key in), and the
dict not to be the `**` parameter of the function holding the call (a loop generate calls with its own dict)."""

from __future__ import annotations

from collections.abc import Callable

from hf_cache_lint.engine.base.findings import Finding, Severity
from hf_cache_lint.engine.environment import releases
from hf_cache_lint.engine.environment.release_version import Version
from hf_cache_lint.engine.facts.cache_use import CacheUse, UseArgument
from hf_cache_lint.engine.interpreter.backbone_generate import defines
from hf_cache_lint.engine.output.analysis import Analysis
from hf_cache_lint.engine.syntax.nodes import Node, code
from hf_cache_lint.rules.base import Rule

_MIXIN = "transformers.generation.utils.GenerationMixin"
# helper -> (the read the table's fact names, the argument holding it: its keyword, its position)
_READS: dict[str, tuple[str, str, int]] = {
    "_get_stopping_criteria": ("generation_config._eos_token_tensor", "generation_config", 0),
    "_update_model_kwargs_for_generation": ("model_kwargs['cache_position']", "model_kwargs", 1),
}
# What makes the config's special-token tensors (generate's own step, or the attribute set by hand).
_PREPARED = ("_prepare_special_tokens", "_eos_token_tensor")


def reads(helper: str, version: Version) -> bool:
    """The target's `helper` reads what `_READS` names on every call (the release table)."""
    fact = releases.value(f"reads:{_MIXIN}.{helper}", version) or ""
    return _READS[helper][0] in fact.split(", ")


def _first(holds: Callable[[Version], bool], target: Version) -> Version:
    """The first release of the run of releases up to `target` for which `holds` is true."""
    first = target
    for r in reversed([r for r in releases.known_releases() if r <= target]):
        if not holds(r):
            break
        first = r
    return first


def _argument(use: CacheUse, keyword: str, position: int) -> UseArgument | None:
    positional = [a for a in use.arguments if a.name is None]
    if any(a.text.startswith("*") for a in use.arguments):
        return None  # spread arguments: which one holds it is not said
    named = next((a for a in use.arguments if a.name == keyword), None)
    return named if named is not None else positional[position] if position < len(positional) else None


def _scope(analysis: Analysis, use: CacheUse) -> Node | None:
    """The function holding the call (the module, at top level); None without a tree."""
    tree = analysis.tree
    if tree is None:
        return None
    scope = tree.get_leaf_for_position((use.span.start.line, use.span.start.column), include_prefixes=True)
    while scope is not None and scope.type not in ("funcdef", "file_input"):
        scope = scope.parent
    return scope


def _spread_parameter(analysis: Analysis, use: CacheUse, name: str) -> bool:
    """`name` is the `**` parameter of the function holding the call (`def sample(self, ..., **model_kwargs)`): a
    loop of generate's own, called by generate with the dict it prepared."""
    scope = _scope(analysis, use)
    return scope is not None and scope.type == "funcdef" and any(
        p.star_count == 2 and p.name.value == name for p in scope.get_params())


def _module_function(analysis: Analysis, use: CacheUse) -> bool:
    """The call is in a module-level function (whose `self` the interpreter found to be a model: a function set on
    `GenerationMixin` or handed to generate as `custom_generate`, which runs as the model's method with the
    arguments the function itself builds), not in a method of a class (an override generate calls with its own
    prepared arguments)."""
    scope = _scope(analysis, use)
    return scope is not None and scope.type == "funcdef" and scope.parent is not None and \
        scope.parent.type == "file_input"


def _enclosing_names(analysis: Analysis, use: CacheUse) -> set[str] | None:
    """The names in the function holding the call (the module's, at top level); None without a tree."""
    scope = _scope(analysis, use)
    if scope is None:
        return None
    names: set[str] = set()
    stack = [scope]
    while stack:
        node = stack.pop()
        if node.type == "name":
            names.add(node.value)
        stack.extend(getattr(node, "children", ()))
    return names


def _own_config(analysis: Analysis, use: CacheUse, argument: UseArgument) -> bool:
    """`self.<helper>(config)` in a method of a class that does not define the helper, where the method makes the
    config itself (`generation_config = copy.deepcopy(generation_config)`, `= self.generation_config`): remote
    code's own `stream_generate` (ChatGLM2's), or a `generate` override copied from an older release. Generate's
    own steps get its prepared config as a parameter they never rebind."""
    if use.name != "_get_stopping_criteria":
        return False
    scope = _scope(analysis, use)
    owner = scope.parent if scope is not None else None
    while owner is not None and owner.type in ("suite", "decorated"):
        owner = owner.parent
    if scope is None or owner is None or owner.type != "classdef":
        return False
    name = argument.text.strip()
    if defines(owner, (use.name,)):
        return False
    if name == "self.generation_config":
        return True
    stack = [scope.children[-1]]
    while stack:
        node = stack.pop()
        if node.type == "expr_stmt" and len(node.children) == 3 and code(node.children[1]).strip() == "=" and \
                node.children[0].type == "name" and node.children[0].value == name:
            return True
        if node.type not in ("funcdef", "classdef", "lambdef"):
            stack.extend(getattr(node, "children", ()))
    return False


def finding(rule: Rule, analysis: Analysis, use: CacheUse) -> Finding | None:
    if use.what != "model" or use.op != "call" or use.name not in _READS:
        return None
    target = analysis.context.target
    if not reads(use.name, target.version):
        return None
    _, keyword, position = _READS[use.name]
    argument = _argument(use, keyword, position)
    if argument is None:
        return None
    if use.receiver.strip() == "self" and not _module_function(analysis, use) and \
            not _own_config(analysis, use, argument):
        return None
    first = _first(lambda r: reads(use.name, r), target.version)
    since = f" (since {first})" if first != target.version else ""
    call = f"`{use.receiver}.{use.name}(...)`"
    if use.name == "_get_stopping_criteria":
        names = _enclosing_names(analysis, use)
        if names is None or any(n in names for n in _PREPARED):
            return None
        message = (f"{call}: transformers {target}'s `GenerationMixin._get_stopping_criteria` reads "
                   f"`generation_config._eos_token_tensor`{since}, which only `_prepare_special_tokens` sets (generate "
                   f"runs it first), and this code never runs it on `{argument.text}`: this raises AttributeError: "
                   "'GenerationConfig' object has no attribute '_eos_token_tensor'. Instead, call "
                   f"`{use.receiver}._prepare_special_tokens({argument.text})` first (every release from 4.41.0 "
                   "has it; its other parameters have defaults), or let `generate` run the steps")
    else:
        if "cache_position" in analysis.text or _spread_parameter(analysis, use, argument.text.strip()):
            return None
        gone = _gone(use.name, target.version)
        if gone:
            since = f" ({first} to {gone})"
        message = (f"{call}: transformers {target}'s `GenerationMixin._update_model_kwargs_for_generation` reads "
                   f"`model_kwargs[\"cache_position\"]` on every call{since}, which generate puts there "
                   f"first, and nothing in this module sets it in `{argument.text}`: this raises KeyError: "
                   "'cache_position'. Instead, start the dict with the prompt's positions "
                   "(`\"cache_position\": torch.arange(input_ids.shape[1])`), or let `generate` run the steps")
    return rule.report(use.span, message, severity=Severity.ERROR,
                       story="Generate prepares what its private helpers read before it calls them; code that "
                             "copies an older generate's calls of those helpers misses what a later release added.")


def _gone(helper: str, target: Version) -> str:
    """`5.2.0; 5.3.0 reads it only when present` where a later release stops reading it on every call (the
    table), else ""."""
    later = [r for r in releases.known_releases() if r > target]
    stop = next((r for r in later if not reads(helper, r)), None)
    if stop is None:
        return ""
    last = [r for r in releases.known_releases() if r < stop][-1]
    return f"{last}; {stop} reads it only when present"
