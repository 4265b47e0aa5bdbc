"""A C-speed gate between the text prefilter and parso: can this module hold a finding at all?

parso parses at about 0.6 MB/s; CPython's compiler is an order of magnitude faster. A module that
compiles gives every name, attribute and parameter it uses (`co_names`, `co_varnames`, ...) and every
string constant, keyword name of a call and dict key (`co_consts`), docstrings and comments aside.

What a finding is made of (engine/analysis.py), and what each needs in the module's code:
- a `cache_implementation` value (a CiValue, or a call's CacheImpl): the word `cache_implementation`, or a
  checkpoint load (`from_pretrained`, `pipeline`: generation_config.json, the Hub defaults);
- a call reaching generate: the word `generate` or `pipeline`, or a value imported from a workspace module
  (a pipeline, a `partial` of generate, a model, a kwargs dict);
- on such a call, without a `cache_implementation`, a rule still needs a cache argument (`past_key_values`,
  `cache_params` or `cache` as a keyword name or a dict key: a string constant; as an attribute, a cache read
  off generate's output) or a keyword written in the call that a rule reads (`keyword_matters`, given by the caller, which knows the rules; by default every
  keyword counts);
- a removed cache API (HFC007): never gated here (check_source sends those modules to parso first).
So a module that compiles and has none of these cannot hold a finding, and skipping parso for it leaves the
findings unchanged (tests/engine/test_gate.py runs both paths over the corpus, examples/ and every rule
example on every checked version). Anything that does not compile goes to parso, as before.
"""

from __future__ import annotations

import ast
import re
import sys
import warnings
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from types import CodeType

from hf_cache_lint.engine import modules
from hf_cache_lint.engine.context import Context
from hf_cache_lint.engine.interpreter.generate_calls import PIPELINE_CLASSES
from hf_cache_lint.engine.keywords import CACHE_KEYWORDS
from hf_cache_lint.engine.prefilter import _in_code, _triple_quotes

# Words whose mere presence sends a module to parso: values a check reads (a `cache_implementation`,
# a checkpoint's generation_config.json, a Hub default) and a pipeline (a call that reaches generate), also one
# built from its class (`TextGenerationPipeline(model=...)`: engine/interpreter/known.py).
LOADS = frozenset({"cache_implementation", "from_pretrained", "pipeline", *PIPELINE_CLASSES})
CALLS = frozenset({"generate"})
TRIGGERS = LOADS | CALLS

# The compiler drops code it can tell never runs, with the constants (and functions) written there; the
# interpreter still reads it. On 3.10 and 3.11 that is only what follows a loop on a true constant without a
# `break` (`while True:`) or an `assert` of a false one (the other unreachable code it drops, after `return`
# or `raise`, the interpreter skips too: tests/engine/test_gate.py); 3.12+ also drops `if False:` bodies and
# the like. Where that may be, every identifier of the text counts instead (comments and docstrings too:
# only slower).
_CONSTANTS_COMPLETE = sys.version_info < (3, 12)
# After `while` / `assert` (whole at their start: `\b`), tried where the word stands (str.find: the regex
# searched over the text cost ~3 ms on a large module).
_DROPS_AFTER = re.compile(r"[\s(]*(?:not\b|True\b|False\b|None\b|\.\.\.|[-+~]?\.?\d|[bBrRuUfF]{0,2}[\"'\[{(])")
_IDENTIFIER = re.compile(r"[^\W\d]\w*")

# `from .x import (a, b)` / `from pkg.mod import a as b, \` continued: the names a workspace module may
# lend. Anywhere in the text (after `;`, in a one-line `if`, even in a string): too many is only slower.
# Matched where `from` stands, not after a word character or a dot (str.find, as above).
_FROM_IMPORT = re.compile(
    r"from[ \t]+(\.*)[ \t]*([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|(?:[^\n#;\\]|\\\r?\n)*)")


def _drops_code(text: str) -> bool:
    for word in ("while", "assert"):
        i = text.find(word)
        while i >= 0:
            if (i == 0 or not _word_char(text[i - 1])) and _DROPS_AFTER.match(text, i + len(word)):
                return True
            i = text.find(word, i + 1)
    return False


def _from_imports(text: str) -> Iterator[re.Match[str]]:
    r"""The `from ... import ...` statements as `_FROM_IMPORT.finditer` with `(?<![\w.])` in front would find."""
    i = text.find("from")
    while i >= 0:
        m = None
        if i == 0 or not (_word_char(text[i - 1]) or text[i - 1] == "."):
            m = _FROM_IMPORT.match(text, i)
        if m is not None:
            yield m
            i = text.find("from", max(m.end(), i + 1))
        else:
            i = text.find("from", i + 1)


def _words(code: CodeType, names: set[str], strings: set[str]) -> None:
    names.update(code.co_names, code.co_varnames, code.co_cellvars, code.co_freevars)
    for c in code.co_consts:
        if isinstance(c, str):
            strings.add(c)
        elif isinstance(c, (tuple, frozenset)):  # keyword names of a call, an import's fromlist, `in {...}`
            strings.update(x for x in c if isinstance(x, str))
        elif isinstance(c, CodeType):
            _words(c, names, strings)


