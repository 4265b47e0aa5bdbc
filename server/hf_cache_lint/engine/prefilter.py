"""Cheap first: does this text need a parse at all?

A finding needs a call that reaches generate (a `generate` attribute or name, a `pipeline`) or a
`cache_implementation` value written somewhere (`GenerationConfig`, `generation_config`, the keyword
itself). A file whose code (comments and docstrings removed) names none of these cannot hold one, however
often it says `past_key_values` (transformers' own modeling code says it everywhere). Known gap: a
pipeline object imported from another module and called here with a cache is not parsed.
"""

from __future__ import annotations

import re

# The words of DESIGN.md's contract; a file with none of them is never parsed.
TRIGGERS = ("generate", "cache_implementation", "generation_config", "past_key_values", "cache_params",
            "cache=", "pipeline")
# Strings first, so a `#` or `'''` inside a short string is not taken for a comment or a docstring.
_TOKENS = re.compile(r'''("""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')|#[^\n]*''')
_NEEDED = re.compile(r"\bgenerate\b|\bpipeline\b|GenerationConfig|generation_config|cache_implementation")


def code_only(text: str) -> str:
    """The text without comments and triple-quoted strings (short strings stay: dict keys matter)."""

    def keep(m: re.Match[str]) -> str:
        s = m.group(1)
        return s if s and not s.startswith(('"""', "'''")) else ""

    return _TOKENS.sub(keep, text)


def might_matter(text: str) -> bool:
    if not any(t in text for t in TRIGGERS) or not _NEEDED.search(text):
        return False
    return bool(_NEEDED.search(code_only(text)))
