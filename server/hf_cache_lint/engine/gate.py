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
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import CodeType

from hf_cache_lint.engine import modules
from hf_cache_lint.engine.context import Context
from hf_cache_lint.engine.keywords import CACHE_KEYWORDS
from hf_cache_lint.engine.prefilter import _in_code, _triple_quotes

# Words whose mere presence sends a module to parso: values a check reads (a `cache_implementation`,
# a checkpoint's generation_config.json, a Hub default) and a pipeline (a call that reaches generate).
LOADS = frozenset({"cache_implementation", "from_pretrained", "pipeline"})
CALLS = frozenset({"generate"})
TRIGGERS = LOADS | CALLS

# The compiler drops code it can tell never runs, with the constants (and functions) written there; the
# interpreter still reads it. On 3.10 and 3.11 that is only what follows a loop on a true constant without a
# `break` (`while True:`) or an `assert` of a false one (the other unreachable code it drops, after `return`
# or `raise`, the interpreter skips too: tests/engine/test_gate.py); 3.12+ also drops `if False:` bodies and
# the like. Where that may be, every identifier of the text counts instead (comments and docstrings too:
# only slower).
_CONSTANTS_COMPLETE = sys.version_info < (3, 12)
_DROPS_CODE = re.compile(
    r"\b(?:while|assert)[\s(]*(?:not\b|True\b|False\b|None\b|\.\.\.|[-+~]?\.?\d|[bBrRuUfF]{0,2}[\"'\[{(])")
_IDENTIFIER = re.compile(r"[^\W\d]\w*")

# `from .x import (a, b)` / `from pkg.mod import a as b, \` continued: the names a workspace module may
# lend. Anywhere in the text (after `;`, in a one-line `if`, even in a string): too many is only slower.
_FROM_IMPORT = re.compile(
    r"(?<![\w.])from[ \t]+(\.*)[ \t]*([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|(?:[^\n#;\\]|\\\r?\n)*)")


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
    if not _CONSTANTS_COMPLETE or _DROPS_CODE.search(text):
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
    for m in _FROM_IMPORT.finditer(text):
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
    units = table.slice(name)
    if _makes(frozenset().union(*(table.units[i].words for i in units)), makers):
        return True
    roots = tuple(p for p in (context.workspace, path.parent) if p is not None) + context.extra_paths
    for i in units:
        for level, module, origin in table.units[i].imports:
            if level == 0 and (module == "" or module.split(".")[0] in modules.SKIP_ROOTS):
                continue
            found = modules.resolve(module, level, path, roots)
            if found is not None and _lends(found, origin, context, makers, seen):
                return True
    return False


@dataclass(frozen=True)
class _Unit:
    """One top-level statement of a module (a compound one whole: an `if`, a `try`, a def with its body)."""

    binds: frozenset[str]  # module-level names it binds (also through `global` in a nested function)
    mentions: frozenset[str]  # every name it reads, binds or declares anywhere inside
    words: frozenset[str]  # identifiers written in it: names, attributes, keywords, imported names, strings
    imports: tuple[tuple[int, str, str], ...]  # each `from M import x`: (level, M, x)
    inert: bool  # it binds only a literal constant or a non-workspace import


@dataclass(frozen=True)
class _Statements:
    units: tuple[_Unit, ...]
    by_name: dict[str, tuple[int, ...]]  # a module-level name -> the units that mention it
    inert_names: frozenset[str]  # names every binding of which is inert (a symbol or a constant: nothing to mutate)

    def slice(self, name: str) -> set[int]:
        """The statements that can shape `name`'s value at the end of the top level, or what it reaches: those
        that mention it (binding it, reading it into something else, mutating it, a function doing either), and,
        for each of them, those that mention any module-level name it mentions (where the value may flow in or
        out, an alias be mutated, a called function run). A name bound only to a constant or a non-workspace
        import holds nothing that can change, so nothing flows through it."""
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


