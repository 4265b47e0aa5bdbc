"""Text utilities shared by the engine: decoding, edits, line offsets. Pure functions."""

from __future__ import annotations

import re
from collections.abc import Iterable

from hf_cache_lint.engine.base import process_state
from hf_cache_lint.engine.base.findings import Edit, Position


class UndecodableError(ValueError):
    """The bytes are not text this tool can read."""


def decode_source(data: bytes) -> str:
    """Decode Python source like the interpreter does: BOM, PEP 263 cookie, else UTF-8."""
    import io
    import tokenize

    if b"\x00" in data[:8192]:
        raise UndecodableError("binary file (contains NUL bytes)")
    # The common case at C speed: no BOM and no `coding` in the first two lines (all that detect_encoding
    # reads) is UTF-8 for it; bytes that decode as UTF-8 decode so line by line too (a line ends on b"\n",
    # never inside a character). Anything else, errors included, goes the tokenizer's way below (its Python
    # code was ~2/3 of the decode of transformers' 2,912 files).
    first = data.find(b"\n")
    second = data.find(b"\n", first + 1) if first >= 0 else -1
    if not data.startswith(b"\xef\xbb\xbf") and b"coding" not in (data if second < 0 else data[:second]):
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            pass
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return data.decode(encoding).removeprefix("\ufeff")
    except (SyntaxError, LookupError, UnicodeDecodeError) as exc:
        raise UndecodableError(f"not valid UTF-8 or declared encoding: {exc}") from None


_NEWLINE = re.compile(r"\r\n|\r|\n")


# The last text each was computed for: one check asks again and again for the lines of the same module (every
# finding's ignore fix, every literal a fix rewrites), which cost ~4% of a keystroke in the editor. One
# entry each, swapped whole (a thread reads either the old pair or the new one); callers get a copy.
_LAST_STARTS: tuple[str, list[int]] = ("", [0])
_LAST_LINES: tuple[str, list[str]] = ("", [""])
_LAST_LOWERED: tuple[str, str | bytes] = ("", "")


def find_all(text: str, word: str) -> list[int]:
    """Every offset where `word` starts in `text` (overlapping too), by str.find: the text scans' common step
    (a regex over a large module costs several times more)."""
    out, i = [], text.find(word)
    while i >= 0:
        out.append(i)
        i = text.find(word, i + 1)
    return out


# What the tokenizer skips between two tokens of one logical line: blanks, form feeds, and line breaks (a
# backslash continuation, or any break inside brackets). A text scan that looks for `a.b` or `f(` must allow
# these between the tokens, or `model . generate (...)` hides the call (issue 33).
BLANKS = " \t\f\\\r\n"
# The same as a regex fragment: blanks, line breaks and backslash continuations.
GAP = r"(?:[ \t\f\r\n]|\\(?:\r\n|\r|\n))*"


def find_spaced(text: str, word: str, before: str = "", after: str = "") -> list[int]:
    """Offsets of `word` with `before` as the token just before it and `after` just after, across what the
    tokenizer skips (`BLANKS`), where at least one such character stands between them: the spaced forms a
    plain `text.find(before + word + after)` misses. The offset is that of `before` (else of `word`)."""
    out = []
    for i in find_all(text, word):
        at = i
        if before:
            j = i - 1
            while j >= 0 and text[j] in BLANKS:
                j -= 1
            if j < 0 or text[j] != before:
                continue
            spaced, at = j != i - 1, j
        else:
            spaced = False
        if after:
            k = i + len(word)
            while k < len(text) and text[k] in BLANKS:
                k += 1
            if k >= len(text) or text[k] != after:
                continue
            spaced = spaced or k != i + len(word)
        if spaced:
            out.append(at)
    return out


def line_starts(text: str) -> list[int]:
    """Offsets of each line's first character (lines split on \\n, \\r\\n and \\r like parso)."""
    global _LAST_STARTS
    last_text, starts = _LAST_STARTS
    if text is not last_text and text != last_text:
        starts = [0, *(m.end() for m in _NEWLINE.finditer(text))]
        _LAST_STARTS = (text, starts)
    return list(starts)


