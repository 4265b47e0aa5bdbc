"""Edits built from node positions: add or replace a keyword, remove an argument, add a comment."""

from __future__ import annotations

from hf_cache_lint.engine.analysis import GenerateCall
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
