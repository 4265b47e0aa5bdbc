"""The prefilter's and the gate's text scans that look for a word with str.find and match a regex where it
stands give what the one regex searched over the whole text gave (they replaced it for speed): seeded random
texts over the characters that matter, and real code."""

from __future__ import annotations

import random
import re
import sys
from bisect import bisect_left
from pathlib import Path

from hf_cache_lint.engine.screen import gate, library_values
from hf_cache_lint.engine.text import prefilter
from hf_cache_lint.engine.text import text as text_module

REPO = Path(__file__).resolve().parents[2]

_FROM = re.compile(r"(?<![\w.])from[ \t\f]+(\.*)[ \t\f]*([\w.]*)[ \t\f]+import[ \t\f]+(\([^)]*\)|(?:[^\n#;\\]|\\\r?\n)*)")
_DROPS = re.compile(
    r"\b(?:while|assert)[\s(]*(?:not\b[\s(]*)*"
    r"(?:True\b|False\b|None\b|\.\.\.|[-+~]?\.?\d|[bBrRuUfF]{0,2}[\"'\[{]|\(\s*\))")


_NOT_CODE_BEFORE = re.compile(
    r"#[^\r\n]*"
    r"|'''(?:\\.|[^\\])*?(?:'''|\Z)"
    r'|"""(?:\\.|[^\\])*?(?:"""|\Z)'
    r"|'(?:\\.|[^'\\\r\n])*(?:'|$)"
    r'|"(?:\\.|[^"\\\r\n])*(?:"|$)',
    re.MULTILINE | re.DOTALL)


def _exact_before(text: str, hits: list[int]) -> bool:
    spans = [(m.start(), m.end()) for m in _NOT_CODE_BEFORE.finditer(text)]
    starts = [a for a, _ in spans]
    return any((i := bisect_left(starts, p + 1) - 1) < 0 or not spans[i][0] <= p < spans[i][1] for p in hits)


def _texts(pieces: list[str], n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 14))) for _ in range(n)]


def _real() -> list[str]:
    files = sorted((REPO / "server" / "hf_cache_lint").rglob("*.py")) + sorted((REPO / "examples").rglob("*.py"))
    return [f.read_text(encoding="utf-8") for f in files]


def test_the_exact_in_code_scan_is_the_one_over_every_literal() -> None:
    rng = random.Random(2)
    pieces = ['"', '"""', "'", "'''", "#", "\n", "\\", "x", " ", "\r", '""', "''"]
    for text in _texts(pieces, 20000, 2) + _real():
        assert [m.span() for m in prefilter._NOT_CODE.finditer(text)] == \
            [m.span() for m in _NOT_CODE_BEFORE.finditer(text)], repr(text)
        hits = sorted(rng.sample(range(len(text)), min(3, len(text))))
        assert prefilter._any_in_code_exact(text, hits) == _exact_before(text, hits), (text, hits)


def test_from_imports_and_dropped_code_are_the_regexes() -> None:
    pieces = ["from", " ", "\t", ".", "x", "import", "(", ")", "\n", "#", ";", "\\", "a", "while", "assert", "True",
              "1", "'", "_", "é"]
    for text in _texts(pieces, 20000, 3) + _real():
        assert [m.groups() for m in library_values.from_imports(text)] == [m.groups() for m in _FROM.finditer(text)]
        assert [m.span() for m in library_values.from_imports(text)] == [m.span() for m in _FROM.finditer(text)]
        assert gate._drops_code(text) == (_DROPS.search(text) is not None), repr(text)


def test_the_removed_class_scan_is_a_scan_per_name() -> None:
    from hf_cache_lint.engine.environment.api_changes import REMOVED_NAMES

    pieces = ["Cache", "Hybrid", "Mamba", "Chunked", "Sink", "x", "Offloaded", "Static", " ", "HQQQuantized",
              "Config", "Quantized", "Attention", "Dynamic"]
    for text in _texts(pieces, 20000, 4) + _real():
        assert prefilter._names_a_removed_class(text) == any(name in text for name in REMOVED_NAMES)


def test_the_characters_whose_lowercase_holds_ascii_are_the_listed_ones() -> None:
    found = [chr(c) for c in range(128, sys.maxunicode + 1)
             if not 0xD800 <= c <= 0xDFFF and any(ord(x) < 128 for x in chr(c).lower())]
    assert tuple(found) == text_module.LOWER_TO_ASCII


