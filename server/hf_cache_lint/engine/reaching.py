"""The gate's second stage, read with `ast` (C speed): which keywords can reach a call of generate, whether a
`cache_implementation` can be set, whether HFC007 can find a cache to read.

The compile test (engine/gate.py) looks at words: a module that says `generate` and `past_key_values` anywhere
goes to parso. transformers' modeling code says both everywhere (`past_key_values` is a parameter of every
`forward`, passed on as `past_key_values=past_key_values`; `generate` is `super().generate(**kwargs)`), and
none of it can hold a finding. These tests look at where the words stand. Each answers "cannot" only when it
is sure; None or True sends the module on, as before.

`reaching_keywords`: on a call that reaches generate with neither a cache argument nor a `cache_implementation`,
a rule needs a keyword it reads (engine/gate.py). A keyword reaches generate's arguments (engine/interpreter/
generate_calls.py, functions.py `bind`, calls.py) only
- written in a call the interpreter may record as one reaching generate: a callee spelled `generate`
  (`model.generate(...)`, `super().generate(...)`, `generate(...)` of an alias), or spelled as a user function
  whose `**` parameter is spread into such a call (`def run(self, **kw): return self.model.generate(**kw)`: the
  keywords of `self.run(...)` reach generate), found by a fixpoint over those names (G);
- or in a dict spread into such a call (`**d`), or through a value of one of them used other than as a callee:
  `partial(model.generate, ...)`, `Thread(target=self.run, kwargs=...)`, `gen = model.generate`,
  `types.MethodType(run, obj)`, a callback; the interpreter follows those (values.Partial, Method, Function).
So the keywords written in the calls spelled as a G name are all that can reach generate, when every `**d`
spread into such a call is the `**` parameter of the function it stands in, which that function only reads
(`kw.get`, `kw.pop`, `kw[k]`, `k in kw`, `**kw`: the dict the interpreter binds holds exactly the caller's
keywords and spreads, `functions.py` `bind`), and no G name is used but as a callee (nor written as a string:
the interpreter resolves no `getattr`, this only keeps the argument simple). Names are matched by spelling, so
a method and a function of one name are both counted (too many is only slower). Anything else: None. A lambda's
or a dunder's `**` (`__init__` runs from `Cls(...)`, `__call__` from `obj(...)`), one in a class body or at
the top level, a name bound again in the function (also by a nested `def`, `except ... as`, `import ... as`, a
`match` capture): None. Decorators, which the interpreter does not apply (statements.py), change nothing.

`sets_cache_implementation`: a `cache_implementation` value (a CiValue, a config's Setting) comes from a string
reaching a `cache_implementation=` keyword, a `"cache_implementation"` key or `setattr` string, an assignment to
an attribute `x.cache_implementation`, or a load (`from_pretrained`, a pipeline: words the gate tests apart) or
import (the gate's workspace test). The gate's compiled strings hold every keyword name and string constant, so
what is left to see here is the assignment: a module whose only `cache_implementation` is read
(`generation_config.cache_implementation`, a local variable named so) sets none (reading a config the module
never set gives no value: engine/interpreter/expressions.py `attribute`).

`may_hold_cache`: HFC007's reads (`cache[i]`, `for k, v in cache`, `get_max_cache_shape()`, `max_cache_len`) are
of a value engine/cache_values.py knows is a cache: a `generate(..., return_dict_in_generate=True)` output (and
names bound to it, its `.past_key_values`), or a name whose EVERY binding in its scope is a call of a cache
class (`DynamicCache`, `StaticCache`, ...). A name that is also a parameter of that function has a binding that
is no cache (cache_values.py `_resolve` then knows nothing), so `past_key_values = DynamicCache(...)` in a
`forward(self, past_key_values=None)` makes none.
"""

from __future__ import annotations

import ast
import unicodedata
from bisect import bisect_left
from collections.abc import Iterable, Iterator

# Reads of a `**` dict that leave it as bound (`pop` only removes a key).
_DICT_READS = frozenset({"get", "pop", "keys", "items", "values", "copy"})
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_SCOPES = (*_FUNCTIONS, ast.ClassDef)
_Scope = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef
_Visit = tuple[ast.AST, ast.AST | None, "_Scope | None"]


def _callee_name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


