"""Edits built from node positions: add or replace a keyword, remove an argument, add a comment."""

from __future__ import annotations

from typing import Any

from hf_cache_lint.engine.analysis import GenerateCall, Keyword
from hf_cache_lint.engine.findings import Edit, Position, Span
from hf_cache_lint.engine.suppress import ignore_comment
from hf_cache_lint.engine.text import line_starts, offset


def set_keyword(text: str, call: GenerateCall, name: str, value: str) -> Edit | None:
    """`name=value` in this call: replace the written value, or add the keyword at the end."""
    for kw in call.keywords:
        if kw.name == name:
            return Edit(kw.value_span, value)
    if call.close_paren is None:
        return None
    if not call.arguments:
        return Edit(Span(call.close_paren.start, call.close_paren.start), f"{name}={value}")
    last = call.arguments[-1]
    starts = line_starts(text)
    between = text[offset(starts, last.end):offset(starts, call.close_paren.start)]
    if "\n" in between:  # one argument per line: add a line in the same style
        line = text.splitlines()[last.start.line - 1]
        indent = line[: len(line) - len(line.lstrip())]
        comma = between.find(",")
        if comma >= 0:
            at = Position(last.end.line, last.end.column + comma + 1) if "\n" not in between[:comma] else last.end
            return Edit(Span(at, at), f"\n{indent}{name}={value},")
        return Edit(Span(last.end, last.end), f",\n{indent}{name}={value}")
    return Edit(Span(last.end, last.end), f", {name}={value}")


def remove_argument(call: GenerateCall, arg: Span) -> Edit | None:
    """Remove one argument and the comma that separates it from its neighbour."""
    try:
        i = call.arguments.index(arg)
    except ValueError:
        return None
    if i > 0:
        return Edit(Span(call.arguments[i - 1].end, arg.end), "")
    if len(call.arguments) > 1:
        return Edit(Span(arg.start, call.arguments[1].start), "")
    return Edit(arg, "")


def ignore_line(text: str, line: int, code: str) -> Edit:
    lines = text.splitlines()
    src = lines[line - 1] if line - 1 < len(lines) else ""
    col, content = ignore_comment(src, code)
    return Edit(Span(Position(line, col), Position(line, col)), content)


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
    line = last_import.end_pos[0] + 1 if last_import is not None else 1
    at = Position(line, 0)
    return name, Edit(Span(at, at), f"from transformers import {name}\n")


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
