"""The project's own subclasses of a transformers model class (`class Chat(LlamaForCausalLM)`): an instance is a
user object (its own methods run inline, `self` bound to it) AND a transformers model (what the class does not
define is the model's: `generate`, the forward pass, `generation_config`, `super().generate(...)`).

The instance (`InstanceState`) holds the model it is under the reserved attribute `MODEL_ATTR` (no Python attribute
can be named so: `self.x = ...` never writes it), a `ModelState` of the transformers class the subclass derives from,
so the model's facts (its class, checkpoint, generation config) are the ones every other model gets (methods.py,
calls.py). Built by `Cls(...)`, `Cls.from_pretrained(...)` / `Cls.from_config(...)` and, for a method run with its
parameters unknown, the class's shared `self` (functions.py `setup_instance`)."""

from __future__ import annotations

import re
from typing import Any

from hf_cache_lint.engine.interpreter.values import ClassDef, InstanceState, Ref, Symbol, Value

MODEL_ATTR = "<transformers model>"

# A transformers model class by its name (as known.py's loaders): `LlamaForCausalLM`, `GPT2LMHeadModel`, `T5Model`,
# `GPT2PreTrainedModel`, `PreTrainedModel`; not a tokenizer, processor or config.
_MODEL_CLASS = re.compile(r"^(\w*PreTrainedModel|\w+(?:Model|For[A-Z]\w*|LMHeadModel))$")
_NOT_MODEL = re.compile(r"(Tokenizer|Processor|Config|FeatureExtractor|ImageProcessor)\w*$")
# The model's class methods that build an instance of the class they are called on.
LOADERS = frozenset({"from_pretrained", "from_config", "_from_config"})
MAX_DEPTH = 4  # the module's own classes walked between a subclass and its transformers base


def transformers_model(qualname: str) -> bool:
    """A transformers model class by its qualified name (`transformers.LlamaForCausalLM`, `transformers.models.
    gpt2.modeling_gpt2.GPT2PreTrainedModel`); not the `Auto*` factories, whose `from_pretrained` is no subclass's."""
    if not qualname.startswith("transformers."):
        return False
    name = qualname.rpartition(".")[2]
    return bool(_MODEL_CLASS.match(name)) and not _NOT_MODEL.search(name) and not name.startswith("Auto")


def model_of(obj: InstanceState) -> Ref | None:
    """The transformers model an instance of a model subclass is (None for any other user object)."""
    got = obj.get(MODEL_ATTR)
    return got if isinstance(got, Ref) else None


def base_model_name(base: str) -> str:
    """The class name a `ModelState` of the subclass carries: the transformers base's (`LlamaForCausalLM`)."""
    return base.rpartition(".")[2]


def defines(module_names: dict[str, Value], cls: ClassDef, name: str, bases_of: Any, depth: int = 0) -> bool:
    """Whether the class or one of the module's own classes it derives from defines method `name` (what it does
    not define is the transformers model's). `bases_of(node)`: the values of a class node's bases."""
    if cls.node is None or depth > MAX_DEPTH:
        return cls.node is None  # a class the linter cannot see may define anything
    if any(fn.name.value == name for fn in cls.node.iter_funcdefs()):
        return True
    return any(defines(module_names, b, name, bases_of, depth + 1)
               for b in bases_of(cls.node) if isinstance(b, ClassDef))


def enclosing_method(node: Any) -> tuple[Any, Any] | None:
    """The method (funcdef) and class (classdef) a `super()` written at `node` runs in, None outside a method."""
    fn = node.search_ancestor("funcdef")
    while fn is not None:
        parent = fn.parent
        if parent is not None and parent.type in ("decorated", "async_stmt"):  # `@torch.no_grad()` above it
            parent = parent.parent
        if parent is not None and parent.type == "suite":
            parent = parent.parent
        if parent is not None and parent.type == "classdef":
            return fn, parent
        fn = fn.search_ancestor("funcdef")
    return None


def symbol_base(value: Value) -> str:
    """The transformers model class a base value names ("" for anything else)."""
    return value.qualname if isinstance(value, Symbol) and transformers_model(value.qualname) else ""