def _compiled_words(text: str) -> tuple[set[str], set[str]] | None:
    """(identifiers, string constants) of the module's code; None when it does not compile."""
    # Python 3.12+ drops `if not __debug__:` bodies at compile time; the interpreter does not.
    if "__debug__" in text:
        return None
    try:
        with warnings.catch_warnings():  # invalid escapes etc.: parso's path says nothing either
            warnings.simplefilter("ignore")
            code = compile(text, "<gate>", "exec", dont_inherit=True, optimize=0)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return None
    names: set[str] = set()
    strings: set[str] = set()
    _words(code, names, strings)
    if not _CONSTANTS_COMPLETE or _drops_code(text):
        every = set(_IDENTIFIER.findall(text))
        names |= every
        strings |= every
    return names, strings


def _imports_workspace_value(text: str, path: str, context: Context, *, calls: bool = True) -> bool:
    """Whether a `from M import n` may bring a value that matters from a workspace file.

    The interpreter (engine/interpreter/imports.py) runs M's top level and copies n's value, and what it reaches,
    into this module; a def, a class, a re-export or a name M does not assign comes over as an opaque symbol.
    `calls`: this module's code says `generate` itself, so a model, config, kwargs dict, pipeline or partial
    from M may carry a fact into one of its calls; without it only a value that reaches generate when called
    here (a pipeline, a `partial` or a bound `generate`, maybe inside a container or an object) can lead to a
    finding. Whether n's value can hold such a thing: `_lends` over the statements of M that can shape it."""
    importer = Path(path) if path and not path.startswith("<") else None
    # The interpreter's roots exactly (engine/importer.py): a module it cannot find lends nothing.
    roots = tuple(p for p in (context.workspace, importer.parent if importer else None) if p is not None)
    roots += context.extra_paths
    words = FACT_MAKERS if calls else CALLABLE_MAKERS
    seen: set[tuple[str, str]] = set()
    for m in _from_imports(text):
        level, module = len(m.group(1)), m.group(2)
        local = level > 0 or (module != "" and module.split(".")[0] not in modules.SKIP_ROOTS)
        if not local:
            continue
        # `from . import x`: the interpreter looks x up in the package's __init__ (a submodule lends nothing).
        found = modules.resolve(module, level, importer, roots)
        if found is None:
            continue
        listed = m.group(3).strip("() \t\r\n").replace("\\", " ").replace("\n", " ")
        names = [n.split(" as ")[0].strip() for n in listed.split(",")]
        if any(n and _lends(found, n, context, words, seen) for n in names):
            return True
    return False


# What must be written in the statements that shape an imported value for it to matter here (exact identifiers,
# attribute names, imported names or identifier strings; engine/interpreter/known.py, loading.py, methods.py):
# a value reaching generate when called is made by `pipeline(...)` or a `...Pipeline(...)` class
# (PIPELINE_CLASSES), or is a bound `.generate` (also inside a `functools.partial`); a fact a generate call
# reads also comes from a load (`from_pretrained`, `from_config`), a generation config, a `cache_implementation`,
# a cache keyword as a dict key or keyword, or a `partial`'s keywords.
CALLABLE_MAKERS = frozenset({"generate", "pipeline"})
FACT_MAKERS = CALLABLE_MAKERS | frozenset({
    "from_pretrained", "from_config", "cache_implementation", "GenerationConfig", "generation_config", "partial",
    *CACHE_KEYWORDS})


def _makes(words: frozenset[str], makers: frozenset[str]) -> bool:
    return not makers.isdisjoint(words) or any(w.endswith("Pipeline") for w in words)


def _lends(path: Path, name: str, context: Context, makers: frozenset[str], seen: set[tuple[str, str]]) -> bool:
    """Whether `from <path> import name` may bring a value that `makers` say matters (see above).

    As the interpreter: a module it would not analyse (no FACT_WORDS, too large) or a name it does not assign
    lends nothing. Else the statements of that module that can shape the value (`_Statements.slice`) must
    write none of `makers`, and the workspace values they import in turn lend nothing. `seen`: the
    (module, name) pairs already asked in this check (a cycle or a second import lends nothing new)."""
    key = (str(path), name)
    if key in seen:
        return False
    seen.add(key)
    if not modules.might_export_facts(path) or not modules.assigns(path, name):
        return False
    table = _statements(path)
    if table is None:  # does not parse as Python: parso may still read something out of it
        return True
    makes, imports = table.shaping(name, makers is CALLABLE_MAKERS)
    if makes:
        return True
    roots = tuple(p for p in (context.workspace, path.parent) if p is not None) + context.extra_paths
    for level, module, origin in imports:
        if level == 0 and (module == "" or module.split(".")[0] in modules.SKIP_ROOTS):
            continue
        found = modules.resolve(module, level, path, roots)
        if found is not None and _lends(found, origin, context, makers, seen):
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

    @property
    def makes_callable(self) -> bool:
        return _makes(self.words, CALLABLE_MAKERS)

    @property
    def makes_fact(self) -> bool:
        return _makes(self.words, FACT_MAKERS)


