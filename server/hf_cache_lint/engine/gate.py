"""A C-speed gate between the text prefilter and parso: can this module hold a finding at all?

parso parses at about 0.6 MB/s; CPython's compiler is an order of magnitude faster. A module that
compiles gives every name, attribute, keyword and string constant it uses in its code objects
(`co_names`, `co_varnames`, `co_consts`, keyword-name tuples), docstrings and comments aside. A finding
needs a generate call or a `cache_implementation` value, which the interpreter only records when the
module (or a workspace module it imports a value from) says one of TRIGGERS in code, or loads a
checkpoint whose generation_config.json it then reads (`from_pretrained`). So a module that
compiles, names none of them and imports no value from a workspace module cannot hold a finding, and
skipping parso for it leaves the findings unchanged (tests/engine/test_gate.py runs both paths over
the corpus and every rule example). Anything that does not compile goes to parso, as before.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path
from types import CodeType

from hf_cache_lint.engine import modules
from hf_cache_lint.engine.context import Context

TRIGGERS = frozenset({"generate", "pipeline", "cache_implementation", "from_pretrained"})

# `from .x import (a, b)` / `from pkg.mod import a as b, \` continued: the names a workspace module may
# lend. Anywhere in the text (after `;`, in a one-line `if`, even in a string): too many is only slower.
_FROM_IMPORT = re.compile(
    r"(?<![\w.])from[ \t]+(\.*)[ \t]*([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|(?:[^\n#;\\]|\\\r?\n)*)")


def _words(code: CodeType, out: set[str]) -> None:
    out.update(code.co_names, code.co_varnames, code.co_cellvars, code.co_freevars)
    for c in code.co_consts:
        if isinstance(c, str):
            out.add(c)
        elif isinstance(c, tuple):  # keyword names of a call, an import's fromlist
            out.update(x for x in c if isinstance(x, str))
        elif isinstance(c, CodeType):
            _words(c, out)


def _compiled_words(text: str) -> set[str] | None:
    """Every identifier and string constant of the module's code; None when it does not compile."""
    # Python 3.12+ drops `if not __debug__:` bodies at compile time; the interpreter does not.
    if "__debug__" in text:
        return None
    try:
        with warnings.catch_warnings():  # invalid escapes etc.: parso's path says nothing either
            warnings.simplefilter("ignore")
            code = compile(text, "<gate>", "exec", dont_inherit=True, optimize=0)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return None
    out: set[str] = set()
    _words(code, out)
    return out


def _imports_workspace_value(text: str, path: str, context: Context) -> bool:
    """Whether a `from M import n` may bring a value (not a def or class) from a workspace file."""
    importer = Path(path) if path and not path.startswith("<") else None
    roots = tuple(p for p in (context.workspace, importer.parent if importer else None) if p is not None)
    for m in _FROM_IMPORT.finditer(text):
        level, module = len(m.group(1)), m.group(2)
        local = level > 0 or (module != "" and module.split(".")[0] not in modules.SKIP_ROOTS)
        if not local:
            continue
        # `from . import x` names a module or a value of the package's __init__: keep it simple, both.
        found = modules.resolve(module, level, importer, roots)
        listed = m.group(3).strip("() \t\r\n").replace("\\", " ").replace("\n", " ")
        names = [n.split(" as ")[0].strip() for n in listed.split(",")]
        if found is None:
            if level > 0 and module == "":
                return True
            continue
        if modules.might_export_facts(found) and any(modules.assigns(found, n) for n in names if n):
            return True
    return False


def cannot_hold_finding(text: str, path: str, context: Context) -> bool:
    """True only when parsing and interpreting the module cannot record a call or a cache value."""
    words = _compiled_words(text)
    if words is None or not words.isdisjoint(TRIGGERS):
        return False
    return not _imports_workspace_value(text, path, context)