def test_says_is_in_the_lowered_text() -> None:
    # Seeded texts over the words' letters in both cases, non-ASCII letters (also those lowering to ASCII, and ones
    # that make the string 2 or 4 bytes a character) and a lone surrogate (decoded with surrogateescape).
    pieces = ["n", "N", "o", "O", "q", "Q", "a", "A", "noqa", "NoQA", "hf-", "CACHE", "-lint", "Hf-Cache-Lint", "#",
              " ", "\n", "é", "\u0130", "\u212a", "\u0131", "\U0001f449", "\u017f", "\udc80", "\u00df", "\ufb00"]
    for i, text in enumerate(_texts(pieces, 20000, 31) + _real()):
        for word in ("noqa", "hf-cache-lint", "i", "k", "a"):
            assert text_module.says(text, word) == (word in text.lower()), (i, repr(text), word)


def test_contains_is_in_over_random_edits(monkeypatch: object) -> None:
    # Every text at once (the length floor off), over seeded edit sequences: inserts, deletions and replacements
    # anywhere (at either end too), now and then an unrelated text, words that overlap themselves ("aa", "aba") and
    # ones longer than an edit; each word asked of a version or not, so answers are carried, or found afresh.
    import pytest

    assert isinstance(monkeypatch, pytest.MonkeyPatch)
    monkeypatch.setattr(text_module, "_CONTAINS_MIN", 0)
    monkeypatch.setattr(text_module, "_ENDS", 0)  # carried from every last text (short ones share no 64 characters)
    monkeypatch.setattr(text_module, "_LAST_VERSION", None)
    rng = random.Random(3131)
    alphabet = ["a", "b", "ab", "ba", "\n", " ", "x", "\U0001f449", "abab"]
    words = ["a", "b", "aa", "ab", "aba", "abab", "bab", "x", "xa", "\n", "a\nb", "aaaa", "\U0001f449a", "zz"]
    for _ in range(300):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        for _ in range(30):
            roll = rng.random()
            if roll < 0.05:
                text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
            else:
                a = rng.randint(0, len(text))
                b = min(len(text), a + rng.choice([0, 0, 1, 2, 5]))
                text = text[:a] + "".join(rng.choice(alphabet) for _ in range(rng.choice([0, 1, 1, 2, 4]))) + text[b:]
            text = "".join(text)  # a new object each version, as the editor sends
            for word in rng.sample(words, rng.randint(0, len(words))):
                assert text_module.contains(text, word) == (word in text), (repr(text), word)


def test_contains_carries_real_code_over_edits() -> None:
    # Above the floor as it ships: a large real module, a character typed and deleted again at spots throughout,
    # a line added, every fact word of the prefilter asked each time.
    text = "\n".join(_real())
    assert len(text) >= text_module._CONTAINS_MIN
    words = ["transformers", "Cache(", "version", "__version__", "self_attn", "setattr", "register_forward",
             "weights_only", "_legacy_cache(", "zzz_nowhere", "import", "def ", "\n\n\n"]
    rng = random.Random(31)
    for _ in range(60):
        at = rng.randint(0, len(text))
        text = text[:at] + rng.choice(["x", "Cache(", "\n", "import ", "zzz_nowhere"]) + text[at:]
        for word in words:
            assert text_module.contains(text, word) == (word in text), word
        cut = rng.randint(0, len(text) - 10)
        text = text[:cut] + text[cut + rng.randint(0, 8):]
        for word in words:
            assert text_module.contains(text, word) == (word in text), word


def test_kept_lines_are_parsos_lines() -> None:
    from parso.utils import split_lines

    pieces = ["a", "\n", "\f", "\x0b", "\u2028", "\x85", " ", "\n\n", "é", "\U0001f449"]
    for text in _texts(pieces, 5000, 7) + _real():
        assert text_module.kept_lines(text) == split_lines(text, keepends=True), repr(text)


