"""Edits built from node positions: add or replace a keyword, remove an argument, add a comment."""

from __future__ import annotations

import ast
import bisect
from functools import lru_cache
from typing import Any

from hf_cache_lint.engine.base.findings import Edit, Fix, Position, Span
from hf_cache_lint.engine.output.analysis import GenerateCall, Keyword
from hf_cache_lint.engine.output.keywords import find_keyword
from hf_cache_lint.engine.output.suppress import ignore_comment
from hf_cache_lint.engine.text.text import line_at, line_starts, offset


def clear_keyword(text: str, call: GenerateCall, name: str) -> tuple[Edit, ...] | None:
    """`name=None` for this call, in the form Python accepts there.

    A written keyword gets the value None. When `name` arrives through a dict (`**kw`, a Thread's
    `kwargs=`), adding the keyword would make Python raise "got multiple values for keyword
    argument", so that dict expression becomes `{**kw, "name": None}` instead. Else the keyword is
    added, unless keywords written in this call do not reach generate (Thread(...))."""
    kw = find_keyword(call.keywords, name)
    if kw is not None:
        return (Edit(kw.value_span, "None"),)
    if name == "cache_implementation" and call.ci_spread is not None:
        return (override_in_dict(text, call.ci_spread, name, "None"),)
    return set_keyword(text, call, name, "None")


def override_in_dict(text: str, holder: Span, key: str, value: str) -> Edit:
    """`expr` -> `{**expr, "key": value}` (parenthesised where `**expr` would not parse in a dict display)."""
    starts = line_starts(text)
    expr = text[offset(starts, holder.start):offset(starts, holder.end)]
    if not _parses(f"{{**{expr}}}"):  # `**a if c else b` is fine in a call, not in a dict display
        expr = f"({expr})"
    return Edit(holder, f'{{**{expr}, "{key}": {value}}}')


def _parses(expression: str) -> bool:
    try:
        ast.parse(expression, mode="eval")
    except (SyntaxError, ValueError):
        return False
    return True


def set_keyword(text: str, call: GenerateCall, name: str, value: str) -> tuple[Edit, ...] | None:
    """`name=value` in this call: replace the written value, or add the keyword after the last argument.

    Built from the argument and parenthesis positions: the separating comma is added when the call has
    none, a trailing comma is kept, a comment after the last argument stays with it, and a call written
    one argument per line gets a new line in the same style."""
    kw = find_keyword(call.keywords, name)
    if kw is not None:
        return (Edit(kw.value_span, value),)
    if call.close_paren is None or not call.keywords_reach:
        return None
    new = f"{name}={value}"
    if not call.arguments:
        return (Edit(Span(call.close_paren.start, call.close_paren.start), new),)
    last = call.arguments[-1]
    starts = line_starts(text)
    end = offset(starts, last.end)
    comma, line_end = _gap(text, end, offset(starts, call.close_paren.start))
    before = text[starts[last.start.line - 1]:offset(starts, last.start)]
    own_line = line_end is not None and before.strip() == ""  # one argument per line, `)` further down
    if comma is not None:
        if own_line and line_end is not None and comma < line_end:  # `    b,  # c` then `)` below
            at = _position(starts, line_end)
            return (Edit(Span(at, at), f"{_newline_at(text, line_end)}{before}{new},"),)
        at = _position(starts, comma + 1)  # `b,)`, `b, )`, `b,  # c`, or a comma leading the next line
        return (Edit(Span(at, at), f" {new},"),)
    if not own_line or line_end is None:
        return (Edit(Span(last.end, last.end), f", {new}"),)
    newline = _newline_at(text, line_end)
    if line_end == end:
        return (Edit(Span(last.end, last.end), f",{newline}{before}{new}"),)
    # A comment follows the last argument: the comma goes after the argument, the new line after the comment.
    at = _position(starts, line_end)
    return (Edit(Span(last.end, last.end), ","), Edit(Span(at, at), f"{newline}{before}{new}"))


def _gap(text: str, start: int, stop: int) -> tuple[int | None, int | None]:
    """Between the last argument and `)` (only blanks, comments, line continuations and a comma): the
    offsets of the comma and of the end of the last argument's line (before its newline), when present."""
    comma = line_end = None
    i = start
    while i < stop:
        ch = text[i]
        if ch == "#":  # a comment may hold commas: skip to its end
            while i < stop and text[i] not in "\r\n":
                i += 1
            continue
        if ch in "\r\n":
            if line_end is None:
                line_end = i
        elif ch == "," and comma is None:
            comma = i
        elif ch == "\\" and i + 1 < stop and text[i + 1] in "\r\n":
            i += 1
        i += 1
    return comma, line_end


def _newline_at(text: str, index: int) -> str:
    return "\r\n" if text.startswith("\r\n", index) else text[index]


def _position(starts: list[int], off: int) -> Position:
    line = bisect.bisect_right(starts, off)
    return Position(line, off - starts[line - 1])


