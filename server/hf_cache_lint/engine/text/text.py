"""Text utilities shared by the engine: decoding, edits, line offsets. Pure functions."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

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
    out: list[int] = []
    if not contains(text, word):  # most texts: a word test carried over the edit, not a scan
        return out
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
    LOWER_TO_ASCII. Kept for the last text: the screen and the suppressions both ask, at every keystroke. For a large
    text, each word's answer is carried over the edit as `contains` carries its (`_Version.said_line`): the encode
    and the lowering are made only where the edited lines cannot tell."""
    if len(text) >= _CONTAINS_MIN and "\n" not in word:
        version = _version_of(text)
        if version is not None:
            try:
                return version.said[word] >= 0
            except KeyError:
                at = version.said[word] = version.said_line(word)
                return at >= 0
    lowered = _lowered(text)
    if isinstance(lowered, str):
        return word in lowered
    return word.encode("ascii") in lowered


def _lowered(text: str) -> str | bytes:
    """`text.lower()`, or for a text that is not ASCII its UTF-8 bytes lowered (`says`), kept for the last text."""
    global _LAST_LOWERED
    last_text, lowered = _LAST_LOWERED
    if text is not last_text and text != last_text:
        if text.isascii() or any(c in text for c in LOWER_TO_ASCII):
            lowered = text.lower()
        else:
            lowered = text.encode("utf-8", "surrogatepass").lower()
        _LAST_LOWERED = (text, lowered)
    return lowered


def kept_lines(text: str) -> list[str]:
    """parso's `split_lines(text, keepends=True)` for a text without a carriage return: the lines cut at `\n`, each
    with its ending, an empty one after a final break (engine/syntax/parsing.py `lines_of`). Kept for the last text:
    the editor buffer's parse (engine/interpreter/interp.py `parse`) and `contains` both ask at every keystroke.
    Callers must not change the list."""
    global _LAST_KEPT
    last_text, lines = _LAST_KEPT
    if text is not last_text and text != last_text:
        parts = text.split("\n")
        last = parts[-1]
        lines = [p + "\n" for p in parts]
        lines[-1] = last
        _LAST_KEPT = (text, lines)
    return lines


_LAST_KEPT: tuple[str, list[str]] = ("", [""])
# Below this length a plain `word in text` is asked (a scan costs less than the memo's bookkeeping; the CLI's files
# are mostly smaller, each checked once).
_CONTAINS_MIN = 16384
# Characters compared at either end to tell an edit of the last text from another text.
_ENDS = 64
# Lines compared per step when looking for the lines two texts share at either end (a slice comparison runs in C).
_STEP = 64


