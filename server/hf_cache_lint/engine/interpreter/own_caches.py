"""A project's own object given as the cache of a transformers model's forward, and the member the forward reads
first that the object lacks (HFC002's `object` container; docs/facts.md §8, each run on the oracle at 4.53.0,
4.57.6, 5.0.0 and 5.24.0 with Llama, Qwen2 and GPT-2, and the HFC002 examples at 4.57.6 and 5.23.0-5.25.0):

- a subclass of a transformers cache whose own `__init__` never runs the base one has no `layers` (4.54's cache
  layers are made there): the forward's mask and length calls read `self.layers`, AttributeError
  `'<Class>' object has no attribute 'layers'`, unless the class sets `layers` or defines those calls itself;
- a subclass of a transformers cache whose own `get_seq_length` takes no `layer_idx`: from 5.14.0 the forward asks
  for one layer's length, TypeError `<Class>.get_seq_length() got an unexpected keyword argument 'layer_idx'`
  (5.13.1 runs it);
- an instance of a plain class of this file (no base) without `get_seq_length`: the forward calls it first,
  AttributeError `'<Class>' object has no attribute 'get_seq_length'`.

A class the linter cannot see whole (a base it cannot resolve, `__getattr__`) is never claimed."""

from __future__ import annotations

import re

from hf_cache_lint.engine.facts.forward_cache import NONE_LAYERS
from hf_cache_lint.engine.interpreter.class_members import own_members
from hf_cache_lint.engine.interpreter.session import Session
from hf_cache_lint.engine.interpreter.values import ClassDef, InstanceState, ListVal, Value
from hf_cache_lint.engine.text.text import line_starts, offset

# What a cache subclass may define instead of `layers` so that the forward never reads it: the calls that read it.
_READ_LAYERS = frozenset({"layers", "get_mask_sizes", "get_query_offset", "__getattr__", "__getattribute__"})
_DYNAMIC = frozenset({"__getattr__", "__getattribute__", "get_seq_length"})


# `[None] * n`, `n * [None]`, `[None for _ in ...]`, `[None, None]`: a list the code fills with None only.
_NONE_LIST = re.compile(r"\[\s*None\s*\]\s*\*|\*\s*\[\s*None\s*\]|\[\s*None\s+for\b|\[\s*None\s*(?:,\s*None\s*)*,?\s*\]$")


def _none_layers(session: Session, obj: InstanceState) -> bool:
    """The instance's `layers` is a list the class filled with None (PensieveCache's `self.layers = [None] *
    num_layers`): the forward's mask asks such a layer for its sizes."""
    layers = obj.get("layers")
    if type(layers) is not ListVal or layers.site is None or "layers" not in obj.own:
        return False
    starts = line_starts(session.text)
    span = layers.site.span
    text = session.text[offset(starts, span.start):offset(starts, span.end)]
    return _NONE_LIST.search(text.strip()) is not None


def lacking(session: Session, value: Value) -> tuple[str, str, bool, bool] | None:
    """(the object's class, the member the forward reads first that it lacks ("" when none), whether the class
    subclasses a transformers cache, whether its `get_seq_length` takes no `layer_idx`) for an instance of the
    project's own class given as the cache, else None."""
    obj = session.obj(value)
    if not isinstance(obj, InstanceState):
        return None
    if obj.cache_base:
        missing = "layers" if obj.skips_init and not (_READ_LAYERS & obj.own) else ""
        if not missing and "get_seq_length" in obj.own and not ((_READ_LAYERS - {"layers"}) & obj.own) and \
                _none_layers(session, obj):
            # Its own length answers first (the base's would ask a None layer for it): the mask is the first to
            # reach a layer (run on 4.57.6 with PensieveCache's shape, heldout3 pv_forward_session).
            missing = NONE_LAYERS
        return (obj.class_name, missing, True, obj.narrow_length) if missing or obj.narrow_length else None
    cls = session.module_state.names.get(obj.class_name)
    bases = cls.node.get_super_arglist() if isinstance(cls, ClassDef) and cls.node is not None else None
    if not isinstance(cls, ClassDef) or cls.node is None or (
            bases is not None and not (bases.type == "name" and bases.value == "object")):
        return None  # a class of another module, or one with bases (which may bring the whole protocol)
    if _DYNAMIC & own_members(cls.node) or any(name == "get_seq_length" for name, _ in obj.attrs):
        return None
    return obj.class_name, "get_seq_length", False, False
