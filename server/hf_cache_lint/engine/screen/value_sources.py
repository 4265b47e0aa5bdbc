"""The gate's second stage, the values (engine/screen/reaching.py has the keywords and the module's `ast` Source): whether a
`cache_implementation` can be set, whether a `from_pretrained` can load, whether HFC007 can find a cache to read.
Each answers "cannot" only when it is sure.

`may_set_cache_implementation`: a `cache_implementation` value (a CiValue, a config's Setting) comes from a
string reaching a `cache_implementation=` keyword of a call that reads it, a `"cache_implementation"` key or
`setattr` string, an assignment to an attribute `x.cache_implementation`, or a load (`from_pretrained`, a
pipeline: words the gate tests apart) or import (the gate's workspace test). A module whose `cache_implementation`
is only read (`generation_config.cache_implementation`, a local variable named so), or passed to its own functions
that take no `**`, sets none (reading a config the module never set gives no value: expressions.py `attribute`).

`only_super_loads`: a checkpoint is read (generation_config.json, the Hub defaults) by a `from_pretrained` the
interpreter resolves to transformers' (known.py `_transformers`, loading.py); `super().from_pretrained(...)` is
a call of the builtin `super`, which it leaves unknown.

`may_hold_cache`: HFC007's reads (`cache[i]`, `for k, v in cache`, `get_max_cache_shape()`, `max_cache_len`) are
of a value engine/syntax/cache_values.py knows is a cache: a `<x>.generate(..., return_dict_in_generate=True)` output
bound to a name (its cache is `name.past_key_values` or `name.cache`, also bound to another name) or read inline,
or a name whose EVERY binding in its scope is a call of a cache class (`DynamicCache`, `StaticCache`, ...). A name
that is also a parameter of that function has a binding that is no cache (cache_values.py `_resolve` then knows
nothing), so `past_key_values = DynamicCache(...)` in a `forward(self, past_key_values=None)` makes none.
"""

from __future__ import annotations

import ast

from hf_cache_lint.engine.screen.reaching import FUNCTIONS, Scope, Source, bound_names, callee_name

# The callables the interpreter reads a `cache_implementation=` keyword of (engine/interpreter/known.py
# `_transformers` and its table, methods.py, loading.py, generate_calls.py), or that put keywords in a dict
# (`dict`, `update`, `partial`, `Thread(kwargs=...)`), by their last name; `setdefault` takes a string.
_CI_READERS = frozenset({"generate", "GenerationConfig", "from_pretrained", "from_config", "pipeline", "update",
                         "dict", "partial", "Thread", "Process", "setattr", "setdefault", "validate",
                         "save_pretrained"})


def may_set_cache_implementation(tree: ast.Module, pipeline_classes: frozenset[str]) -> bool:
    """Whether a `cache_implementation` value can be set (see the module docstring): True for a
    `"cache_implementation"` string, an attribute `x.cache_implementation` assigned or deleted, a class keyword,
    or a `cache_implementation=` keyword on a call that is not one of this module's own functions without a
    `**` parameter (`self._prepare_cache(cache_implementation=...)`: the value goes to a parameter, and what
    the body does with it is written there, in these same forms). Every node is looked at (a string can be
    written in pieces, `"cache_" "implementation"`), in one walk."""
    readers = _CI_READERS | pipeline_classes
    plain: dict[str, bool] = {}  # def name -> every def so spelled takes no `**`
    bound: set[str] = set()  # names bound otherwise (assigned, imported, a class, a parameter, ...)
    callees: list[str] = []  # the spelled callees of calls with a `cache_implementation=` keyword
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is ast.Constant:
            if node.value == "cache_implementation":  # type: ignore[attr-defined]
                return True
            continue
        if kind is ast.Name:
            if not isinstance(node.ctx, ast.Load):  # type: ignore[attr-defined]
                bound.add(node.id)  # type: ignore[attr-defined]
            continue
        if kind is ast.Attribute:
            assert isinstance(node, ast.Attribute)
            if not isinstance(node.ctx, ast.Load):
                if node.attr == "cache_implementation":
                    return True
                bound.add(node.attr)
        elif kind is ast.Call:
            assert isinstance(node, ast.Call)
            if any(k.arg == "cache_implementation" for k in node.keywords):
                name = callee_name(node.func)
                if name is None:
                    return True
                callees.append(name)
        elif kind is ast.ClassDef:
            assert isinstance(node, ast.ClassDef)
            if any(k.arg == "cache_implementation" for k in node.keywords):
                return True
            bound.add(node.name)
        elif kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
            assert isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            plain[node.name] = plain.get(node.name, True) and node.args.kwarg is None
            bound.update(n for n in bound_names(node) if n != node.name)
        elif kind is ast.alias:
            assert isinstance(node, ast.alias)
            if node.asname and node.name.rsplit(".", 1)[-1] in readers:
                return True  # a reader under another name
        else:
            bound.update(bound_names(node))
        for field in node._fields:
            value = getattr(node, field, None)
            if type(value) is list:
                stack.extend(v for v in value if isinstance(v, ast.AST))
            elif isinstance(value, ast.AST):
                stack.append(value)
    return any(name in readers or not plain.get(name, False) or name in bound for name in callees)


