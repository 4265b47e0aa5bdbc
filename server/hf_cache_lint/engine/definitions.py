"""Definitions: functions and classes as values, and the functions nobody calls in the module
(request handlers, methods, library code), run last against the module's final state."""

from __future__ import annotations

from typing import Any

from hf_cache_lint.engine.evaluate import Evaluator
from hf_cache_lint.engine.nodes import Node, code
from hf_cache_lint.engine.state import Heap, reachable
from hf_cache_lint.engine.values import (
    ClassDef,
    ConfigState,
    Function,
    InstanceState,
    ModelState,
    Ref,
    Symbol,
    Unknown,
    Value,
)


class Definitions(Evaluator):
    def define(self, node: Node) -> None:
        name = node.name.value
        if node.type == "funcdef":
            self.state.names[name] = Function(node, name)
            if self.state is self.module_state:
                self.functions.append((node, None))
        else:
            self.state.names[name] = ClassDef(node, name)
            if any(fn.name.value == "generate" for fn in node.iter_funcdefs()) and not self._transformers_based(node):
                self.own_generate.add(name)
            if self.state is self.module_state:
                for fn in node.iter_funcdefs():
                    self.functions.append((fn, name))

    def _transformers_based(self, node: Node) -> bool:
        """A subclass of a transformers class (its `generate` override still ends in transformers')."""
        arglist = node.get_super_arglist()
        if arglist is None:
            return False
        bases = arglist.children if arglist.type == "arglist" else [arglist]
        for base in bases:
            if base.type in ("name", "power", "atom_expr"):
                value = self.eval(base)
                if isinstance(value, Symbol) and value.qualname.startswith("transformers."):
                    return True
        return False

    def run_uncalled(self) -> None:
        """Functions never called in the module (handlers, methods, library code) run last,
        against the module's final state, with their parameters unknown."""
        end = self.module_state
        instances: dict[str, Ref] = {}
        live = len(end.heap)
        for node, cls in self.functions:
            if id(node) in self.called:
                continue
            if len(end.heap) > 2 * live + 64:
                # What earlier functions built and dropped stays on the module's heap, and every later
                # function's forks paid for it (quadratic in the number of functions): keep what is
                # still reachable, whenever the heap has doubled since the last time.
                end.heap = Heap(reachable(end.heap, [*end.names.values(), *instances.values(),
                                                     *self.resolved.values()]))
                live = len(end.heap)
            self.state = end
            names: dict[str, Value] = {p.name.value: self.annotated(p) for p in node.get_params()}
            params = node.get_params()
            if isinstance(cls, str) and params and not _is_static(node):
                if cls not in instances:
                    instances[cls] = self.setup_instance(cls)
                names[params[0].name.value] = instances[cls]
            self.run_function(node, names, None)
        self.state = end

    def annotated(self, param: Any) -> Value:
        """A parameter of an uncalled function: unknown, unless annotated with a transformers model class."""
        ann = param.annotation
        if ann is not None:
            hint = self.eval(ann)
            if isinstance(hint, Symbol) and hint.qualname.startswith("transformers."):
                name = hint.qualname.rsplit(".", 1)[-1]
                if name.endswith(("Model", "LMHeadModel")) or "For" in name:
                    return self.new(ModelState(class_name=None if name.startswith("Auto") else name,
                                               gen_config=self.new(ConfigState())))
        return Unknown(f"the parameter `{param.name.value}`")

    def setup_instance(self, cls: str) -> Ref:
        """An instance as `__init__` leaves it, plus (conditionally) what setup methods add."""
        ref = self.new(InstanceState(cls))
        init = self.method_of(cls, "__init__")
        if init is not None and id(init.node) not in self.called:
            params = init.node.get_params()
            names: dict[str, Value] = {p.name.value: Unknown(f"the parameter `{p.name.value}`") for p in params}
            if params:
                names[params[0].name.value] = ref
            self.run_function(init.node, names, None)
            self.called.add(id(init.node))
        return ref


def _is_static(node: Any) -> bool:
    parent = node.parent
    if parent is not None and parent.type == "decorated":
        return any("staticmethod" in code(d) for d in parent.children[:-1])
    return False
