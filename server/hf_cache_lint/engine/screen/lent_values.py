"""What a name imported from a workspace module can be, read with `ast` from the code that shapes it.

The gate (engine/screen/gate.py) asks this for a module that imports a value from a workspace file: the interpreter
(engine/interpreter/imports.py) runs that file's top level and copies the value over, so it matters only if the
live code that can shape it writes something that makes a fact (`lends`). Kept apart from the gate's text and
compile tests: this is a small slice analysis of another module, cached per file.
"""

from __future__ import annotations

import ast
import re
import warnings
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from hf_cache_lint.engine.base.collector import gc_paused
from hf_cache_lint.engine.environment import workspace
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.reads import read_bounded
from hf_cache_lint.engine.output.keywords import CACHE_KEYWORDS


# What must be written in the statements that shape an imported value for it to matter here (exact identifiers,
# attribute names, imported names or identifier strings; engine/interpreter/known.py, loading.py, methods.py):
# a value reaching generate when called is made by `pipeline(...)` or a `...Pipeline(...)` class
# (PIPELINE_CLASSES), or is a bound `.generate` (also inside a `functools.partial`); a fact a generate call
# reads also comes from a load (`from_pretrained`, `from_config`), a generation config, a `cache_implementation`,
# a cache keyword as a dict key or keyword, or a `partial`'s keywords.
@dataclass(frozen=True)
class Makers:
    """The words that make a value matter: one of `words`, or a word `shapes` matches whole."""

    words: frozenset[str]
    shapes: re.Pattern[str]
    # The value is a transformers object: made only where the shaping code also has something to make it of (a
    # generate call, or a name the module imports from transformers or unsloth that can make one:
    # library_values.py), or imports it from a workspace module in turn (followed as any import is).
    needs_source: bool = False

    def made_by(self, words: frozenset[str]) -> bool:
        return not self.words.isdisjoint(words) or any(self.shapes.fullmatch(w) for w in words)


_PIPELINE = re.compile(r"\w*Pipeline")
CALLABLE_MAKERS = Makers(frozenset({"generate", "pipeline"}), _PIPELINE)
FACT_MAKERS = Makers(CALLABLE_MAKERS.words | frozenset({
    "from_pretrained", "from_config", "cache_implementation", "GenerationConfig", "generation_config", "partial",
    *CACHE_KEYWORDS}), _PIPELINE)
# A transformers cache or model the interpreter knows (engine/interpreter/known.py, cache_uses.py, functions.py):
# made by a name from transformers or unsloth (the module itself lent: `import transformers as T; LIB = T`), by
# a cache class (`...Cache(...)`, `from_legacy_cache`) or a model class (known.py `_MODEL_CLASS`, widened), a load,
# or a generate or forward output's cache; FACT_MAKERS' values too (a pipeline's model).
OBJECT_MAKERS = Makers(FACT_MAKERS.words | frozenset({
    "transformers", "unsloth", "from_legacy_cache", "return_dict_in_generate"}),
    re.compile(r"\w*(?:Pipeline|Cache|Model)|\w+For[A-Z]\w*"), needs_source=True)


def lends(path: Path, name: str, context: Context, makers: Makers, seen: set[tuple[str, str]]) -> bool:
    """Whether `from <path> import name` may bring a value that `makers` say matters (see above).

    As the interpreter: a module it would not analyse (no FACT_WORDS, too large) or a name it does not assign
    lends nothing. Else the statements of that module that can shape the value (`_Statements.slice`) must
    write none of `makers`, and the workspace values they import in turn lend nothing. `seen`: the
    (module, name) pairs already asked in this check (a cycle or a second import lends nothing new)."""
    key = (str(path), name)
    if key in seen:
        return False
    seen.add(key)
    if not workspace.might_export_facts(path) or not workspace.assigns(path, name):
        return False
    table = _statements(path)
    if table is None:  # does not parse as Python: parso may still read something out of it
        return True
    makes, imports = table.shaping(name, makers)
    if makes:
        return True
    roots = tuple(p for p in (context.workspace, path.parent) if p is not None) + context.extra_paths
    for level, module, origin in imports:
        if level == 0 and (module == "" or module.split(".")[0] in workspace.SKIP_ROOTS):
            continue
        found = workspace.resolve(module, level, path, roots)
        if found is not None and lends(found, origin, context, makers, seen):
            return True
    return False


