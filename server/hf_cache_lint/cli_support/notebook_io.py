"""Read an .ipynb document and write it back with only the changed code cells' sources replaced.

The new text is the original text with each changed `"source"` value spliced in; every other byte
(outputs, metadata, numbers such as `Infinity`, `NaN`, big integers and float spellings, key order,
indentation, escapes, the trailing newline) is the original's. A json.load + json.dump round trip
would rewrite all of them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from hf_cache_lint.engine.text.notebook import NotebookError, load_json


@dataclass(frozen=True)
class Notebook:
    """The original text, and where each code cell's `"source"` value sits in it."""

    text: str
    # (start, end) of each code cell's "source" value in `text`, in cell order; None: the cell has none.
    sources: tuple[tuple[int, int] | None, ...]

    @staticmethod
    def parse(text: str) -> Notebook:
        try:
            load_json(text)  # the same acceptance (and messages) as the checker's reader (engine/text/notebook.py)
        except json.JSONDecodeError as exc:
            raise NotebookError(f"invalid notebook JSON: {exc.msg}") from None
        try:
            return Notebook(text, tuple(_Scanner(text).code_sources()))
        except _Bad:
            raise NotebookError("invalid notebook: no 'cells' list") from None

    def code_sources(self) -> Iterator[str]:
        for where in self.sources:
            yield "" if where is None else _as_text(load_json(self.text[where[0]:where[1]]))

    def with_code_sources(self, sources: Sequence[str]) -> str:
        """The document text with the changed code cells' sources replaced, in the style each had: a list
        of lines stays a list laid out as before, a string stays a string, escapes follow the original."""
        out, last = [], 0
        for where, new in zip(self.sources, sources, strict=False):
            if where is None:
                continue  # a code cell without "source": the checker saw "", nothing to write back
            old_raw = self.text[where[0]:where[1]]
            if _as_text(load_json(old_raw)) == new:
                continue
            out.append(self.text[last:where[0]])
            out.append(_render(old_raw, new, self._ascii(old_raw)))
            last = where[1]
        out.append(self.text[last:])
        return "".join(out)

    def _ascii(self, raw: str) -> bool:
        """Whether to write non-ASCII as \\u escapes: as this cell's source did, else as the document does."""
        for sample in (raw, self.text):
            if not sample.isascii():
                return False
            if re.search(r"\\u(?!00[0-7])[0-9a-fA-F]{4}", sample):
                return True
        return False  # nbformat's own default (ensure_ascii=False)


def _as_text(value: object) -> str:
    if isinstance(value, list):
        return "".join(value)
    return value if isinstance(value, str) else str(value)


def _render(old_raw: str, new: str, ensure_ascii: bool) -> str:
    def dumps(s: str) -> str:
        return json.dumps(s, ensure_ascii=ensure_ascii)

    if not old_raw.startswith("["):
        return dumps(new)
    lines = _kept_items(_raw_items(old_raw), new, dumps)
    if not lines:
        return "[]"
    inner = old_raw[1:-1]
    m = re.match(r"\s*", inner)
    lead = m.group(0) if m else ""
    tail_m = re.search(r"\s*$", inner)
    tail = tail_m.group(0) if tail_m and inner.strip() else ""
    if not inner.strip():  # was empty: the one-line form
        return "[" + ", ".join(lines) + "]"
    # The separator between items as the original wrote it (",\n    " in nbformat's layout).
    sep_m = re.search(r'"\s*(,\s*)"', inner)
    sep = sep_m.group(1) if sep_m else "," + lead if "\n" in lead else ", "
    return "[" + lead + sep.join(lines) + tail + "]"


# Line ends as Python and JupyterLab read them (\n, \r\n, \r): a split after each.
_LINE_END = re.compile(r"(?<=\r\n)|(?<=\n)|(?<=\r)(?!\n)")


def _raw_items(old_raw: str) -> list[tuple[str, str]]:
    """The items of a JSON list of strings as (value, the item's JSON text as written)."""
    return [(json.loads(m.group(0)), m.group(0)) for m in _STRING.finditer(old_raw)]