def _unit(stmt: ast.stmt) -> _Unit:
    binds: set[str] = set()
    mentions: set[str] = set()
    words: set[str] = set()
    imports: list[tuple[int, str, str]] = []
    for child in _walk_noting_binds(stmt, binds):
        if isinstance(child, ast.Name):
            mentions.add(child.id)
            words.add(child.id)
        elif isinstance(child, ast.Attribute):
            words.add(child.attr)
        elif isinstance(child, ast.keyword) and child.arg:
            words.add(child.arg)
        elif isinstance(child, ast.Constant) and isinstance(child.value, str) and child.value.isidentifier():
            words.add(child.value)
        elif isinstance(child, (ast.Global, ast.Nonlocal)):
            mentions.update(child.names)
            binds.update(child.names)
        elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            mentions.add(child.name)
        elif isinstance(child, ast.arg):
            mentions.add(child.arg)
        elif isinstance(child, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and child.name:
            mentions.add(child.name)
        elif isinstance(child, ast.MatchMapping) and child.rest:
            mentions.add(child.rest)
        elif isinstance(child, (ast.Import, ast.ImportFrom)):
            for a in child.names:
                bound = a.asname or a.name.split(".")[0]
                mentions.add(bound)
                words.update((a.name, bound))
                if isinstance(child, ast.ImportFrom):
                    imports.append((child.level, child.module or "", a.name))
    return _Unit(frozenset(binds), frozenset(mentions), frozenset(words), tuple(imports),
                 _binds_nothing_mutable(stmt))


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _walk_noting_binds(stmt: ast.stmt, binds: set[str]) -> list[ast.AST]:
    """Every node of `stmt` (as ast.walk), noting on the way the names it binds at module level: not those of a
    function's, a class's or a comprehension's own scope (a walrus in a comprehension binds outside it)."""
    out: list[ast.AST] = []
    # (node, where): 0 module level, 1 inside a module-level comprehension, 2 inside a def, class or lambda
    todo: list[tuple[ast.AST, int]] = [(stmt, 0)]
    while todo:
        node, where = todo.pop()
        out.append(node)
        if where == 0:
            if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                binds.add(node.id)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                binds.add(node.name)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                binds.update(a.asname or a.name.split(".")[0] for a in node.names)
            elif isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and node.name:
                binds.add(node.name)
            elif isinstance(node, ast.MatchMapping) and node.rest:
                binds.add(node.rest)
        if where < 2 and isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name):
            binds.add(node.target.id)
        inner = 2 if where == 2 or isinstance(node, _SCOPES) else 1 if where == 1 or isinstance(
            node, _COMPREHENSIONS) else 0
        todo.extend((c, inner) for c in ast.iter_child_nodes(node))
    return out


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
    units = tuple(_unit(s) for s in tree.body)
    by_name: dict[str, list[int]] = {}
    bound: set[str] = set()
    for u in units:
        bound |= u.binds
    for i, u in enumerate(units):
        for n in u.mentions & bound:
            by_name.setdefault(n, []).append(i)
    not_inert: set[str] = set()
    for u in units:
        if not u.inert:
            not_inert |= u.binds
    return _Statements(units, {n: tuple(v) for n, v in by_name.items()}, frozenset(bound - not_inert))


def _statements(path: Path) -> _Statements | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return _statements_of(str(path), st.st_mtime_ns, st.st_size)


def _every_keyword(name: str) -> bool:
    return True


_LOAD_WORD = re.compile(r"\b(?:cache_implementation|from_pretrained|pipeline)\b")


def _says_a_load_in_code(text: str) -> bool:
    """A quick look (engine/prefilter.py's line test) for a LOADS word in code: such a module goes to parso
    whatever the compiler says, so compiling it would only add to its parse. A miss only costs the compile."""
    quotes = _triple_quotes(text)
    for m in _LOAD_WORD.finditer(text):
        before = text[text.rfind("\n", 0, m.start()) + 1:m.start()]
        if before.count('"') % 2 == 0 and before.count("'") % 2 == 0 and _in_code(text, m.start(), quotes):
            return True  # not inside a one-line string either
    return False


def cannot_hold_finding(text: str, path: str, context: Context,
                        keyword_matters: Callable[[str], bool] = _every_keyword) -> bool:
    """True only when parsing and interpreting the module cannot record anything a rule reports on.

    `keyword_matters(name)`: whether a rule may report on a call that reaches generate for the keyword
    `name` written in it when the call has no cache argument and no `cache_implementation` (HFC005's
    misspelled and removed keywords); the default, every keyword, is always safe.
    """
    if _says_a_load_in_code(text):
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
