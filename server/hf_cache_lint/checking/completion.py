"""Completion of `cache_implementation` values, and what each value builds (docs/facts.md section 3).

Pure: source text and an engine position in, values out. Works on the text of the current line
only, because the line being typed is usually not valid Python yet (`cache_implementation="st`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hf_cache_lint.engine.base.findings import Position, Span
from hf_cache_lint.engine.environment.release_version import V
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.engine.text.text import line_starts

# What a value builds in 5.x (generation/configuration_utils.py:47-58 of 5.23/5.24).
_BUILDS_5: dict[str, str] = {
    "static": "builds a `StaticCache`, pre-allocated to the maximum length (fixed shapes, `torch.compile` friendly)",
    "offloaded_static": "builds a `StaticCache` whose layers are offloaded to the CPU",
    "dynamic": "builds a `DynamicCache` that grows with every generated token (the default)",
    "offloaded": "builds a `DynamicCache` whose layers are offloaded to the CPU between uses",
    "quantized": "builds a `QuantizedCache` (needs optimum-quanto; decoder-only models with a dynamic cache)",
    "paged": "paged attention: as a `generate()` keyword it switches to continuous batching; "
    "set on a generation config it conflicts with a passed cache like any other value",
}
_DEPRECATED_5 = "deprecated: logs a deprecation warning and builds a `StaticCache`"
_HYBRID_5 = "deprecated: reset to None by `generate()` in 5.x, so no cache is built from it and it never conflicts"

# 4.x: the same core values, the hybrid family as its own classes (unverified; 4.57.6 builds a StaticCache
# from every one of them and logs a deprecation, so `describe` says that from 4.57 on).
_BUILDS_4: dict[str, str] = {
    **{k: v for k, v in _BUILDS_5.items() if k != "paged"},
    "dynamic_full": "builds a `DynamicCache` with full-attention layers only (sliding windows ignored)",
    "sliding_window": "builds a `SlidingWindowCache` (static, for sliding-window attention models)",
    "hybrid": "builds a `HybridCache` (static; sliding-window and global layers, Gemma 2/3)",
    "hybrid_chunked": "builds a `HybridChunkedCache` (static; chunked attention layers, Llama 4)",
    "offloaded_hybrid": "builds a hybrid static cache whose layers are offloaded to the CPU",
    "offloaded_hybrid_chunked": "builds a chunked hybrid static cache whose layers are offloaded to the CPU",
    "mamba": "builds a `MambaCache` (state-space models; valid before 4.56)",
}


def describe(value: str, target: Target) -> str | None:
    """One line saying what `cache_implementation=value` builds for `target`; None when invalid there."""
    if value not in target.valid_cache_implementations:
        return None
    if value in target.deprecated_cache_implementations:
        return _HYBRID_5 if value == "hybrid" and target.hybrid_is_reset else _DEPRECATED_5
    table = _BUILDS_5 if target.version >= V("5.0") else _BUILDS_4
    return table.get(value, "accepted by this version")


@dataclass(frozen=True)
class ValueCompletion:
    """One completion item: `insert` replaces `replace` (a span on one line)."""

    value: str
    insert: str
    description: str
    deprecated: bool
    sort_key: str


@dataclass(frozen=True)
class Completions:
    items: tuple[ValueCompletion, ...]
    replace: Span


# Where a value of cache_implementation is being written: a call keyword or attribute assignment
# (`cache_implementation=`, `x.cache_implementation = `, also `==`), or a dict key
# (`"cache_implementation": `). Then either an open string with a partial value, or nothing yet.
_KEY = r"""(?:\bcache_implementation\s*==?\s*|(?P<kq>["'])cache_implementation(?P=kq)\s*:\s*)"""
_OPEN_STRING = re.compile(_KEY + r"""(?P<q>["'])(?P<prefix>\w*)$""")
_BARE = re.compile(_KEY + r"""(?P<prefix>\w*)$""")
_WORD = re.compile(r"\w*")


def _line(text: str, line: int) -> str:
    starts = line_starts(text)
    if not 1 <= line <= len(starts):
        return ""
    end = starts[line] if line < len(starts) else len(text)
    return text[starts[line - 1]:end].rstrip("\r\n")


def complete(text: str, position: Position, target: Target) -> Completions | None:
    """The values valid for `target` when the cursor is where a cache_implementation value goes."""
    line = _line(text, position.line)
    before, after = line[:position.column], line[position.column:]
    word_end = position.column + len(_WORD.match(after).group(0))  # type: ignore[union-attr]
    m = _OPEN_STRING.search(before)
    if m:
        quote = m.group("q")
        close = "" if line[word_end:word_end + 1] == quote else quote
        start = position.column - len(m.group("prefix"))
        inserts = {v: v + close for v in target.valid_cache_implementations}
    else:
        m = _BARE.search(before)
        if not m:
            return None
        start = position.column - len(m.group("prefix"))
        inserts = {v: f'"{v}"' for v in target.valid_cache_implementations}
    deprecated = set(target.deprecated_cache_implementations)
    items = tuple(
        ValueCompletion(
            value=v, insert=inserts[v], description=describe(v, target) or "",
            deprecated=v in deprecated, sort_key=f"{int(v in deprecated)}{i:02d}",
        )
        for i, v in enumerate(target.valid_cache_implementations)
    )
    return Completions(items, Span.of(position.line, start, position.line, word_end))


# A written value: `cache_implementation="static"`, `.cache_implementation = 'x'`, `"cache_implementation": "x"`.
_WRITTEN = re.compile(r"""\bcache_implementation["']?\s*(?:==?|:)\s*(?P<q>["'])(?P<value>[^"'\n]*)(?P=q)""")


@dataclass(frozen=True)
class WrittenValue:
    """A string value written for cache_implementation; `span` runs from the key to the closing quote."""

    value: str
    span: Span


def written_value_at(text: str, position: Position) -> WrittenValue | None:
    """The `cache_implementation` key/keyword and string value under the cursor, if any."""
    line = _line(text, position.line)
    for m in _WRITTEN.finditer(line):
        if m.start() <= position.column <= m.end():
            return WrittenValue(m.group("value"), Span.of(position.line, m.start(), position.line, m.end()))
    return None