@dataclass(frozen=True)
class _Unit:
    """Code of one top-level statement that runs as one piece: the statement itself without the bodies of the
    functions and classes it defines (`body_of` None), or the body of one such def or class (`body_of` its
    name). The interpreter's top level (engine/interpreter/__init__.py `run_top_level`) binds a def or a class
    without running anything of it (decorators, defaults and class bodies included); a function's body runs
    when it is called, a class's methods once it is called (engine/interpreter/functions.py)."""

    body_of: str | None
    method: str | None  # a method's name (`body_of` its class): it runs on an instance, when called
    binds: frozenset[str]  # module-level names it binds (a function's through `global`)
    mentions: frozenset[str]  # every name it reads, binds or declares
    calls: frozenset[str]  # the names it may call or hand on: used as names, not only as `name.attribute`
    words: frozenset[str]  # identifiers written in it: names, attributes, keywords, imported names, strings
    imports: tuple[tuple[int, str, str], ...]  # each `from M import x`: (level, M, x)
    inert: bool  # it binds only a literal constant or a non-workspace import


@dataclass(frozen=True)
class _Statements:
    units: tuple[_Unit, ...]  # the live ones only: top-level code, and the bodies it may call
    by_name: dict[str, tuple[int, ...]]  # a module-level name -> the units that mention it
    inert_names: frozenset[str]  # names every binding of which is inert (a symbol or a constant: nothing to mutate)
    library: bool  # it imports a transformers (or unsloth) name that can make a cache or model (library_values.py)
    # (name, makers) -> what `shaping` found (this table is cached per file version: so is this)
    asked: dict[tuple[str, Makers], tuple[bool, tuple[tuple[int, str, str], ...]]] = field(
        default_factory=dict, compare=False, repr=False)

    def shaping(self, name: str, makers: Makers) -> tuple[bool, tuple[tuple[int, str, str], ...]]:
        """Whether the code that can shape `name` (`slice`) writes one of `makers`, and the `from M import x` it
        holds."""
        key = (name, makers)
        got = self.asked.get(key)
        if got is None:
            units = [self.units[i] for i in sorted(self.slice(name))]
            makes = any(makers.made_by(u.words) for u in units) and (
                not makers.needs_source or self.library or any("generate" in u.words for u in units))
            got = self.asked[key] = (makes, tuple(im for u in units for im in u.imports))
        return got

    def slice(self, name: str) -> set[int]:
        """The code that can shape `name`'s value at the end of the top level, or what it reaches: what mentions
        it (binding it, reading it into something else, mutating it, a function doing either), and, for each of
        those, what mentions any module-level name it mentions (where the value may flow in or out, an alias be
        mutated, a called function run). A name bound only to a constant or a non-workspace import holds
        nothing that can change, so nothing flows through it: only its bindings join the slice (they say what it
        is: `from transformers import pipeline as make` names `pipeline`)."""
        if name in self.inert_names:  # a constant or a symbol: only its bindings say what it is
            return self._bindings(name)
        out: set[int] = set()
        todo = [name]
        done: set[str] = set()
        while todo:
            n = todo.pop()
            if n in done:
                continue
            done.add(n)
            for i in self.by_name.get(n, ()):
                if i not in out:
                    out.add(i)
                    for m in self.units[i].mentions:
                        if m in done or m not in self.by_name:
                            continue
                        if m in self.inert_names:
                            done.add(m)
                            out |= self._bindings(m)
                        else:
                            todo.append(m)
        return out

    def _bindings(self, name: str) -> set[int]:
        return {i for i in self.by_name.get(name, ()) if name in self.units[i].binds}


_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