class Source:
    """A module's text and `ast`, walked only where some words are written.

    An identifier in the tree is written in the text on a line of the statement that holds it, so walking
    only the statements whose lines say a word finds every node that names it (Python walks of a whole
    large tree cost more than parso's parse of it). Where the text's lines or identifiers may not be the
    tree's (a lone CR ends a line for the tokenizer; a non-ASCII identifier is NFKC-normalised), every
    statement is walked."""

    def __init__(self, text: str, tree: ast.Module) -> None:
        self.text = text
        self.tree = tree
        self.exact = text.count("\r") == text.count("\r\n") and (
            text.isascii() or unicodedata.normalize("NFKC", text) == text)
        self._newlines: list[int] | None = None

    def lines(self, words: Iterable[str]) -> list[int] | None:
        """The (1-based) lines that say one of `words`, sorted; None: every line."""
        if not self.exact:
            return None
        if self._newlines is None:
            self._newlines = _positions(self.text, "\n")
        found = set()
        for word in words:
            for pos in _positions(self.text, word):
                found.add(bisect_left(self._newlines, pos) + 1)
        return sorted(found)

    def walk(self, words: Iterable[str], body: list[ast.stmt] | None = None,
             scope: _Scope | None = None) -> Iterator[_Visit]:
        """(node, parent, scope) for every node of the statements (of `body`, by default the module's) whose
        lines say one of `words`; `scope`: the innermost function, lambda or class a node stands in."""
        lines = self.lines(words)
        if lines is not None and not lines:
            return
        stack: list[_Visit] = [(stmt, None, scope) for stmt in reversed(body if body is not None else self.tree.body)
                               if _on(stmt, lines)]
        while stack:
            node, parent, where = stack.pop()
            yield node, parent, where
            inner = node if isinstance(node, _SCOPES) else where
            for field in node._fields:
                value = getattr(node, field, None)
                # A function's defaults, decorators and annotations belong to the enclosing scope.
                here = inner if field == "body" else where
                if isinstance(value, list):
                    for item in reversed(value):
                        if isinstance(item, ast.AST) and (not isinstance(item, ast.stmt) or _on(item, lines)):
                            stack.append((item, node, here))
                elif isinstance(value, ast.AST):
                    stack.append((value, node, here))


def _positions(text: str, word: str) -> list[int]:
    out, i = [], text.find(word)
    while i >= 0:
        out.append(i)
        i = text.find(word, i + 1)
    return out


def _on(stmt: ast.stmt, lines: list[int] | None) -> bool:
    if lines is None:
        return True
    i = bisect_left(lines, stmt.lineno)
    return i < len(lines) and lines[i] <= (stmt.end_lineno or stmt.lineno)


def reaching_keywords(src: Source) -> frozenset[str] | None:
    """The keyword names written in the calls whose keywords may reach generate (see the module docstring);
    None when this cannot tell."""
    reaching = {"generate"}
    todo = ["generate"]
    keywords: set[str] = set()
    calls: dict[int, tuple[str, ast.Call, _Scope | None]] = {}
    values: dict[int, str] = {}  # Name/Attribute loads that are no callee, by spelling
    done: set[int] = set()
    while todo:
        for node, parent, scope in src.walk(todo):
            if isinstance(node, ast.Call):
                name = _callee_name(node.func)
                if name is not None:
                    calls[id(node)] = (name, node, scope)
            elif isinstance(node, (ast.Name, ast.Attribute)) and isinstance(node.ctx, ast.Load) \
                    and not (isinstance(parent, ast.Call) and parent.func is node):
                values[id(node)] = node.id if isinstance(node, ast.Name) else node.attr
        todo = []
        for key, (name, call, scope) in calls.items():
            if name not in reaching or key in done:
                continue
            done.add(key)
            for kw in call.keywords:
                if kw.arg is not None:
                    keywords.add(kw.arg)
                    continue
                owner = _forwarded(kw.value, scope, src)
                if owner is None:
                    return None
                if owner not in reaching:
                    reaching.add(owner)
                    todo.append(owner)
    if not reaching.isdisjoint(values.values()):
        return None
    return frozenset(keywords)


def _forwarded(value: ast.expr, scope: _Scope | None, src: Source) -> str | None:
    """The name of the function whose own `**` parameter `value` is, left as bound; else None."""
    if not isinstance(value, ast.Name) or not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    kwarg = scope.args.kwarg
    if kwarg is None or kwarg.arg != value.id or scope.name.startswith("__"):
        return None
    if not _only_read(scope, value.id, src):
        return None
    return scope.name