# engine/syntax/cache_values.py's _CACHE_CLASSES.
CACHE_CLASSES = frozenset({"DynamicCache", "StaticCache", "QuantizedCache", "EncoderDecoderCache"})


_OUTPUT_CACHE = ("past_key_values", "cache")  # engine/syntax/cache_values.py's: generate's output fields holding the cache


def may_hold_cache(src: Source) -> bool:
    """Whether engine/syntax/cache_values.py may find a value the code says is a cache (see the module docstring)."""
    words = set(CACHE_CLASSES)
    for node, _, _ in src.walk(CACHE_CLASSES):  # `from transformers import DynamicCache as D` (from anywhere)
        if isinstance(node, ast.ImportFrom):
            words.update(a.asname for a in node.names if a.name in CACHE_CLASSES and a.asname)
    classes = frozenset(words)
    words.add("return_dict_in_generate")
    outputs: set[str] = set()  # names bound to `<x>.generate(..., return_dict_in_generate=True)`
    for node, parent, scope in src.walk(words):
        if isinstance(node, ast.Call) and any(
                kw.arg == "return_dict_in_generate" and isinstance(kw.value, ast.Constant) and kw.value.value is True
                for kw in node.keywords):
            # cache_values.py `_output_of`: the call's callee is `.generate`, and the call is the whole value of
            # `name = ...` (then its cache is `name.past_key_values`) or read inline (`....past_key_values`).
            if not (isinstance(node.func, ast.Attribute) and node.func.attr == "generate"):
                continue
            if isinstance(parent, (ast.Assign, ast.AnnAssign)) and parent.value is node:
                targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
                if not all(isinstance(t, ast.Name) for t in targets):
                    return True
                outputs.update(t.id for t in targets if isinstance(t, ast.Name))
            elif isinstance(parent, ast.Attribute) or not isinstance(parent, (ast.Return, ast.keyword, ast.Call)):
                return True  # read inline, or anywhere this does not follow
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Call) \
                and callee_name(node.value.func) in classes:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            params = _parameters(scope)
            if any(not (isinstance(t, ast.Name) and t.id in params) for t in targets):
                return True
    # An output's cache is read as `name.past_key_values` / `name.cache` (also to bind an alias of it).
    return any(isinstance(node, ast.Attribute) and node.attr in _OUTPUT_CACHE and isinstance(node.value, ast.Name)
               and node.value.id in outputs for node, _, _ in src.walk(outputs)) if outputs else False


def only_super_loads(src: Source) -> bool:
    """Whether every `from_pretrained` of the module is `super().from_pretrained(...)` (with `super` not bound
    again): the interpreter calls the builtin `super` to an unknown value, whose call loads nothing
    (engine/interpreter/known.py `call_symbol`: a `builtins.` name gives Unknown)."""
    for node, parent, _ in src.walk(["from_pretrained"]):
        if isinstance(node, ast.Name) and node.id == "from_pretrained":
            return False
        if isinstance(node, ast.Attribute) and node.attr == "from_pretrained":
            receiver = node.value
            if not (isinstance(node.ctx, ast.Load) and isinstance(parent, ast.Call) and parent.func is node
                    and isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Name)
                    and receiver.func.id == "super"):
                return False
        # A method of the module's own named so binds a Function (its calls are the attributes above).
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and "from_pretrained" in bound_names(node):
            return False
    for node, _, _ in src.walk(["super"]):
        if (isinstance(node, ast.Name) and node.id == "super" and not isinstance(node.ctx, ast.Load)) \
                or "super" in bound_names(node):
            return False
    return True


def _parameters(scope: Scope | None) -> frozenset[str]:
    if not isinstance(scope, FUNCTIONS):
        return frozenset()
    a = scope.args
    return frozenset(arg.arg for arg in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg) if arg is not None)