class _Collect:
    """Gathers one unit's names and words (module-level binds only where the code runs at module level)."""

    def __init__(self, body_of: str | None, method: str | None = None) -> None:
        self.body_of = body_of
        self.method = method
        self.binds: set[str] = set()
        self.mentions: set[str] = set()
        self.names: Counter[str] = Counter()  # each name's occurrences as an ast.Name
        self.bases: Counter[str] = Counter()  # ... of which as the object of an attribute (`name.x`)
        self.words: set[str] = set()
        self.imports: list[tuple[int, str, str]] = []
        if body_of is not None:
            self.mentions.add(body_of)

    def unit(self, inert: bool) -> _Unit:
        # `f.x` neither calls f nor instantiates a class f (the interpreter reads an attribute of a def or a
        # class as unknown); any other use may (a call, an alias, an argument).
        calls = frozenset(n for n, k in self.names.items() if k > self.bases[n])
        return _Unit(self.body_of, self.method, frozenset(self.binds), frozenset(self.mentions), calls,
                     frozenset(self.words), tuple(self.imports), inert)

    def node(self, child: ast.AST, module_level: bool) -> None:
        t = type(child)  # by exact type, the common ones first: ~20,000 nodes in a large module
        if t is ast.Name:
            name: str = child.id  # type: ignore[attr-defined]
            self.names[name] += 1
            self.mentions.add(name)
            self.words.add(name)
            if module_level and type(child.ctx) is not ast.Load:  # type: ignore[attr-defined]
                self.binds.add(name)
        elif t is ast.Attribute:
            self.words.add(child.attr)  # type: ignore[attr-defined]
            if type(child.value) is ast.Name:  # type: ignore[attr-defined]
                self.bases[child.value.id] += 1  # type: ignore[attr-defined]
        elif t is ast.Constant:
            value = child.value  # type: ignore[attr-defined]
            if type(value) is str and value.isidentifier():
                self.words.add(value)
        elif t is ast.keyword:
            if child.arg:  # type: ignore[attr-defined]
                self.words.add(child.arg)  # type: ignore[attr-defined]
        elif t is ast.arg:
            self.mentions.add(child.arg)  # type: ignore[attr-defined]
        elif t is ast.Global or t is ast.Nonlocal:
            self.mentions.update(child.names)  # type: ignore[attr-defined]
            self.binds.update(child.names)  # type: ignore[attr-defined]
        elif t is ast.ExceptHandler or t is ast.MatchAs or t is ast.MatchStar:
            if child.name:  # type: ignore[attr-defined]
                self.mentions.add(child.name)  # type: ignore[attr-defined]
                if module_level:
                    self.binds.add(child.name)  # type: ignore[attr-defined]
        elif t is ast.MatchMapping:
            if child.rest:  # type: ignore[attr-defined]
                self.mentions.add(child.rest)  # type: ignore[attr-defined]
                if module_level:
                    self.binds.add(child.rest)  # type: ignore[attr-defined]
        elif isinstance(child, (ast.Import, ast.ImportFrom)):
            for a in child.names:
                bound = a.asname or a.name.split(".")[0]
                self.mentions.add(bound)
                self.words.update((a.name, bound))
                if module_level:
                    self.binds.add(bound)
                if isinstance(child, ast.ImportFrom):
                    self.imports.append((child.level, child.module or "", a.name))


def _units(stmt: ast.stmt) -> list[_Unit]:
    """The statement's top-level code, then the body of each def or class it defines (see _Unit)."""
    top = _Collect(None)
    bodies: list[_Unit] = []
    # (node, where): 0 module level, 1 in a module-level comprehension (a walrus binds outside it)
    todo: list[tuple[ast.AST, int]] = [(stmt, 0)]
    while todo:
        node, where = todo.pop()
        if isinstance(node, _DEFS):
            top.binds.add(node.name)
            top.mentions.add(node.name)
            if isinstance(node, ast.ClassDef):
                # Its body never runs (neither do its bases or decorators); each method runs on an instance.
                bodies.extend(_body(m, node.name) for m in node.body
                              if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)))
            else:
                bodies.append(_body(node, node.name))
            continue
        top.node(node, where == 0)
        if isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name):
            top.binds.add(node.target.id)
        inner = 1 if where == 1 or isinstance(node, _COMPREHENSIONS) else 0
        todo.extend((c, inner) for c in _children(node))
    return [top.unit(_binds_nothing_mutable(stmt)), *bodies]


