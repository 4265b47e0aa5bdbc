"""Can a name this module imports from transformers (or unsloth) make a value the interpreter knows, a cache or a
model? Read off the text's import statements and the places the names they bind stand, no parse.

The interpreter makes such a value only from a transformers (or unsloth) symbol: a name imported by `from
transformers[.x] import n` or a module bound by `import transformers[.x]` (engine/interpreter/statements.py
`exec_import`; a relative import never makes one). A symbol becomes a value only where it is called with a last
name a cache or a model has (`DynamicCache(...)`, `...ForCausalLM.from_pretrained(...)`, a pipeline: known.py
`_transformers`), annotates a parameter with one (functions.py `annotated`), or is read further (`n.x`, aliased,
handed on), where any name may follow. So a module whose transformers names are all called or used as decorators
as they are, none of them shaped like a maker (lent_values.py OBJECT_MAKERS), holds no such value of its own
(transformers' modeling code: `from transformers.utils import auto_docstring`, `@auto_docstring`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from hf_cache_lint.engine.screen.lent_values import OBJECT_MAKERS, Makers
from hf_cache_lint.engine.text.prefilter import _NOT_CODE

LIBRARIES = frozenset({"transformers", "unsloth"})
TRANSFORMERS = frozenset({"transformers"})
# The transformers classes the hook walk binds (engine/interpreter/hook_names.py `role_of`: a cache, an attention, a decoder
# layer, a model); any other name it binds only as a module (lowercase), read through attributes so shaped.
HOOK_ROLES = Makers(frozenset(), re.compile(r"\w*Attention\w*|\w*(?:Cache|DecoderLayer|Block|Model|GenerationMixin)"
                                            r"|\w*For[A-Z]\w*"))

# `from .x import (a, b)` / `from pkg.mod import a as b, \` continued. Anywhere in the text (after `;`, in a
# one-line `if`, even in a string): a caller that needs code only asks `in_code`. Matched where `from` stands, not
# after a word character or a dot (str.find: a regex search over the text cost ~3 ms on a large module).
_FROM_IMPORT = re.compile(
    r"from[ \t\f]+(\.*)[ \t\f]*([\w.]*)[ \t\f]+import[ \t\f]+(\([^)]*\)|(?:[^\n#;\\]|\\\r?\n)*)")
# `import a.b as c, d`: the `import` of a `from` import matches too, harmlessly (its names are not dotted roots of
# a library unless it imports a module so named: then it counts, a superset).
_IMPORT = re.compile(r"(?<![\w.])import[ \t\f]+((?:[\w. \t\f,]|\\\r?\n)+)")
_COMMENT = re.compile(r"#[^\r\n]*")
# After a name: attribute reads (`.x`), then what follows them.
_CHAIN = re.compile(r"(?:[ \t\f]*\.[ \t\f]*(\w+))*[ \t\f]*(\S?)")


def word_char(c: str) -> bool:
    return c.isalnum() or c == "_"


def from_imports(text: str) -> Iterator[re.Match[str]]:
    r"""The `from ... import ...` statements as `_FROM_IMPORT.finditer` with `(?<![\w.])` in front would find."""
    i = text.find("from")
    while i >= 0:
        m = None
        if i == 0 or not (word_char(text[i - 1]) or text[i - 1] == "."):
            m = _FROM_IMPORT.match(text, i)
        if m is not None:
            yield m
            i = text.find("from", max(m.end(), i + 1))
        else:
            i = text.find("from", i + 1)


def imported_names(m: re.Match[str]) -> list[tuple[str, str]]:
    """(original, bound) of each name a `from` import match lists."""
    listed = _COMMENT.sub("", m.group(3)).strip("() \t\r\n").replace("\\", " ").replace("\n", " ")
    out = []
    for item in listed.split(","):
        parts = item.split()
        if parts:
            out.append((parts[0], parts[2] if len(parts) >= 3 and parts[1] == "as" else parts[0]))
    return out


def in_code(text: str, positions: Sequence[int]) -> set[int]:
    """The positions (each the start of a token) that stand outside every comment and string literal (one pass
    over the literals up to the last position, as engine/text/prefilter.py reads them)."""
    todo = sorted(set(positions))
    out: set[int] = set()
    k = 0
    if not todo:
        return out
    for m in _NOT_CODE.finditer(text):
        start, end = m.span()
        while k < len(todo) and todo[k] < start:
            out.add(todo[k])
            k += 1
        while k < len(todo) and todo[k] < end:
            k += 1
        if k == len(todo):
            return out
    out.update(todo[k:])
    return out


def makes_values(text: str, libraries: frozenset[str] = LIBRARIES, makers: Makers = OBJECT_MAKERS) -> bool:
    """Whether a name this module imports from `libraries` may make a cache or model the interpreter knows (the
    module docstring). False only when every such import in code binds names none of `makers` is shaped like,
    each used nowhere but as a call or a decorator (maybe through attributes with no maker's shape). With
    HOOK_ROLES and TRANSFORMERS: whether the hook walk (engine/interpreter/hooks.py) may bind a transformers class
    or module a hook can derive from or patch."""
    modules = [m for m in _IMPORT.finditer(text)
               if any(p.split()[0].split(".")[0] in libraries
                      for p in m.group(1).replace("\\", " ").split(",") if p.split())]
    statements = list(from_imports(text))
    library = [m for m in statements if not m.group(1) and m.group(2).split(".")[0] in libraries]
    if not modules and not library:
        return False
    code = in_code(text, [m.start() for m in modules + library])
    if any(m.start() in code for m in modules):
        return True
    spans = [m.span() for m in statements]
    for m in library:
        if m.start() not in code:
            continue
        for original, bound in imported_names(m):
            if original == "*":
                return True
            if makers.made_by(frozenset({original})):
                if _used_but_tested(text, bound, spans):
                    return True
            elif _used_as_value(text, bound, spans, makers):
                return True
    return False


# A class tested against, as it is: the class argument of `isinstance(x, C)` / `issubclass(t, (A, C))` (on one line,
# a first argument with no call or bracket in it). The interpreter makes no value of it (engine/interpreter: only
# the hook walk reads an `isinstance` test, and it asks makes_values with HOOK_ROLES).
_TESTED_BEFORE = re.compile(r"(?<![\w.])(?:isinstance|issubclass)[ \t\f]*\([ \t\f]*[\w.]+[ \t\f]*,[ \t\f]*"
                            r"(?:\([ \t\f]*(?:[\w.]+[ \t\f]*,[ \t\f]*)*)?\Z")
_TESTED_AFTER = re.compile(r"(?:[ \t\f]*,[ \t\f]*[\w.]+)*[ \t\f]*,?[ \t\f]*\)")


def _used_but_tested(text: str, name: str, imports: list[tuple[int, int]]) -> bool:
    """Whether a maker-shaped `name` may make a value here: False only when it stands (code or not: a superset)
    nowhere but in import statements and as a class `isinstance`/`issubclass` tests against (`_TESTED_BEFORE`),
    at least once; a call, an annotation, an attribute read, an alias, an argument of anything else make it True,
    and so does an import alone (as before this test: a maker imported counts)."""
    tested = False
    i = text.find(name)
    while i >= 0:
        end = i + len(name)
        if (i == 0 or not word_char(text[i - 1])) and (end == len(text) or not word_char(text[end])) and \
                not any(a <= i < b for a, b in imports):
            line = text[text.rfind("\n", 0, i) + 1:i]
            if not (_TESTED_BEFORE.search(line) and _TESTED_AFTER.match(text, end)):
                return True
            tested = True
        i = text.find(name, i + 1)
    return not tested


def _used_as_value(text: str, name: str, imports: list[tuple[int, int]], makers: Makers) -> bool:
    """Whether `name` stands anywhere (code or not: a superset) but in an import statement, as an attribute of
    something else, or called or decorating as it is (through attributes whose names no maker has)."""
    i = text.find(name)
    while i >= 0:
        end = i + len(name)
        if (i == 0 or not word_char(text[i - 1])) and (end == len(text) or not word_char(text[end])) and \
                not any(a <= i < b for a, b in imports):
            j = i - 1
            while j >= 0 and text[j] in " \t\f":
                j -= 1
            before = text[j] if j >= 0 else ""
            if before != ".":
                chain = _CHAIN.match(text, end)
                assert chain is not None  # every part optional
                attributes = re.findall(r"\w+", text[end:chain.start(2)])
                if any(makers.made_by(frozenset({a})) for a in attributes):
                    return True
                if chain.group(2) != "(" and before != "@":
                    return True
        i = text.find(name, i + 1)
    return False
