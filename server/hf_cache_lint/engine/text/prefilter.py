"""Cheap first: the words a text needs to hold a finding (the first stage of the one screen, engine/screen/screen.py,
which alone asks it).

A finding needs a call that reaches generate (`.generate`: direct, an alias, `partial`, `Thread`;
or `pipeline(`) or a `cache_implementation` value written in this file, in code: not in a comment, a
doctest line or a docstring. A file without one cannot hold a finding, however often it says
`past_key_values` or `def generate(` (transformers' own modeling code does, everywhere). Plain substring
searches only: a regex pass over every file cost more than the parses it saved (bench/bench_cli.py).
Known gaps, traded for a 1.7x faster `check` of the transformers tree: a pipeline object imported from
another module and called here with a cache; a checkpoint whose generation_config.json holds an invalid
value, loaded by a file that never generates.
"""

from __future__ import annotations

import re
from bisect import bisect_left

from hf_cache_lint.engine.environment.api_changes import (
    GENERATION_IMPORT_MODULES,
    REMOVED_CACHE_CLASSES,
    REMOVED_NAMES,
)
from hf_cache_lint.engine.environment.releases_models import MODEL_NAME_FAMILIES, REMOVED_GENERATION_EXPORTS
from hf_cache_lint.engine.text.text import GAP, contains, find_all, find_spaced

# The words of docs/architecture.md's contracts; a file with none of them is never parsed.
TRIGGERS = ("generate", "cache_implementation", "generation_config", "past_key_values", "cache_params",
            "cache=", "pipeline")
NEEDED = (".generate", "pipeline(", "cache_implementation")


def _in_code(text: str, pos: int, quotes: dict[str, list[int]]) -> bool:
    line = text[max(text.rfind("\n", 0, pos), text.rfind("\r", 0, pos)) + 1:pos].lstrip()  # CR-only files too
    if line.startswith(("#", ">>>", "...")) or ("#" in line and "'" not in line and '"' not in line):
        return False
    # Inside a triple-quoted string when an odd number of its delimiters come before (good enough:
    # a file that mixes both kinds inside one another is rare, and the error only costs a parse).
    return all(bisect_left(found, pos) % 2 == 0 for found in quotes.values())


def code_hits(text: str, limit: int) -> int:
    """How many NEEDED words stand in code (as far as this can tell), counting up to `limit`."""
    if not any(contains(text, t) for t in TRIGGERS):
        return 0
    hits = sorted(p for w in NEEDED if contains(text, w) for p in find_all(text, w))
    if not hits:
        hits = _spaced_hits(text)  # only when the plain words are absent: rare, and a Python loop
        if not hits:
            return 0
    quotes = _triple_quotes(text)
    found = 0
    for p in hits:
        if _in_code(text, p, quotes):
            found += 1
            if found >= limit:
                return found
    return found or int(_settled_in_code(text, hits, quotes))


def _spaced_hits(text: str) -> list[int]:
    """NEEDED's calls written with what the tokenizer skips inside them: `model . generate(`, `pipeline (`."""
    return sorted(find_spaced(text, "generate", before=".") + find_spaced(text, "pipeline", after="("))


def _triple_quotes(text: str) -> dict[str, list[int]]:
    """Where each triple-quote delimiter stands: what `_in_code` counts to tell a docstring from code."""
    return {q: find_all(text, q) for q in ('"""', "'''")}


# After the quick test said "only in comments and strings": it miscounts when a triple quote sits inside an
# ordinary string or a comment (`s = 'a """ b'`), which then hides the whole rest of the file; so before
# skipping, settle it with an exact scan of the strings and comments (a C-speed regex).
def _settled_in_code(text: str, hits: list[int], quotes: dict[str, list[int]]) -> bool:
    return bool(any(quotes.values()) and _any_in_code_exact(text, hits))


def might_matter(text: str) -> bool:
    return code_hits(text, 1) > 0


# Comments and string literals as the tokenizer reads them (a prefix does not change a literal's extent); an
# unterminated one runs to the end of its line (or of the file, for a triple quote).
# Each literal written as an unrolled loop (a run of ordinary characters in one step): the same spans as
# `'''(?:\\.|[^\\])*?(?:'''|\Z)` and `'(?:\\.|[^'\\\r\n])*(?:'|$)` gave, at twice the speed on transformers'
# docstrings (tests/engine/test_text_scans.py compares them).
_NOT_CODE = re.compile(
    r"#[^\r\n]*"
    r"|'''[^'\\]*(?:(?:\\.|'(?!''))[^'\\]*)*(?:'''|\Z)"
    r'|"""[^"\\]*(?:(?:\\.|"(?!""))[^"\\]*)*(?:"""|\Z)'
    r"|'[^'\\\r\n]*(?:\\.[^'\\\r\n]*)*(?:'|$)"
    r'|"[^"\\\r\n]*(?:\\.[^"\\\r\n]*)*(?:"|$)',
    re.MULTILINE | re.DOTALL)


def _any_in_code_exact(text: str, hits: list[int]) -> bool:
    """Whether a position of `hits` stands outside every comment and string literal: one pass over those in
    order, stopping at the first hit in code or after the last hit (not listing every literal of the file)."""
    todo = sorted(hits)
    k = 0
    for m in _NOT_CODE.finditer(text):
        start, end = m.span()
        if todo[k] < start:
            return True  # before this literal and after the previous one: code
        while todo[k] < end:
            k += 1
            if k == len(todo):
                return False
    return True  # after the last literal


_IMPORT_FROM = re.compile(
    r"(?:^|(?<=\r))[ \t\f]*from[ \t\f]+transformers(?:{d}cache_utils|{d}models{d}(?:mamba{d}modeling_mamba|jamba{d}modeling_jamba))?[ \t\f]+"
    r"import\b(?:[^\n(]*\([^)]*\)|[^\n]*)".format(d=GAP + r"\." + GAP),
    re.MULTILINE)