def _children(node: ast.AST) -> Iterator[ast.AST]:
    """ast.iter_child_nodes without the contexts (`Load()`, `Store()`: read off their Name) at half the cost."""
    for f in node._fields:
        if f == "ctx":
            continue
        v = getattr(node, f, None)
        if type(v) is list:
            for x in v:
                if isinstance(x, ast.AST):
                    yield x
        elif isinstance(v, ast.AST):
            yield v


def _body(node: ast.FunctionDef | ast.AsyncFunctionDef, owner: str) -> _Unit:
    """All of a function (decorators and defaults too: conservative) or a method of the class `owner`."""
    c = _Collect(owner, node.name if owner != node.name else None)
    todo: list[ast.AST] = [node]
    while todo:
        child = todo.pop()
        c.node(child, False)
        if isinstance(child, _DEFS):
            c.mentions.add(child.name)
        todo.extend(_children(child))
    return c.unit(False)


def _binds_nothing_mutable(stmt: ast.stmt) -> bool:
    """`x = <literal>` / `x: T = <literal>` (str, number, None, a tuple of them), `import m`, or `from M import x`
    of a module the interpreter never reads (a symbol): what it binds is a value no statement can change."""
    if isinstance(stmt, ast.Import):
        return True
    if isinstance(stmt, ast.ImportFrom):
        return stmt.level == 0 and (stmt.module or "").split(".")[0] in workspace.SKIP_ROOTS
    if isinstance(stmt, ast.Assign) and all(isinstance(t, ast.Name) for t in stmt.targets):
        return _literal(stmt.value)
    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
        return _literal(stmt.value)
    return False


def _literal(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.Tuple):
        return all(_literal(e) for e in node.elts)
    return False


@lru_cache(maxsize=256)
def _statements_of(path: str, mtime_ns: int, size: int) -> _Statements | None:
    data = read_bounded(path, workspace.MAX_MODULE_BYTES)  # a FIFO or a device in its place: refused, not waited on
    if data is None:
        return None
    try:
        with warnings.catch_warnings(), gc_paused():
            warnings.simplefilter("ignore")
            tree = ast.parse(data)
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return None
    every = [u for s in tree.body for u in _units(s)]
    # Live code: the top level, and the body of each def or class that live code may call (or instantiate).
    # A class's `__init__` runs when the class is called; another method when live code may call it on an
    # instance (its name written there as an attribute, a string or a name: a superset).
    live = [u for u in every if u.body_of is None]
    called: set[str] = set().union(*(u.calls for u in live))
    said: set[str] = set().union(*(u.words for u in live))
    waiting = [u for u in every if u.body_of is not None]

    def wakes(u: _Unit) -> bool:
        return u.body_of in called and (u.method is None or u.method == "__init__" or u.method in said)

    while True:
        woken = [u for u in waiting if wakes(u)]
        if not woken:
            break
        waiting = [u for u in waiting if not wakes(u)]
        live += woken
        for u in woken:
            called |= u.calls
            said |= u.words
    bound: set[str] = set().union(*(u.binds for u in every))
    by_name: dict[str, list[int]] = {}
    for i, u in enumerate(live):
        for n in u.mentions & bound:
            by_name.setdefault(n, []).append(i)
    not_inert: set[str] = set().union(*(u.binds for u in every if not u.inert))
    from hf_cache_lint.engine.screen.library_values import makes_values  # it imports this module

    return _Statements(tuple(live), {n: tuple(v) for n, v in by_name.items()}, frozenset(bound - not_inert),
                       makes_values(data.decode("utf-8", "replace")))


def _statements(path: Path) -> _Statements | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return _statements_of(str(path), st.st_mtime_ns, st.st_size)