def _kept_items(old: list[tuple[str, str]], new: str, dumps: Callable[[str], str]) -> list[str]:
    """The JSON texts of the items of `new`: the original items, as written, wherever the new text still
    holds them whole at its start and its end, and the changed lines between them split after each line break.

    Not `str.splitlines`, which also breaks at form feeds and other characters Python reads inside a line: a
    cell line holding one would come back as two items (issue 33); and the items kept are the original
    bytes, escapes and all."""
    # The longest runs of whole items that still match, then back to a line break: an item kept must not be
    # the start of a line that changed after it (nor the end of one that changed before it).
    head, pos = 0, 0
    while head < len(old) and old[head][0] and new.startswith(old[head][0], pos):
        pos += len(old[head][0])
        head += 1
    while head and pos != len(new) and not new.endswith("\n", 0, pos):
        head -= 1
        pos -= len(old[head][0])
    tail, end = 0, len(new)
    while tail < len(old) - head and old[-1 - tail][0] and new.endswith(old[-1 - tail][0], pos, end):
        end -= len(old[-1 - tail][0])
        tail += 1
    while tail and end != pos and not new.endswith("\n", 0, end):
        end += len(old[len(old) - tail][0])
        tail -= 1
    middle = [dumps(x) for x in _LINE_END.split(new[pos:end]) if x]
    return [raw for _, raw in old[:head]] + middle + [raw for _, raw in old[len(old) - tail:]]


class _Bad(Exception):
    pass


_WS = re.compile(r"[ \t\r\n]*")
_NUMBER = re.compile(r"-?(?:Infinity|NaN|\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)|NaN|Infinity")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)


class _Scanner:
    """Just enough of a JSON reader to find the code cells' "source" values (the text already parsed
    with json.loads, so it is well formed; only positions are wanted here)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.i = 0

    def ws(self) -> None:
        m = _WS.match(self.text, self.i)
        self.i = m.end() if m else self.i

    def string(self) -> str:
        m = _STRING.match(self.text, self.i)
        if not m:
            raise _Bad
        self.i = m.end()
        value = json.loads(m.group(0))
        assert isinstance(value, str)
        return value

    def skip(self) -> tuple[int, int]:
        """Skip one value; its (start, end)."""
        self.ws()
        start, ch = self.i, self.text[self.i:self.i + 1]
        if ch == '"':
            self.string()
        elif ch in "[{":
            self.container()
        else:
            m = _NUMBER.match(self.text, self.i)
            for word in ("true", "false", "null"):
                if self.text.startswith(word, self.i):
                    self.i += len(word)
                    break
            else:
                if not m:
                    raise _Bad
                self.i = m.end()
        return start, self.i

    def container(self) -> dict[str, tuple[int, int]]:
        """Skip an object or array; for an object, the span of each member's value (the last wins, as in json)."""
        opening = self.text[self.i]
        closing = "}" if opening == "{" else "]"
        self.i += 1
        members: dict[str, tuple[int, int]] = {}
        while True:
            self.ws()
            if self.text[self.i] == closing:
                self.i += 1
                return members
            if self.text[self.i] == ",":
                self.i += 1
                continue
            if opening == "{":
                key = self.string()
                self.ws()
                if self.text[self.i] != ":":
                    raise _Bad
                self.i += 1
                members[key] = self.skip()
            else:
                self.skip()

    def code_sources(self) -> list[tuple[int, int] | None]:
        self.ws()
        if self.text[self.i:self.i + 1] != "{":
            raise _Bad
        top = self.container()
        if "cells" not in top or self.text[top["cells"][0]] != "[":
            raise _Bad
        self.i = top["cells"][0] + 1
        out: list[tuple[int, int] | None] = []
        while True:
            self.ws()
            ch = self.text[self.i]
            if ch == "]":
                return out
            if ch == ",":
                self.i += 1
                continue
            if ch != "{":
                self.skip()
                continue
            members = self.container()
            kind = members.get("cell_type")
            if kind is not None and load_json(self.text[kind[0]:kind[1]]) == "code":
                out.append(members.get("source"))


def source_file_lines(text: str) -> list[list[int]]:
    """For each code cell (in order), the 1-based line of the .ipynb file where each of its source lines starts:
    what a GitHub annotation or a SARIF region on the notebook file must name. nbformat writes a source as a
    list of strings, one line each, on lines of their own; a source written as one string puts all its lines on
    the line of that string. An unreadable notebook gives [] (the caller falls back to the cell's own lines)."""
    try:
        notebook = Notebook.parse(text)
    except NotebookError:
        return []
    starts = [0]
    starts.extend(i + 1 for i, ch in enumerate(text) if ch == "\n")

    def line_at(offset: int) -> int:
        import bisect

        return bisect.bisect_right(starts, offset)

    out: list[list[int]] = []
    for where in notebook.sources:
        if where is None:
            out.append([])
            continue
        raw = text[where[0]:where[1]]
        if not raw.startswith("["):
            value = load_json(raw)
            count = str(value).count("\n") + 1
            out.append([line_at(where[0])] * count)
            continue
        lines: list[int] = []
        for m in _STRING.finditer(raw):  # each item of the list (items are strings in nbformat)
            item = json.loads(m.group(0))
            # An item may hold several lines (not nbformat's layout, but valid JSON): each starts on its line.
            lines.extend([line_at(where[0] + m.start())] * max(1, item.count("\n") + (not item.endswith("\n"))))
        out.append(lines)
    return out