# `GenerationMixin.<name> = ...` (rules/hfc007_removed_cache_api/patched_helpers.py). It opens with `\b`: search it
# with `matches_from(MIXIN_PATCH, text, ("GenerationMixin",))` (its `search` tries every character: ~0.2 s over
# transformers' tree, where most model modules name GenerationMixin as a base).
MIXIN_PATCH = re.compile(r"\bGenerationMixin" + GAP + r"\." + GAP + r"\w+" + GAP + r"=(?!=)")
_ATTRIBUTE = re.compile(r"\." + GAP + "(?:" + "|".join(REMOVED_CACHE_CLASSES) + r")\b")


# `from transformers.generation[.utils|.candidate_generator] import ...`: any name there may be one the target lost
# (the release table holds them all: Target.removed_generation_name).
_GENERATION_IMPORT = re.compile(
    r"(?:^|(?<=\r))[ \t\f]*from[ \t\f]+(?:{})[ \t\f]+import\b".format(
        "|".join(GAP.join(re.escape(part) for part in re.split(r"(\.)", m)) for m in GENERATION_IMPORT_MODULES)),
    re.MULTILINE)
# A tabled model module named (`modeling_llama`, imported or read: removed_model_names.py reads which names).
_MODEL_MODULE = re.compile(r"\bmodeling_(?:{})\b".format("|".join(MODEL_NAME_FAMILIES)))
# The removed top-level generation exports (`BeamScorer`), first by a word each of them holds (a test keeps every
# name covered), then by name, where an import from transformers or an attribute of it can say it.
EXPORT_STEMS = ("Scorer", "Constraint", "Logits")
_REMOVED_EXPORT = re.compile(r"\b(?:{})\b".format("|".join(REMOVED_GENERATION_EXPORTS)))
_REMOVED_CLASS_NAMES = tuple(n for n in REMOVED_NAMES if n.endswith("Cache"))
_OTHER_REMOVED_NAMES = tuple(n for n in REMOVED_NAMES if not n.endswith("Cache"))  # `QuantizedCacheConfig`


def _names_a_removed_class(text: str) -> bool:
    """`any(name in text for name in REMOVED_NAMES)`, from where "Cache" stands: the removed classes' names end in
    it (one scan of the text, then a look at each "Cache", instead of a scan per name); the few others
    (`QuantizedCacheConfig`) are looked for as they are."""
    i = text.find("Cache")
    while i >= 0:
        end = i + len("Cache")
        if text.endswith(_REMOVED_CLASS_NAMES, 0, end):  # text[:end] ends with one of them: one C call
            return True
        i = text.find("Cache", end)
    return any(contains(text, name) for name in _OTHER_REMOVED_NAMES)


def might_construct(text: str) -> bool:
    """Can the text hold a constructor call of a transformers cache class (engine/constructor_calls.py), also a
    subclass's call of its base's (`super().__init__(...)`), or of a model module's rotary embedding?"""
    return contains(text, "transformers") and (contains(text, "Cache(") or bool(find_spaced(text, "Cache", after="(")) or
                                       (contains(text, "__init__") and contains(text, "Cache")) or contains(text, "RotaryEmbedding(")
                                       or bool(find_spaced(text, "RotaryEmbedding", after="(")))


def matches_from(pattern: re.Pattern[str], text: str, words: tuple[str, ...], indent: bool = False) -> bool:
    """`pattern.search(text) is not None`, for a pattern each of whose matches starts where one of `words` starts
    (with `indent`: at the start of a line, `^` or after a CR, then blanks and tabs and form feeds up to the word):
    `pattern.match` tried only there. A pattern that opens with `\\b` or a line start has no literal prefix for the
    regex engine to skip to, so `search` tries it at every character of the text (over transformers' tree, the
    three patterns below cost 0.25-0.45 s each; str.find runs at memory speed). `match(text, pos)` sees the text
    before `pos` as `search` does (`\\b`, `^` and look-behinds read the real previous character)."""
    for word in words:
        i = text.find(word)
        while i >= 0:
            start = i
            if indent:
                while start > 0 and text[start - 1] in " \t\f":
                    start -= 1
                if start > 0 and text[start - 1] not in "\n\r":  # `^` (after a LF) or `(?<=\r)`: else no match here
                    i = text.find(word, i + 1)
                    continue
            if pattern.match(text, start) is not None:
                return True
            i = text.find(word, i + 1)
    return False


def might_use_removed_api(text: str) -> bool:
    """Can the text hold a use of a removed cache API (HFC007, which needs no generate call)?"""
    if contains(text, "_legacy_cache(") or find_spaced(text, "_legacy_cache", after="(") or might_construct(text):
        return True
    if contains(text, "generation") and matches_from(_GENERATION_IMPORT, text, ("from",), indent=True):
        return True
    if matches_from(MIXIN_PATCH, text, ("GenerationMixin",)):
        return True  # a function patched onto it under a name the target's generate never calls (HFC007)
    if contains(text, "modeling_") and matches_from(_MODEL_MODULE, text, ("modeling_",)):
        return True  # a name a tabled model module lost may be imported or read (removed_model_names.py)
    if any(contains(text, stem) for stem in EXPORT_STEMS) and matches_from(_REMOVED_EXPORT, text, REMOVED_GENERATION_EXPORTS):
        return True
    if not _names_a_removed_class(text):
        return False
    if any(name in m[0] for m in _IMPORT_FROM.finditer(text) for name in REMOVED_NAMES):
        return True
    return _ATTRIBUTE.search(text) is not None

