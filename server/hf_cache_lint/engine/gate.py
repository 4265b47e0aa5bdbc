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

import re
import sys
import warnings
from collections.abc import Callable
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


def _imports_workspace_value(text: str, path: str, context: Context) -> bool:
    """Whether a `from M import n` may bring a value (not a def or class) from a workspace file."""
    importer = Path(path) if path and not path.startswith("<") else None
    # The interpreter's roots exactly (engine/importer.py): a module it cannot find lends nothing.
    roots = tuple(p for p in (context.workspace, importer.parent if importer else None) if p is not None)
    roots += context.extra_paths
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
        if modules.might_export_facts(found) and any(modules.assigns(found, n) for n in names if n):
            return True
    return False


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
    if not (CALLS.isdisjoint(names) and CALLS.isdisjoint(strings)):  # a call may reach generate
        # A cache keyword's name, also as an attribute: a cache read off generate's output (HFC007).
        if not (strings.isdisjoint(CACHE_KEYWORDS) and names.isdisjoint(CACHE_KEYWORDS)):
            return False
        if any(keyword_matters(s) for s in strings if s.isidentifier()):
            return False
    # Last, as it costs file lookups: a value from a workspace module may bring any of the above.
    return not _imports_workspace_value(text, path, context)