def remove_argument(call: GenerateCall, arg: Span) -> Edit | None:
    """Remove one argument and the comma that separates it from its neighbour (the only argument: up to
    the closing parenthesis, so no lone trailing comma is left behind)."""
    try:
        i = call.arguments.index(arg)
    except ValueError:
        return None
    if i > 0:
        return Edit(Span(call.arguments[i - 1].end, arg.end), "")
    if len(call.arguments) > 1:
        return Edit(Span(arg.start, call.arguments[1].start), "")
    if call.close_paren is not None:
        return Edit(Span(arg.start, call.close_paren.start), "")
    return Edit(arg, "")


def ignore_line(text: str, line: int, code: str) -> Edit:
    """The edit that adds `code` to the ignore comment of `line` (or adds the comment at its end)."""
    col, content = ignore_comment(line_at(text, line), code)
    return Edit(Span(Position(line, col), Position(line, col)), content)


def ignore_title(code: str) -> str:
    """The title of the ignore fix (a contract: editors and scripts match it)."""
    return f"Ignore {code} on this line"


def ignore_fix(text: str, line: int, code: str) -> Fix:
    """The one ignore fix every finding offers: `# hf-cache-lint: ignore[CODE]` on `line`.

    Rules build it with `Rule.ignore_fix`; the language server adds it (lsp/actions.py `with_ignore`) to a
    finding whose rule offers none, so both come from here."""
    return _ignore_fix_on(line_at(text, line), line, code)


@lru_cache(maxsize=1024)
def _ignore_fix_on(line_text: str, line: int, code: str) -> Fix:
    """`ignore_fix` for the text of its line: a function of the line's text, number and the code alone, and a
    Fix is immutable, so one object serves every finding and keystroke that asks again (an editor asks for
    every finding at every keystroke, most of them on lines the keystroke did not touch)."""
    col, content = ignore_comment(line_text, code)
    return Fix(ignore_title(code), (Edit(Span(Position(line, col), Position(line, col)), content),))


def is_ignore_fix(fix: Fix) -> bool:
    return fix.title.startswith("Ignore ")


def transformers_name(tree: Any, name: str) -> tuple[str, Edit | None]:
    """How to spell `transformers.<name>` in this module, and the import edit that makes it available.

    Reuses an existing `from transformers import name [as alias]` or `import transformers [as tf]`; else
    appends `name` to the module's first top-level `from transformers import ...`; else adds that import
    after the last top-level import (or at the top of the file)."""
    first_from = None
    last_import = None
    for stmt in getattr(tree, "children", []):
        node = stmt.children[0] if stmt.type == "simple_stmt" else stmt
        if node.type not in ("import_from", "import_name"):
            continue
        last_import = node
        if node.type == "import_name":
            for path, alias in _import_name_paths(node):
                if path == "transformers":
                    return f"{alias}.{name}", None
            continue
        module = "".join(str(p.value) for p in node.get_from_names())
        if module != "transformers" or node.level:
            continue
        for imported, alias in zip(node.get_defined_names(), _imported_originals(node), strict=False):
            if alias == name:
                return str(imported.value), None
        if first_from is None and not node.is_star_import():
            first_from = node
    if first_from is not None:
        last = first_from.get_defined_names()[-1]
        end = Position(*last.end_pos)
        return name, Edit(Span(end, end), f", {name}")
    new = f"from transformers import {name}"
    if last_import is None:  # below a shebang, encoding cookie or comments, and the module docstring
        at = Position(_first_statement_line(tree), 0)
        return name, Edit(Span(at, at), new + "\n")
    line = last_import.end_pos[0] + 1
    tree_end: tuple[int, int] = getattr(tree, "end_pos", (line, 0))
    if line > tree_end[0]:  # the import ends the file without a newline
        at = Position(*tree_end)
        return name, Edit(Span(at, at), "\n" + new)
    at = Position(line, 0)
    return name, Edit(Span(at, at), new + "\n")


def _first_statement_line(tree: Any) -> int:
    """The line a new first statement goes on: after the docstring, else where the first statement starts
    (its leading comments, a shebang or an encoding cookie, stay above it)."""
    children = [c for c in getattr(tree, "children", []) if c.type != "endmarker"]
    if not children:
        return 1
    first = children[0]
    head = first.children[0] if first.type == "simple_stmt" else first
    if head.type == "string" or (head.type == "atom" and head.children[0].type == "string"):
        return int(first.end_pos[0]) + (0 if first.end_pos[1] == 0 else 1)
    return int(first.start_pos[0])


def _import_name_paths(node: Any) -> list[tuple[str, str]]:
    """(dotted module, the name it is bound to) for each module of `import a.b as c, d`."""
    out = []
    for path in node.get_paths():
        dotted = ".".join(str(p.value) for p in path)
        out.append((dotted, dotted))
    for defined, path in zip(node.get_defined_names(), node.get_paths(), strict=False):
        dotted = ".".join(str(p.value) for p in path)
        out = [(d, str(defined.value) if d == dotted and len(path) == 1 else b) for d, b in out]
    return out


def _imported_originals(node: Any) -> list[str]:
    """The original names of `from m import a as b, c` (a, c), in the order of get_defined_names()."""
    return [str(pair[0].value) for pair in node._as_name_tuples()]


def rename_keyword(kw: Keyword, new: str) -> Edit:
    """`old=value` -> `new=value` (only the name changes, so comments and formatting stay)."""
    return Edit(kw.name_span, new)