def _only_read(fn: ast.FunctionDef | ast.AsyncFunctionDef, name: str, src: Source) -> bool:
    """Whether `name` (the `**` parameter of `fn`) is only read in `fn`'s body, and never bound again."""
    parents: dict[int, ast.AST | None] = {}
    names: list[ast.Name] = []
    for node, parent, _ in src.walk([name], fn.body, fn):
        parents[id(node)] = parent
        if isinstance(node, ast.Name):
            if node.id == name:
                names.append(node)
        elif name in _bound_names(node):
            return False
    return all(_a_read(node, parents) for node in names)


def _a_read(node: ast.Name, parents: dict[int, ast.AST | None]) -> bool:
    parent = parents.get(id(node))
    if isinstance(parent, ast.keyword):
        return parent.arg is None  # `f(**kw)`: a copy goes to f
    if isinstance(parent, ast.Dict):
        return any(k is None and v is node for k, v in zip(parent.keys, parent.values, strict=True))  # `{**kw}`
    if isinstance(parent, ast.Subscript):
        return parent.value is node and isinstance(parent.ctx, ast.Load)
    if isinstance(parent, ast.Compare):
        return all(isinstance(op, (ast.In, ast.NotIn)) for op in parent.ops) and node is not parent.left
    if isinstance(parent, ast.Attribute) and parent.value is node and parent.attr in _DICT_READS:
        call = parents.get(id(parent))
        return isinstance(call, ast.Call) and call.func is parent
    return False


def _bound_names(node: ast.AST) -> Iterator[str]:
    """Names a node binds other than as a Name target (those are a Name in a Store context)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        yield node.name
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        a = node.args
        for arg in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg):
            if arg is not None:
                yield arg.arg
    elif isinstance(node, ast.ExceptHandler) and node.name:
        yield node.name
    elif isinstance(node, (ast.Import, ast.ImportFrom)):
        for alias in node.names:
            yield (alias.asname or alias.name).split(".")[0]
    elif isinstance(node, (ast.Global, ast.Nonlocal)):
        yield from node.names
    elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
        yield node.name
    elif isinstance(node, ast.MatchMapping) and node.rest:
        yield node.rest


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
                name = _callee_name(node.func)
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
            bound.update(n for n in _bound_names(node) if n != node.name)
        elif kind is ast.alias:
            assert isinstance(node, ast.alias)
            if node.asname and node.name.rsplit(".", 1)[-1] in readers:
                return True  # a reader under another name
        else:
            bound.update(_bound_names(node))
        for field in node._fields:
            value = getattr(node, field, None)
            if type(value) is list:
                stack.extend(v for v in value if isinstance(v, ast.AST))
            elif isinstance(value, ast.AST):
                stack.append(value)
    return any(name in readers or not plain.get(name, False) or name in bound for name in callees)


# engine/cache_values.py's _CACHE_CLASSES.
CACHE_CLASSES = frozenset({"DynamicCache", "StaticCache", "QuantizedCache", "EncoderDecoderCache"})


def may_hold_cache(src: Source) -> bool:
    """Whether engine/cache_values.py may find a value the code says is a cache (see the module docstring)."""
    words = set(CACHE_CLASSES)
    for node, _, _ in src.walk(CACHE_CLASSES):  # `from transformers import DynamicCache as D` (from anywhere)
        if isinstance(node, ast.ImportFrom):
            words.update(a.asname for a in node.names if a.name in CACHE_CLASSES and a.asname)
    classes = frozenset(words)
    words.add("return_dict_in_generate")
    for node, _, scope in src.walk(words):
        if isinstance(node, ast.Call) and any(
                kw.arg == "return_dict_in_generate" and isinstance(kw.value, ast.Constant) and kw.value.value is True
                for kw in node.keywords):
            return True
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Call) \
                and _callee_name(node.value.func) in classes:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            params = _parameters(scope)
            if any(not (isinstance(t, ast.Name) and t.id in params) for t in targets):
                return True
    return False


def _parameters(scope: _Scope | None) -> frozenset[str]:
    if not isinstance(scope, _FUNCTIONS):
        return frozenset()
    a = scope.args
    return frozenset(arg.arg for arg in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg) if arg is not None)