@dataclass(frozen=True)
class _Statements:
    units: tuple[_Unit, ...]  # the live ones only: top-level code, and the bodies it may call
    by_name: dict[str, tuple[int, ...]]  # a module-level name -> the units that mention it
    inert_names: frozenset[str]  # names every binding of which is inert (a symbol or a constant: nothing to mutate)
    # (name, only callables) -> what `shaping` found (this table is cached per file version: so is this)
    asked: dict[tuple[str, bool], tuple[bool, tuple[tuple[int, str, str], ...]]] = field(
        default_factory=dict, compare=False, repr=False)

    def shaping(self, name: str, callable_only: bool) -> tuple[bool, tuple[tuple[int, str, str], ...]]:
        """Whether the code that can shape `name` (`slice`) writes a maker (CALLABLE_MAKERS when
        `callable_only`, else FACT_MAKERS), and the `from M import x` it holds."""
        key = (name, callable_only)
        got = self.asked.get(key)
        if got is None:
            units = [self.units[i] for i in sorted(self.slice(name))]
            makes = any(u.makes_callable if callable_only else u.makes_fact for u in units)
            got = self.asked[key] = (makes, tuple(im for u in units for im in u.imports))
        return got

    def slice(self, name: str) -> set[int]:
        """The code that can shape `name`'s value at the end of the top level, or what it reaches: what mentions
        it (binding it, reading it into something else, mutating it, a function doing either), and, for each of
        those, what mentions any module-level name it mentions (where the value may flow in or out, an alias be
        mutated, a called function run). A name bound only to a constant or a non-workspace import holds
        nothing that can change, so nothing flows through it."""
        if name in self.inert_names:  # a constant or a symbol: only its bindings say what it is
            return {i for i in self.by_name.get(name, ()) if name in self.units[i].binds}
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
                    todo.extend(m for m in self.units[i].mentions
                                if m not in done and m in self.by_name and m not in self.inert_names)
        return out


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
        return stmt.level == 0 and (stmt.module or "").split(".")[0] in modules.SKIP_ROOTS
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
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(Path(path).read_bytes())
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
    return _Statements(tuple(live), {n: tuple(v) for n, v in by_name.items()}, frozenset(bound - not_inert))


def _statements(path: Path) -> _Statements | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return _statements_of(str(path), st.st_mtime_ns, st.st_size)


def _every_keyword(name: str) -> bool:
    return True


def _word_char(c: str) -> bool:
    return c.isalnum() or c == "_"


def _said_in_code(text: str, words: Iterable[str], quotes: dict[str, list[int]]) -> bool:
    """A quick look (engine/prefilter.py's line test) for one of `words`, whole, in code: not in a comment, a
    doctest line, a docstring or a one-line string. Only ever a reason to skip the compile (the module goes to
    parso either way), so a wrong yes costs a parse and a wrong no the compile. str.find per word: one regex
    alternation over the text cost ~5 ms on a large module."""
    for word in words:
        i = text.find(word)
        while i >= 0:
            end = i + len(word)
            if (i == 0 or not _word_char(text[i - 1])) and (end == len(text) or not _word_char(text[end])):
                before = text[text.rfind("\n", 0, i) + 1:i]
                if before.count('"') % 2 == 0 and before.count("'") % 2 == 0 and _in_code(text, i, quotes):
                    return True
            i = text.find(word, i + 1)
    return False


def _sure_to_pass(text: str) -> bool:
    """What the compiled words would send to parso anyway, seen in the text: a LOADS word in code, or
    `generate` and a cache keyword in code (a name in code is in the compiled names)."""
    quotes = _triple_quotes(text)
    return _said_in_code(text, LOADS, quotes) or (
        _said_in_code(text, CALLS, quotes) and _said_in_code(text, CACHE_KEYWORDS, quotes))


def cannot_hold_finding(text: str, path: str, context: Context,
                        keyword_matters: Callable[[str], bool] = _every_keyword) -> bool:
    """True only when parsing and interpreting the module cannot record anything a rule reports on.

    `keyword_matters(name)`: whether a rule may report on a call that reaches generate for the keyword
    `name` written in it when the call has no cache argument and no `cache_implementation` (HFC005's
    misspelled and removed keywords); the default, every keyword, is always safe.
    """
    if _sure_to_pass(text):
        return False
    words = _compiled_words(text)
    if words is None:
        return False
    names, strings = words
    if not LOADS.isdisjoint(names) or not LOADS.isdisjoint(strings):
        return False
    calls = not (CALLS.isdisjoint(names) and CALLS.isdisjoint(strings))
    if calls:  # a call may reach generate
        # A cache keyword's name, also as an attribute: a cache read off generate's output (HFC007).
        if not (strings.isdisjoint(CACHE_KEYWORDS) and names.isdisjoint(CACHE_KEYWORDS)):
            return False
        if any(keyword_matters(s) for s in strings if s.isidentifier()):
            return False
    # Last, as it costs file lookups: a value from a workspace module may bring any of the above.
    return not _imports_workspace_value(text, path, context, calls=calls)