class _Version:
    """One text's word tests: where each word asked first stands (-1: nowhere), and the previous text's, with the
    lengths of a head and a tail the two share (whole lines, found when first needed), to carry those answers over
    the edit."""

    __slots__ = ("_lines", "before", "calls", "first", "said", "shared", "text")

    def __init__(self, text: str, before: _Version | None) -> None:
        self.text = text
        self._lines: list[str] | None = None  # split when a next text or `said_line` first needs them
        self.first: dict[str, int] = {}
        self.said: dict[str, int] = {}  # `says`' words: the index in `lines` of the first line saying it, or -1
        self.calls: dict[str, tuple[int, int] | None] = {}  # `has_call`'s words: the first call's span, or None
        self.before = before
        # (common head, common tail) in characters, then in lines, with before.text
        self.shared: tuple[int, int, int, int] | None = None

    @property
    def lines(self) -> list[str]:
        if self._lines is None:
            self._lines = kept_lines(self.text)
        return self._lines

    def find(self, word: str) -> int:
        before = self.before
        if before is None or word not in before.first:
            return self.text.find(word)
        new = self.text
        if self.shared is None:
            self.shared = shared_ends(before.lines, self.lines, len(new))
        head, tail, _, _ = self.shared
        was = before.first[word]
        if was >= 0 and was + len(word) <= head:  # inside the common head: nothing earlier can have appeared
            return was
        # No occurrence lies wholly inside the head (`was` was the first), so the first now starts in the window
        # around the edit or after it; with none before (`was` < 0), only the window's can be new.
        start = max(0, head - len(word) + 1)
        if was < 0:
            return new.find(word, start, len(new) - tail + len(word) - 1)
        return new.find(word, start)

    def call(self, word: str) -> tuple[int, int] | None:
        """The span of the first call of `word` (`has_call`), carried over the edit: one wholly inside the common head
        (the character before it too) is still the first; where there was none, a call now must reach into the edited
        window (all of it and the character before it in the head, or in the tail, the old text had it), so it
        starts at most at the window's end and, ending past the head, no earlier than the blanks that end the head."""
        before, new = self.before, self.text
        if before is None or word not in before.calls:
            return _first_call(new, word, 0, len(new))
        if self.shared is None:
            self.shared = shared_ends(before.lines, self.lines, len(new))
        head, tail, _, _ = self.shared
        was = before.calls[word]
        if was is not None:
            return was if was[1] <= head else _first_call(new, word, 0, len(new))
        gap = head
        while gap > 0 and (new[gap - 1] == "\\" or new[gap - 1].isspace()):
            gap -= 1
        return _first_call(new, word, max(0, gap - len(word)), len(new) - tail)

    def said_line(self, word: str) -> int:
        """The index in `lines` of the first line whose lowercase holds `word` (a lowercase ASCII word without a line
        break, so each match lies inside one line, and a line lowered alone gives what it gives in the whole text:
        Unicode's only context rule, a final sigma, makes no ASCII letter), or -1."""
        before = self.before
        if before is not None and word in before.said:
            if self.shared is None:
                self.shared = shared_ends(before.lines, self.lines, len(self.text))
            _, _, first, last = self.shared
            was = before.said[word]
            if 0 <= was < first:  # a line of the common head
                return was
            if was < 0:  # none before: only the edited lines can hold one
                for i in range(first, len(self.lines) - last):
                    if word in self.lines[i].lower():
                        return i
                return -1
        lowered = _lowered(self.text)
        if isinstance(lowered, str):
            at = lowered.find(word)
            return -1 if at < 0 else lowered.count("\n", 0, at)
        at = lowered.find(word.encode("ascii"))
        return -1 if at < 0 else lowered.count(b"\n", 0, at)  # UTF-8 holds b"\n" only for a line break


def shared_ends(old: list[str], new: list[str], size: int) -> tuple[int, int, int, int]:
    """The lengths in characters of a head and a tail the texts of lines `old` and `new` share (`size`: the length
    of `new`'s text): their common first and last lines, the two never overlapping; then the numbers of those lines. Whole lines: comparing lists of
    short strings costs a fraction of comparing the characters of a text stored 4 bytes each."""
    limit = min(len(old), len(new))
    first = 0
    while first + _STEP <= limit and old[first:first + _STEP] == new[first:first + _STEP]:
        first += _STEP
    while first < limit and old[first] == new[first]:
        first += 1
    limit -= first
    n_old, n_new = len(old), len(new)
    last = 0
    while last + _STEP <= limit and old[n_old - last - _STEP:n_old - last] == new[n_new - last - _STEP:n_new - last]:
        last += _STEP
    while last < limit and old[n_old - last - 1] == new[n_new - last - 1]:
        last += 1
    head = sum(map(len, new[:first]))
    return head, size - head - sum(map(len, new[first:n_new - last])), first, last


_LAST_VERSION: _Version | None = None


