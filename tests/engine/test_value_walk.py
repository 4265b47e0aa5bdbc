"""One walk of what a value holds (engine/interpreter/values.py `children` / `map_children`), used by every traversal:
the weighting (`bounded`), reachability (state.py `reachable`), the replay's node collection
(interpreter/replay_matching.py `_nodes`) and the copier of workspace imports (interpreter/imports.py). The two
reproductions below lost HFC001 while those walks were kept by hand and drifted apart (issue 28)."""

from __future__ import annotations

import dataclasses
import re
import typing
from pathlib import Path

import pytest
from tests.engine.conftest import Checker

from hf_cache_lint.engine.interpreter import replay_matching, values
from hf_cache_lint.engine.interpreter.state import Heap, reachable
from hf_cache_lint.engine.interpreter.values import Ref, Value

PARTIAL = ("import functools\n"
           "from transformers import AutoModelForCausalLM, DynamicCache\n"
           'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")\n'
           'model.generate = functools.partial(model.generate, cache_implementation="static")\n')


def test_a_partial_replacement_survives_the_pruning_of_the_heap_in_uncalled_functions(check: Checker) -> None:
    # Many uncalled helpers fill the module's heap with what they built; run_uncalled then keeps only what is
    # reachable, and the partial's keyword dict (held only by the model's `generate` replacement) was dropped.
    helpers = "".join(f"def helper_{i}():\n    a = {{'k': {i}}}\n    b = {{'k': a}}\n    return [a, b]\n\n"
                      for i in range(60))
    code = PARTIAL + "\n" + helpers + "def reply(inputs):\n" \
        "    return model.generate(**inputs, past_key_values=DynamicCache())\n"
    [f] = check(code)
    assert f.span.start.line == code.count("\n") and "static" in f.message


def test_a_partial_replacement_made_in_a_workspace_module_reaches_the_importer(check: Checker,
                                                                                 tmp_path: Path) -> None:
    # The copier of imported values copied a model's config but not its `generate` replacement.
    (tmp_path / "models.py").write_text(PARTIAL)
    code = ("from transformers import DynamicCache\nfrom models import model\n"
            "out = model.generate(max_new_tokens=4, past_key_values=DynamicCache())\n")
    [f] = check(code)
    assert f.span.start.line == 3 and "static" in f.message


# --- the property: every field able to hold a value or ref is walked ------------------------------------

def _sample(annotation: str, marker: Value) -> object:
    """A field value of `annotation` holding `marker` (a new annotation shape fails here: teach it)."""
    a = annotation.replace(" ", "")
    if a in ("Value", "Value|None", "Ref|None", "Ref"):
        return marker
    if a == "tuple[Value,...]":
        return (marker,)
    if a == "tuple[tuple[Value,Cond|None],...]":
        return ((marker, None),)
    if a == "tuple[tuple[str,Value],...]":
        return (("k", marker),)
    if a == "tuple[Entry,...]":
        return (("k", marker, None, None),)
    raise AssertionError(f"a field of type {annotation} holds values: teach this test (and values._WALK) its shape")


def _holds_values(annotation: str) -> bool:
    return re.search(r"\b(Value|Ref|Entry)\b", annotation) is not None


_TYPES = [*typing.get_args(values.Value.__value__ if hasattr(values.Value, "__value__") else values.Value),
          *typing.get_args(values.HeapObj)]


def _fields_holding_values() -> list[tuple[type, str, str]]:
    out = []
    for cls in _TYPES:
        for f in dataclasses.fields(cls):
            if _holds_values(str(f.type)):
                out.append((cls, f.name, str(f.type)))
    return out


def _instance(cls: type, name: str, annotation: str, marker: Value) -> object:
    required = {f.name: ("x" if "str" in str(f.type) else None) for f in dataclasses.fields(cls)
                if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING and f.init}
    required[name] = _sample(annotation, marker)
    return cls(**required)


def test_the_property_covers_every_value_and_heap_type() -> None:
    assert {c.__name__ for c in _TYPES} >= {"Partial", "Function", "ModelState", "DictState", "InstanceState"}
    assert len(_fields_holding_values()) >= 12


@pytest.mark.parametrize(("cls", "name", "annotation"), _fields_holding_values(),
                         ids=lambda x: x.__name__ if isinstance(x, type) else str(x))
def test_every_field_that_can_hold_a_value_is_walked(cls: type, name: str, annotation: str) -> None:
    marker = Ref(4242)
    x = _instance(cls, name, annotation, marker)
    assert marker in values.children(x)
    moved = values.map_children(x, lambda v: Ref(7) if v == marker else v)
    assert Ref(7) in values.children(moved) and marker not in values.children(moved)
    # reachability follows it: the marker's heap object is reached from x (through a ref to x when x is a
    # heap object)
    heap = Heap()
    heap[4242] = values.ConfigState()
    if cls in typing.get_args(values.HeapObj):
        heap[1] = x  # type: ignore[assignment]
        assert 4242 in reachable(heap, [Ref(1)])
    else:
        assert 4242 in reachable(heap, [x])  # type: ignore[list-item]


@pytest.mark.parametrize(("cls", "name", "annotation"),
                         [t for t in _fields_holding_values() if "Ref" not in t[2]],
                         ids=lambda x: x.__name__ if isinstance(x, type) else str(x))
def test_every_field_that_can_hold_a_function_is_searched_by_the_replay(cls: type, name: str,
                                                                          annotation: str) -> None:
    node = object()
    x = _instance(cls, name, annotation, values.Function(node, "f"))
    assert id(node) in replay_matching._nodes(x)
