"""What a project's own cache class (deriving from a transformers cache) does before transformers reaches its
`update` override. A class deriving from `Cache` itself whose `__init__` runs `super().__init__()` without
`layers` cannot be built from 4.56 (`ValueError: You should provide exactly one of `layers` or
`layer_class_to_replicate` to initialize a Cache`, the oracle on 4.57.6-5.25.0: `recall:heldout6/
kvpruner_sink_eviction.py`). The model's forward asks the cache for its length (`get_seq_length`, from 5.14.0 through
`Cache.get_query_offset(layer_idx)` as `get_seq_length(layer_idx=...)`) before any attention layer updates it. A
class whose own `get_seq_length` cannot answer makes the forward raise there, so how transformers calls `update`
(HFC010's `kwargs=`, 5.24.0) is never what breaks it (docs/facts.md, issue 29 item 3; the oracle:
`recall:heldout3/pensieve_session_cache.py`, `heldout6/logquant_streaming_cache.py`)."""

from __future__ import annotations

from typing import Literal

from hf_cache_lint.engine.interpreter.hook_names import Names, is_trailer, reference_role
from hf_cache_lint.engine.interpreter.hook_trees import base_items, suite, walk
from hf_cache_lint.engine.syntax.nodes import Node, code, dotted

# How a model class of the module comes by `generate` (what calls its `prepare_inputs_for_generation`): "head" from
# a transformers generation head (`LlamaForCausalLM`, `GPT2LMHeadModel`, ...), "mixin" only from `GenerationMixin`
# listed beside a backbone (`LlamaPreTrainedModel, GenerationMixin`), "" not at all (a backbone alone).
Generates = Literal["head", "mixin", ""]
_RANK = {"": 0, "mixin": 1, "head": 2}


def fails_first(cls: Node, base: str) -> str:
    """Why the class fails before transformers calls its `update`: "base_init" when it derives from `Cache` and its
    `__init__` runs `super().__init__()` without arguments; "no_layers" when its own `__init__` never runs a base
    `__init__` and nothing in the class sets `self.layers` or defines the calls that read it (4.54+'s forward reads
    `layers` in its mask and length calls: AttributeError, HFC002's `object` container, docs/facts.md §8);
    "layer_idx" when its own `get_seq_length` takes no
    `layer_idx` (nor `**kwargs`); else the first attribute that `get_seq_length` reads off `self` and the class never
    assigns with `=` (annotated or not; an augmented `self._seen_tokens += n` reads it first); else ""."""
    methods: dict[str, Node] = {}
    for stmt in suite(cls.children[-1]):
        fn = stmt.children[-1] if stmt.type == "decorated" else stmt
        if fn.type == "funcdef":
            methods[fn.children[1].value] = fn
    init = methods.get("__init__")
    if base == "Cache" and init is not None and any(_bare_super_init(n) for n in walk(init.children[-1])):
        return "base_init"
    if init is not None and not any(_init_call(n) for n in walk(init.children[-1])) and \
            not (_READ_LAYERS & methods.keys()) and not any(
                _self_attribute(t) == "layers" for fn in methods.values() for node in walk(fn.children[-1])
                if node.type == "expr_stmt" for t in node.children[:-1:2]):
        return "no_layers"
    length = methods.get("get_seq_length")
    if length is None or "__getattr__" in methods:
        return ""  # the base's `get_seq_length`; or attributes the linter cannot see
    params = length.get_params()
    if not any(p.star_count == 2 or p.name.value == "layer_idx" for p in params[1:]):
        return "layer_idx"
    # `self.x = v`, and `self.x: T = v` (an annotated assignment with a value: llm-compressor's `reset_states`).
    assigned = {_self_attribute(t) for fn in methods.values() for node in walk(fn.children[-1])
                if node.type == "expr_stmt" and node.children[1].type == "operator" and node.children[1].value == "="
                for t in node.children[:-1:2]} | \
        {_self_attribute(node.children[0]) for fn in methods.values() for node in walk(fn.children[-1])
         if node.type == "expr_stmt" and node.children[1].type == "annassign" and len(node.children[1].children) == 4}
    for node in walk(length.children[-1]):
        name = _self_attribute(node)
        if name and name not in assigned and name not in methods:
            return name
    return ""


# What a class may define instead of `layers` so that the forward never reads it (engine/interpreter/own_caches.py's
# `_READ_LAYERS`: the calls that read it).
_READ_LAYERS = frozenset({"get_mask_sizes", "get_query_offset", "__getattr__", "__getattribute__"})


def _init_call(node: Node) -> bool:
    """`<anything>.__init__(...)`: `super().__init__(...)`, `super(C, self).__init__(...)`, `Base.__init__(self)`."""
    kids = node.children if node.type in ("power", "atom_expr") else []
    return any(is_trailer(k, ".", "__init__") for k in kids)


def _self_attribute(node: Node) -> str:
    """`x` of `self.x` (the attribute read or assigned), else ""."""
    if node.type in ("power", "atom_expr") and len(node.children) >= 2 and node.children[0].type == "name" and \
            node.children[0].value == "self" and is_trailer(node.children[1], "."):
        return str(node.children[1].children[1].value)
    return ""


def _bare_super_init(node: Node) -> bool:
    """`super().__init__()`, no arguments."""
    kids = node.children if node.type in ("power", "atom_expr") else []
    return len(kids) == 4 and kids[0].type == "name" and kids[0].value == "super" and is_trailer(kids[1], "(") and \
        is_trailer(kids[2], ".", "__init__") and is_trailer(kids[3], "(") and len(kids[3].children) == 2