def test_says_is_in_the_lowered_text_over_random_edits(monkeypatch: object) -> None:
    # `says` carried over seeded edit sequences (the length floor off): cased letters, the characters whose lowercase
    # holds ASCII, a 4-byte character, line breaks; each word asked of some versions only.
    import pytest

    assert isinstance(monkeypatch, pytest.MonkeyPatch)
    monkeypatch.setattr(text_module, "_CONTAINS_MIN", 0)
    monkeypatch.setattr(text_module, "_ENDS", 0)  # carried from every last text (short ones share no 64 characters)
    monkeypatch.setattr(text_module, "_LAST_VERSION", None)
    rng = random.Random(3132)
    every = ["n", "N", "o", "O", "q", "Q", "a", "A", "noqa", "NoQA", "\n", " ", "\u0130", "\u212a", "\U0001f449",
             "i", "k", "\u03a3", "x"]
    words = ["noqa", "i", "k", "a", "qa", "xk", "nq"]
    plain = [c for c in every if c not in text_module.LOWER_TO_ASCII]  # lowered as UTF-8 bytes, where not ASCII
    for n in range(300):
        alphabet = plain if n % 2 else every
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        for _ in range(30):
            if rng.random() < 0.05:
                text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
            else:
                a = rng.randint(0, len(text))
                b = min(len(text), a + rng.choice([0, 0, 1, 2, 5]))
                text = text[:a] + "".join(rng.choice(alphabet) for _ in range(rng.choice([0, 1, 1, 2, 4]))) + text[b:]
            for word in rng.sample(words, rng.randint(0, len(words))):
                assert text_module.says(text, word) == (word in text.lower()), (repr(text), word)


def _call_regex(word: str) -> re.Pattern[str]:
    return re.compile(r"\b" + re.escape(word) + r"[\s\\]*\(")


def test_has_call_is_the_regex_over_random_edits(monkeypatch: object) -> None:
    # `has_call` carried over seeded edit sequences (the length floor off), against the regex it replaced: word
    # characters before the word (ASCII, `_`, a non-ASCII letter and digit), blanks of every kind (Unicode's too),
    # backslashes and line breaks between the word and `(`, a 4-byte character; edits inside a call, at either end,
    # in the blanks; each word asked of some versions only, now and then an unrelated text.
    import pytest

    assert isinstance(monkeypatch, pytest.MonkeyPatch)
    monkeypatch.setattr(text_module, "_CONTAINS_MIN", 0)
    monkeypatch.setattr(text_module, "_ENDS", 0)  # carried from every last text (short ones share no 64 characters)
    monkeypatch.setattr(text_module, "_LAST_VERSION", None)
    rng = random.Random(3133)
    alphabet = ["save", "load", "sa", "ve", "(", "(", " ", "\n", "\n", "\n", "\\", "\t", "\u3000", "x", "_", "é",
                "\u0663", "\U0001f449", "save (", "ssave", "save\n", "\n("]
    words = ["save", "load", "s", "_x"]
    regexes = {w: _call_regex(w) for w in words}
    for _ in range(600):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        for _ in range(30):
            if rng.random() < 0.05:
                text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
            else:
                a = rng.randint(0, len(text))
                b = min(len(text), a + rng.choice([0, 0, 1, 2, 5]))
                text = text[:a] + "".join(rng.choice(alphabet) for _ in range(rng.choice([0, 1, 1, 2, 4]))) + text[b:]
            for word in rng.sample(words, rng.randint(0, len(words))):
                assert text_module.has_call(text, word) == (regexes[word].search(text) is not None), (repr(text), word)


def test_has_call_carries_real_code_over_edits() -> None:
    # Above the floor as it ships: a large real module, calls typed, broken and spaced at spots throughout.
    text = "\n".join(_real())
    words = ["save", "load", "generate", "zzz_nowhere", "print"]
    regexes = {w: _call_regex(w) for w in words}
    rng = random.Random(33)
    for _ in range(60):
        at = rng.randint(0, len(text))
        text = text[:at] + rng.choice(["x", "save(", "load \\\n (", "\n", "zzz_nowhere (", " "]) + text[at:]
        for word in words:
            assert text_module.has_call(text, word) == (regexes[word].search(text) is not None), word
        cut = rng.randint(0, len(text) - 10)
        text = text[:cut] + text[cut + rng.randint(0, 8):]
        for word in words:
            assert text_module.has_call(text, word) == (regexes[word].search(text) is not None), word