def _split(text: str) -> list[str]:
    """`_NEWLINE.split(text)`: without a carriage return in the text, `str.split` at \n gives the same lines for a
    fraction of the regular expression's cost (asked once per check text, for the ignore fixes)."""
    return text.split("\n") if "\r" not in text else _NEWLINE.split(text)


def split_lines(text: str) -> list[str]:
    """Lines without their endings, split where Python's tokenizer and LSP split them (\\n, \\r\\n, \\r).

    Not `str.splitlines`: it also breaks at \\f, \\v, \\x1c-\\x1e, \\x85, \\u2028 and \\u2029, which Python
    reads as part of a line (a form feed is whitespace, a \\u2028 may sit in a string or comment)."""
    global _LAST_LINES
    last_text, lines = _LAST_LINES
    if text is not last_text and text != last_text:
        lines = _split(text)
        _LAST_LINES = (text, lines)
    return list(lines)


# The characters outside ASCII whose lowercase holds an ASCII character: U+0130 (lowercase "i" + U+0307) and the
# Kelvin sign U+212A ("k"), over every code point (tests/engine/test_text_scans.py checks the list).
LOWER_TO_ASCII = ("\u0130", "\u212a")


def says(text: str, word: str) -> bool:
    """`word in text.lower()`, for a lowercase ASCII `word`, without `str.lower` on a text that is not ASCII: it
    maps every character through Unicode's tables (3 ms on transformers' generation/utils.py, whose four non-ASCII
    characters make the whole string 4 bytes a character, against 0.5 ms for its ASCII twin). Such a text's UTF-8
    bytes lowered (ASCII letters only) hold `word` exactly where its lowercase does, unless it holds a character of
    LOWER_TO_ASCII. Kept for the last text: the screen and the suppressions both ask, at every keystroke."""
    global _LAST_LOWERED
    last_text, lowered = _LAST_LOWERED
    if text is not last_text and text != last_text:
        if text.isascii() or any(c in text for c in LOWER_TO_ASCII):
            lowered = text.lower()
        else:
            lowered = text.encode("utf-8", "surrogatepass").lower()
        _LAST_LOWERED = (text, lowered)
    if isinstance(lowered, str):
        return word in lowered
    return word.encode("ascii") in lowered


def line_at(text: str, line: int) -> str:
    """`split_lines(text)[line - 1]`, "" past the end, without copying the list of lines (every finding's ignore
    fix asks for the one line it starts on)."""
    global _LAST_LINES
    last_text, lines = _LAST_LINES
    if text is not last_text and text != last_text:
        lines = _split(text)
        _LAST_LINES = (text, lines)
    return lines[line - 1] if line - 1 < len(lines) else ""


def offset(starts: list[int], pos: Position) -> int:
    return starts[pos.line - 1] + pos.column


def apply_edits(text: str, edits: Iterable[Edit]) -> str:
    """Apply non-overlapping edits (any order) to `text`."""
    starts = line_starts(text)
    ordered = sorted(edits, key=lambda e: (e.span.start, e.span.end), reverse=True)
    for edit in ordered:
        a, b = offset(starts, edit.span.start), offset(starts, edit.span.end)
        text = text[:a] + edit.content + text[b:]
    return text


def _forget_last() -> None:
    global _LAST_STARTS, _LAST_LINES, _LAST_LOWERED
    _LAST_STARTS, _LAST_LINES, _LAST_LOWERED = ("", [0]), ("", [""]), ("", "")


process_state.resettable("engine/text/text.py", "_LAST_STARTS", _forget_last)
process_state.resettable("engine/text/text.py", "_LAST_LINES", _forget_last)
process_state.resettable("engine/text/text.py", "_LAST_LOWERED", _forget_last)
