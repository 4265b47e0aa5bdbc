"""The gate's second stage, read with `ast` (C speed): which keywords can reach a call of generate (the values a
`cache_implementation`, a load or a cache can come from: engine/screen/value_sources.py, on this module's Source).

The compile test (engine/screen/gate.py) looks at words: a module that says `generate` and `past_key_values` anywhere
goes to parso. transformers' modeling code says both everywhere (`past_key_values` is a parameter of every
`forward`, passed on as `past_key_values=past_key_values`; `generate` is `super().generate(**kwargs)`), and
none of it can hold a finding. These tests look at where the words stand. Each answers "cannot" only when it
is sure; None or True sends the module on, as before.

`reaching_keywords`: on a call that reaches generate with neither a cache argument nor a `cache_implementation`,
a rule needs a keyword it reads (engine/screen/gate.py). A keyword reaches generate's arguments (engine/interpreter/
generate_calls.py, functions.py `bind`, calls.py) only
- written in a call the interpreter may record as one reaching generate: a callee spelled `generate`
  (`model.generate(...)`, `super().generate(...)`, `generate(...)` of an alias), or spelled as a user function
  whose `**` parameter is spread into such a call (`def run(self, **kw): return self.model.generate(**kw)`: the
  keywords of `self.run(...)` reach generate), found by a fixpoint over those names (G);
- or as a key of a dict spread into such a call (`**d`);
- or through a value of one of them used other than as a callee: `partial(model.generate, ...)`,
  `Thread(target=self.run, kwargs=...)`, `gen = model.generate`, `types.MethodType(run, obj)`, a callback; the
  interpreter follows those (values.Partial, Method, Function): any such use is None.
A spread dict's keys (`_keys`) are those the interpreter can give it (expressions.py `eval_dict`, statements.py
`set_item`, methods.py `_dict`, functions.py `bind`): a display's string keys (any other key makes the dict
opaque: no entry), none for a comprehension (opaque), and for a name of the function the spread stands in,
the keys of what it is bound to there (a display, another such name) or, for the function's own `**`
parameter, its callers' (the function joins G), plus what the function writes into it: `d["k"] = v` (a key
that is not a string constant: none, opaque), `d.update(k=v, **e)`, `d.setdefault("k", v)`. Reads (`d.get`,
`d.pop`, `d[k]`, `k in d`, `**d`, a copy) add none; any other use (passed to a function, stored, aliased,
iterated into, bound in a nested scope, at the top level or in a class body, a lambda's or a dunder's `**`:
`__init__` runs from `Cls(...)`, `__call__` from `obj(...)`) is None. Names are matched by spelling, so a method
and a function of one name are both counted (too many is only slower). Strings are not looked at: the
interpreter resolves no `getattr`. Decorators, which the interpreter does not apply (statements.py), change
nothing.
"""

from __future__ import annotations

import ast
import unicodedata
from bisect import bisect_left
from collections.abc import Iterable, Iterator

from hf_cache_lint.engine.text.text import find_all

# Reads of a `**` dict that leave it as bound (`pop` only removes a key).
_DICT_READS = frozenset({"get", "pop", "keys", "items", "values", "copy"})
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
SCOPES = (*FUNCTIONS, ast.ClassDef)
Scope = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef
_Visit = tuple[ast.AST, ast.AST | None, "Scope | None"]


def callee_name(func: ast.expr) -> str | None:
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
            self._newlines = find_all(self.text, "\n")
        found = set()
        for word in words:
            for pos in find_all(self.text, word):
                found.add(bisect_left(self._newlines, pos) + 1)
        return sorted(found)

    def walk(self, words: Iterable[str], body: list[ast.stmt] | None = None,
             scope: Scope | None = None) -> Iterator[_Visit]:
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
            inner = node if isinstance(node, SCOPES) else where
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


def _on(stmt: ast.stmt, lines: list[int] | None) -> bool:
    if lines is None:
        return True
    i = bisect_left(lines, stmt.lineno)
    return i < len(lines) and lines[i] <= (stmt.end_lineno or stmt.lineno)


def reaching_keywords(src: Source) -> frozenset[str] | None:
    """The keyword names that may reach generate's arguments (see the module docstring): those written in the
    calls spelled as a name of G, and the keys of the dicts spread into them; None when this cannot tell."""
    reaching = {"generate"}
    todo = ["generate"]
    keywords: set[str] = set()
    calls: dict[int, tuple[str, ast.Call, Scope | None]] = {}
    values: dict[int, str] = {}  # Name/Attribute loads that are no callee, by spelling
    done: set[int] = set()
    while todo:
        for node, parent, scope in src.walk(todo):
            if isinstance(node, ast.Call):
                name = callee_name(node.func)
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
                owners: set[str] = set()
                keys = _keys(kw.value, scope, src, owners, 0)
                if keys is None:
                    return None
                keywords |= keys
                for owner in sorted(owners - reaching):
                    reaching.add(owner)
                    todo.append(owner)
    if not reaching.isdisjoint(values.values()):
        return None
    return frozenset(keywords)


_MAX_DEPTH = 3  # dicts spread into dicts spread into ...: past this, unknown


