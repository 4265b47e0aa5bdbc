"""Render docs/rules/CODE.md from the rule modules (docs, then the examples)."""

from __future__ import annotations

from pathlib import Path

from hf_cache_lint.rules import ALL_RULES
from hf_cache_lint.rules.base import CHECKED_VERSIONS, Rule


def render(rule: Rule) -> str:
    parts = ["<!-- generated from server/hf_cache_lint/rules by scripts/gen_docs.py; do not edit -->\n",
             rule.full_docs(), "\n## Examples checked against real transformers\n"]
    for title, examples in (("Flagged", rule.invalid), ("Not flagged", rule.valid)):
        parts.append(f"\n### {title}\n")
        for ex in examples:
            versions = "all checked versions" if tuple(ex.versions) == CHECKED_VERSIONS else ", ".join(ex.versions)
            parts.append(f"\n{ex.note or 'Example'} ({versions}):\n\n```python\n{ex.code.rstrip()}\n```\n")
    return "".join(parts)


def write_all(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for rule in ALL_RULES:
        path = folder / f"{rule.code}.md"
        path.write_text(render(rule), encoding="utf-8")
        out.append(path)
    return out
