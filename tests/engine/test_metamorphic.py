"""Changes that mean nothing to Python change no finding (up to the line shift they cause).

Over every rule example, corpus case and bundled example: comments and docstrings holding quotes and
trigger words, top-level `try`/`if TYPE_CHECKING` guards before the code, trailing blank lines, CRLF and
CR-only line endings, and a consistent renaming of a variable. Each once hid findings (a top-level `try`
before the functions, a triple quote inside an ordinary string or a comment read as a string's start).
"""

from __future__ import annotations

import io
import keyword
import tokenize
from collections.abc import Callable
from pathlib import Path

import pytest

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.rules import ALL_RULES

REPO = Path(__file__).resolve().parents[2]
TARGET = "5.23.0"


def _sources() -> list[tuple[str, str]]:
    out = [(f"{rule.code}-invalid{i}", ex.code) for rule in ALL_RULES for i, ex in enumerate(rule.invalid)
           if not ex.files]  # examples with checkpoint folders need their files: covered by tests/rules
    for folder in (REPO / "tests" / "data" / "corpus", REPO / "examples"):
        out += [(p.name, p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.py"))]
    return out


def _prepend(block: str) -> Callable[[str], tuple[str, int]]:
    return lambda text: (block + text, block.count("\n"))


def _rename(text: str) -> tuple[str, int] | None:
    """Rename one assigned variable everywhere it appears as a name token (`model` -> `model_renamed`)."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return None
    names = {t.string for t in tokens if t.type == tokenize.NAME}
    target = next((n for n in ("inputs", "model", "cache", "out") if n in names), None)
    if target is None or f"{target}_renamed" in names or keyword.iskeyword(target):
        return None
    # Keyword arguments spelled like the variable (`inputs=inputs`) stay: only the variable is renamed.
    parts, last, depth = [], (1, 0), 0
    lines = text.splitlines(keepends=True)
    for i, t in enumerate(tokens):
        if t.type == tokenize.OP and t.string in "([{":
            depth += 1
        elif t.type == tokenize.OP and t.string in ")]}":
            depth -= 1
        nxt = tokens[i + 1].string if i + 1 < len(tokens) else ""
        prev = tokens[i - 1].string if i else ""
        keyword_argument = depth > 0 and nxt == "="
        if t.type == tokenize.NAME and t.string == target and not keyword_argument and prev != ".":
            parts.append((t.start, t.end))
    if not parts:
        return None
    out = []
    for (sl, sc), (el, ec) in parts:
        out.append(_slice(lines, last, (sl, sc)))
        out.append(f"{target}_renamed")
        last = (el, ec)
    out.append(_slice(lines, last, (len(lines) + 1, 0)))
    return "".join(out), 0


def _slice(lines: list[str], start: tuple[int, int], end: tuple[int, int]) -> str:
    (sl, sc), (el, ec) = start, end
    if sl == el:
        return lines[sl - 1][sc:ec] if sl - 1 < len(lines) else ""
    head = lines[sl - 1][sc:] if sl - 1 < len(lines) else ""
    return head + "".join(lines[sl:el - 1]) + (lines[el - 1][:ec] if el - 1 < len(lines) else "")


def _rewrite_operators(text: str, operators: tuple[str, ...], rewrite: Callable[[str], str]) -> str | None:
    """`text` with each operator token of `operators` replaced by `rewrite(operator)` (None when it does not
    tokenize, or nothing changes)."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return None
    lines = text.splitlines(keepends=True)
    out, last = [], (1, 0)
    for t in tokens:
        if t.type == tokenize.OP and t.string in operators:
            out.append(_slice(lines, last, t.start))
            out.append(rewrite(t.string))
            last = t.end
    out.append(_slice(lines, last, (len(lines) + 1, 0)))
    new = "".join(out)
    return new if new != text else None


def _respace(text: str) -> tuple[str, int] | None:
    """Spaces around every attribute dot and inside every call's brackets (`model . generate ( x = 1 )`):
    what the tokenizer skips. Lines stay where they were; columns move, so only lines are compared."""
    new = _rewrite_operators(text, (".", "(", ")", "=", ","), lambda op: f" {op} ")
    return None if new is None else (new, 0)


def _form_feeds(text: str) -> tuple[str, int] | None:
    """A form feed at the start of every line that starts a statement at the top level (PEP 8's page
    break; the tokenizer resets the indentation count on it, so top-level code stays top-level)."""
    lines = text.splitlines(keepends=True)
    if not lines:
        return None
    out = [("\f" + line) if line[:1].isalpha() else line for line in lines]
    return "".join(out), 0


def _continue_lines(text: str) -> tuple[str, int] | None:
    """A backslash continuation after every attribute dot (`model.\\` newline `generate(...)`): one logical
    line over several physical ones. Findings move down by a varying number of lines, so only the codes
    found are compared (a lost finding still shows)."""
    new = _rewrite_operators(text, (".",), lambda op: op + "\\\n")
    return None if new is None else (new, 0)


TRANSFORMS: dict[str, Callable[[str], tuple[str, int] | None]] = {
    "comment-with-quotes": _prepend("# a note with ''' and \"\"\" in it, and model.generate(x)\n"),
    "string-with-triple-quote": _prepend("DELIMITER = 'a \"\"\" b'\n"),
    "module-docstring": _prepend('"""Utilities.\n\n    >>> model.generate(x)\n"""\n'),
    "try-import-guard": _prepend("try:\n    import flash_attn\nexcept ImportError:\n    flash_attn = None\n"),
    "type-checking-guard": _prepend("from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    import torch\n"),
    "platform-guard": _prepend("import sys\n\nif sys.platform == 'win32':\n    SEP = '\\\\'\nelse:\n    SEP = '/'\n"),
    "trailing-blank-lines": lambda text: (text + "\n\n\n", 0),
    "crlf": lambda text: (text.replace("\n", "\r\n"), 0),
    "cr-only": lambda text: (text.replace("\n", "\r"), 0),
    "rename-variable": _rename,
    "spaces-around-dots-and-in-calls": _respace,
    "form-feeds": _form_feeds,
    "form-feed-before-an-import": _prepend("\f\n"),
    "line-continuations": _continue_lines,
}
# Transforms that move findings to other lines by varying amounts: compared by code only.
_CODES_ONLY = {"line-continuations"}
# Transforms that move columns: compared by line only.
_LINES_ONLY = {"rename-variable", "spaces-around-dots-and-in-calls", "form-feeds"}


def _findings(text: str, transform: str) -> list[tuple[object, ...]]:
    result = check_source(text, "example.py", context=Context(target=Target.of(TARGET)))
    assert result.error is None, result.error
    if transform in _CODES_ONLY:
        return sorted((f.code,) for f in result.findings)
    keep_columns = transform not in _LINES_ONLY
    return sorted((f.code, f.span.start.line, *((f.span.start.column,) if keep_columns else ()))
                  for f in result.findings)


SOURCES = _sources()


@pytest.mark.parametrize("transform", list(TRANSFORMS))
def test_meaningless_changes_keep_every_finding(transform: str) -> None:
    changed_files: list[str] = []
    checked = 0
    for name, text in SOURCES:
        base = _findings(text, transform)
        got = TRANSFORMS[transform](text)
        if got is None:
            continue
        new_text, shift = got
        expected = base if transform in _CODES_ONLY else [(code, line + shift, *rest) for code, line, *rest in base]
        checked += 1
        if _findings(new_text, transform) != expected:
            changed_files.append(name)
    assert checked > 20
    assert changed_files == [], f"{transform} changed the findings of {len(changed_files)}: {changed_files}"