def _keys(value: ast.expr, scope: Scope | None, src: Source, owners: set[str], depth: int) -> set[str] | None:
    """The keys the dict `value` (spread with `**`) may hold, as the interpreter builds dicts
    (engine/interpreter/expressions.py `eval_dict`, statements.py `set_item`, methods.py `_dict`, functions.py
    `bind`): a display's string keys (another key makes it opaque: no entry), none for a comprehension (opaque),
    and for a name, what its function writes into it. `owners`: the functions whose own `**` parameter it is
    (their callers' keywords land in it: they join G). None: unknown."""
    if depth > _MAX_DEPTH:
        return None
    if isinstance(value, ast.DictComp):
        return set()
    if isinstance(value, ast.Dict):
        out: set[str] = set()
        for k, v in zip(value.keys, value.values, strict=True):
            if k is None:
                inner = _keys(v, scope, src, owners, depth + 1)
                if inner is None:
                    return None
                out |= inner
            elif isinstance(k, ast.Constant) and isinstance(k.value, str):
                out.add(k.value)
        return out
    if isinstance(value, ast.Name) and isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return _name_keys(value.id, scope, src, owners, depth)
    return None


def _name_keys(name: str, fn: ast.FunctionDef | ast.AsyncFunctionDef, src: Source, owners: set[str],
               depth: int) -> set[str] | None:
    """The keys of the dict a name of `fn` holds: its own `**` parameter (then `fn` is an owner), or a local
    bound only to dicts this can read; plus what `fn`'s body (nested functions too) writes into it. Any other
    use (passed on, stored, bound otherwise) is unknown."""
    a = fn.args
    param = a.kwarg is not None and a.kwarg.arg == name
    if param and fn.name.startswith("__"):
        return None  # `__init__` runs from `Cls(...)`, `__call__` from `obj(...)`: not spelled as its name
    if any(arg.arg == name for arg in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg) if arg is not None):
        return None
    parents: dict[int, ast.AST | None] = {}
    names: list[ast.Name] = []
    for node, parent, scope in src.walk([name], fn.body, fn):
        parents[id(node)] = parent
        if isinstance(node, ast.Name):
            if node.id == name:
                if not isinstance(node.ctx, ast.Load) and scope is not fn:
                    return None  # bound in a nested scope: another variable, or fn's `d` seen from there
                names.append(node)
        elif name in bound_names(node):
            return None
    keys: set[str] = set()
    bound = param
    for node in names:
        parent = parents.get(id(node))
        if isinstance(node.ctx, ast.Store):
            if not (isinstance(parent, (ast.Assign, ast.AnnAssign)) and parent.value is not None
                    and any(t is node for t in (parent.targets if isinstance(parent, ast.Assign) else [parent.target]))):
                return None  # a loop variable, a tuple target, `|=`, a walrus: unknown
            got = _keys(parent.value, fn, src, owners, depth + 1)
            bound = True
        elif isinstance(node.ctx, ast.Del):
            continue
        else:
            got = _written(node, parent, parents, fn, src, owners, depth)
        if got is None:
            return None
        keys |= got
    if not bound:
        return None  # a global, or a name of an enclosing function
    if param:
        owners.add(fn.name)
    return keys


def _written(node: ast.Name, parent: ast.AST | None, parents: dict[int, ast.AST | None],
             fn: ast.FunctionDef | ast.AsyncFunctionDef, src: Source, owners: set[str], depth: int) -> set[str] | None:
    """The keys one read of a dict's name writes into it: `d["k"] = v` ("k"; another key makes it opaque),
    `d.update(k=v, **e)`, `d.setdefault("k", v)`; none for `d.get(...)`, `d[k]`, `k in d`, `**d` (a copy);
    None for any other use."""
    if isinstance(parent, ast.keyword):
        return set() if parent.arg is None else None  # `f(**d)`: a copy goes to f
    if isinstance(parent, ast.Dict):
        return set() if any(k is None and v is node for k, v in zip(parent.keys, parent.values, strict=True)) \
            else None  # `{**d}`
    if isinstance(parent, ast.Subscript) and parent.value is node:
        if isinstance(parent.ctx, ast.Store):
            key = parent.slice
            return {key.value} if isinstance(key, ast.Constant) and isinstance(key.value, str) else set()
        return set()
    if isinstance(parent, ast.Compare):
        return set() if all(isinstance(op, (ast.In, ast.NotIn)) for op in parent.ops) and node is not parent.left \
            else None
    if not (isinstance(parent, ast.Attribute) and parent.value is node):
        return None
    call = parents.get(id(parent))
    if not (isinstance(call, ast.Call) and call.func is parent):
        return None
    if parent.attr in _DICT_READS:
        return set()
    if parent.attr == "setdefault":
        first = call.args[0] if call.args else None
        return {first.value} if isinstance(first, ast.Constant) and isinstance(first.value, str) else None
    if parent.attr == "update":
        out = {k.arg for k in call.keywords if k.arg is not None}
        for arg in [*call.args, *(k.value for k in call.keywords if k.arg is None)]:
            got = None if isinstance(arg, ast.Starred) else _keys(arg, fn, src, owners, depth + 1)
            if got is None:
                return None
            out |= got
        return out
    return None


def bound_names(node: ast.AST) -> Iterator[str]:
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