def _version_of(text: str) -> _Version | None:
    """The word tests of `text`, the last text's or new ones after it; None for a text with a carriage return."""
    global _LAST_VERSION
    version = _LAST_VERSION
    if version is None or (version.text is not text and version.text != text):
        if "\r" in text:
            return None
        before = None
        if version is not None:
            version.before = None  # one edit back only: no chain of old texts kept alive
            # Carry answers only from a text this one is an edit of: one edit leaves the first or the last
            # characters as they were. The CLI's next file is another module, where carrying would split both
            # texts into lines only to find nothing shared (its files' word tests: ~0.13 s over transformers' tree).
            if text[:_ENDS] == version.text[:_ENDS] or text[-_ENDS:] == version.text[-_ENDS:]:
                before = version
        version = _Version(text, before)
        _LAST_VERSION = version
    return version


def contains(text: str, word: str) -> bool:
    """`word in text`, for a large text answered once per text and word: a keystroke asks dozens of whole-text word
    tests (the screen, the prefilters, the readers), each a scan of the whole module (0.05-0.15 ms each on
    transformers' generation/utils.py, whose one emoji makes it 4 bytes a character). Where the word was asked of
    the previous text too, where it first stood is carried over the edit (`_Version.find`): the head both texts
    share keeps it, else only the edit's window and what follows it are scanned. A text with a carriage return is
    scanned (its lines are not `kept_lines`'). tests/engine/test_text_scans.py compares it with `in` over random
    edits."""
    if len(text) < _CONTAINS_MIN:
        return word in text
    version = _version_of(text)
    if version is None:
        return word in text
    try:
        return version.first[word] >= 0
    except KeyError:
        at = version.first[word] = version.find(word)
        return at >= 0


def has_call(text: str, word: str) -> bool:
    """Whether `text` matches `\\bword[\\s\\\\]*\\(` (a call of `word`, however spaced: `torch . save (`), for a `word`
    that starts with a letter or `_`. Not that regex: one that starts with `\\b` has no literal prefix, so `re` tries it
    at every character (10 ms on transformers' generation/utils.py, stored 4 bytes a character, at every keystroke);
    `word` is found by `str.find` and the rest matched where it stands. For a large text, answered once per text and
    carried over the edit (`_Version.call`); tests/engine/test_text_scans.py compares it with the regex."""
    if len(text) < _CONTAINS_MIN or (version := _version_of(text)) is None:
        return _first_call(text, word, 0, len(text)) is not None
    try:
        return version.calls[word] is not None
    except KeyError:
        at = version.calls[word] = version.call(word)
        return at is not None


_CALL_REST: dict[str, Callable[[str, int], re.Match[str] | None]] = {}


def _first_call(text: str, word: str, start: int, stop: int) -> tuple[int, int] | None:
    """The span of the first match of `\\bword[\\s\\\\]*\\(` in `text` that starts in [start, stop] (the regex's `\\s` is
    `str.isspace`, its `\\w` `str.isalnum` or `_`: both Unicode's)."""
    rest = _CALL_REST.get(word)
    if rest is None:
        rest = _CALL_REST[word] = re.compile(re.escape(word) + r"[\s\\]*\(").match
    i = text.find(word, start, stop + len(word))
    while i >= 0:
        if i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_"):
            found = rest(text, i)
            if found is not None:
                return i, found.end()
        i = text.find(word, i + 1, stop + len(word))
    return None


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
    global _LAST_STARTS, _LAST_LINES, _LAST_LOWERED, _LAST_VERSION, _LAST_KEPT
    _LAST_STARTS, _LAST_LINES, _LAST_LOWERED, _LAST_VERSION = ("", [0]), ("", [""]), ("", ""), None
    _LAST_KEPT = ("", [""])


process_state.resettable("engine/text/text.py", "_LAST_STARTS", _forget_last)
process_state.resettable("engine/text/text.py", "_LAST_LINES", _forget_last)
process_state.resettable("engine/text/text.py", "_LAST_LOWERED", _forget_last)
process_state.resettable("engine/text/text.py", "_LAST_VERSION", _forget_last)
process_state.resettable("engine/text/text.py", "_LAST_KEPT", _forget_last)
process_state.resettable("engine/text/text.py", "_CALL_REST", _CALL_REST.clear)