def generates(cls: Node, names: Names, own: dict[str, Generates]) -> Generates:
    """How the model class `cls` comes by `generate` (`own`: the module's classes already read). A transformers
    backbone (`PreTrainedModel`, `LlamaPreTrainedModel`, `GPT2Model`) has none of its own: from 4.52.1 (the release
    table's `PreTrainedModel` bases) `PreTrainedModel` no longer derives from `GenerationMixin` (the oracle: `recall:heldout7/xtts_gpt_inference.py`,
    AttributeError: '...' object has no attribute 'generate' on 4.57.6-5.25.0), so only `GenerationMixin` listed
    beside it brings one. A generation head (`*ForCausalLM`, `*ForConditionalGeneration`, `*LMHeadModel`) has it."""
    if len(cls.children) < 7:
        return ""
    bases = cls.children[3]
    items = base_items(bases)
    best: Generates = ""
    for base in items:
        if base.type == "argument":
            continue
        path = dotted(base)
        if path is None:
            continue
        name = names.originals.get(path, path.split(".")[-1])
        found: Generates = ""
        if name == "GenerationMixin":
            found = "mixin"
        elif code(base).strip() in own:
            found = own[code(base).strip()]
        elif reference_role(path, names) == "model" and not _backbone(name):
            found = "head"
        if _RANK[found] > _RANK[best]:
            best = found
    return best


def _backbone(name: str) -> bool:
    """A transformers model class without a language-model head, hence without `generate` from 4.52.1 (the release
    table's `PreTrainedModel` bases)."""
    if name.endswith(("HeadModel", "HeadsModel", "EncoderDecoderModel")):
        return False  # `GPT2LMHeadModel`, `GPT2DoubleHeadsModel`, `VisionEncoderDecoderModel` generate
    return name.endswith("Model")  # `PreTrainedModel`, `LlamaPreTrainedModel`, `LlamaModel`, `AutoModel`


# The reasons of `fails_first` that come from a class's `__init__` (the rest come from its `get_seq_length`).
_INIT_FAILS = ("base_init", "no_layers")


def update_reach(tree: Node, at: tuple[int, int], owner_fails: str, reaching: frozenset[str],
                 used: frozenset[str]) -> tuple[tuple[str, str], ...] | None:
    """For the `update` override whose name starts at `at` (line, column) in a class of the module: each class of
    `reaching` (the module's classes whose instances it hands to a transformers forward or generate) whose `update`
    is that one, with why it fails before a layer calls `update` (`fails_first`'s reasons: the owner's own, or for a
    subclass its own `__init__` / `get_seq_length` where it defines them, else the owner's). None where the override
    is not a method of a class of the module, and where none of those classes reaches transformers' code nor is
    used in the module outside its own methods (`used`): a class the module only defines may be handed to a model
    elsewhere."""
    classes: dict[str, Node] = {}
    owner: Node | None = None
    for node in walk(tree):
        if node.type != "classdef":
            continue
        classes.setdefault(node.children[1].value, node)
        if owner is None and any(fn.children[1].start_pos == at for fn in _methods(node).values()):
            owner = node
    if owner is None:
        return None
    name = owner.children[1].value
    if not any(_chain(cls, name, classes) is not None for cls in reaching | used):
        return None
    found: list[tuple[str, str]] = []
    for cls in sorted(reaching):
        chain = _chain(cls, name, classes)
        if chain is None:
            continue
        fails = owner_fails
        for step in reversed(chain[:-1]):  # the subclasses below the owner, nearest the owner first
            methods = _methods(step)
            if "__init__" in methods or "get_seq_length" in methods:
                own = fails_first(step, "")
                init = own if own in _INIT_FAILS else ("" if "__init__" in methods else
                                                       (fails if fails in _INIT_FAILS else ""))
                length = ("layer_idx" if own == "layer_idx" else "") if "get_seq_length" in methods else \
                    ("" if fails in _INIT_FAILS else fails)
                fails = init or length
        found.append((cls, fails))
    return tuple(found)


def _methods(cls: Node) -> dict[str, Node]:
    """The functions a class body defines (decorated ones included), by name."""
    methods: dict[str, Node] = {}
    for stmt in suite(cls.children[-1]):
        fn = stmt.children[-1] if stmt.type == "decorated" else stmt
        if fn.type == "funcdef":
            methods[fn.children[1].value] = fn
    return methods


def _chain(cls: str, owner: str, classes: dict[str, Node]) -> list[Node] | None:
    """The module's classes from `cls` up to `owner` through their first base of the module (`cls` first, `owner`
    last), where none below `owner` defines its own `update`; None when `cls` does not derive from `owner` so."""
    chain: list[Node] = []
    seen: set[str] = set()
    while cls not in seen and (node := classes.get(cls)) is not None:
        seen.add(cls)
        chain.append(node)
        if cls == owner:
            return chain
        if "update" in _methods(node) or len(node.children) < 7:
            return None
        bases = [b for b in base_items(node.children[3]) if b.type == "name" and b.value in classes]
        if not bases:
            return None
        cls = bases[0].value
    return None


def method_def(tree: Node, cls: str, name: str) -> Node | None:
    """The name leaf of the `def name` that class `cls` of the module (at any depth) runs: its own, else the first
    of its module bases' on the way (their first base each); None where none of the module's classes on the way
    defines it (a transformers class's, or a class of another module)."""
    classes: dict[str, Node] = {}
    for node in walk(tree):
        if node.type == "classdef":
            classes.setdefault(node.children[1].value, node)
    seen: set[str] = set()
    while cls not in seen and (node := classes.get(cls)) is not None:
        seen.add(cls)
        fn = _methods(node).get(name)
        if fn is not None:
            return fn.children[1]
        if len(node.children) < 7:
            return None
        bases = [b for b in base_items(node.children[3]) if b.type in ("name", "power", "atom_expr")]
        if not bases or bases[0].type != "name":
            return None
        cls = bases[0].value
    return None
