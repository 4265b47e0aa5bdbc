"""Hover text: each finding's story then a pointer to its rule docs, or what a written `cache_implementation` builds.

Pure: findings, text, an engine position and the rules' names and summaries (`RuleDoc`s, passed in as data:
the engine imports no rule; checking/rule_docs.py builds them from the registry) in, Markdown out. The LSP
adapter only converts positions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from hf_cache_lint.engine.completion import describe, written_value_at
from hf_cache_lint.engine.context import Context
from hf_cache_lint.engine.findings import Finding, Position, Span, docs_url

_SOURCES = {
    "environment": "installed in the selected interpreter",
    "setting": "from the `transformersVersion` setting",
    "default": "the newest known; no interpreter with transformers selected",
    "requirement": "the project's declared requirement",
}


@dataclass(frozen=True)
class RuleDoc:
    """What a hover says of a rule: its code, name and one-line summary (the full page is one click away)."""

    code: str
    name: str
    summary: str


RuleDocs = Mapping[str, RuleDoc]
"""Rule code -> its RuleDoc; a code missing from it gets no docs pointer."""


@dataclass(frozen=True)
class HoverText:
    markdown: str
    span: Span


def _contains(span: Span, pos: Position) -> bool:
    # The end is inclusive so a hover just after the last character (where editors put it) still counts.
    return span.start <= pos <= span.end


def findings_at(findings: Sequence[Finding], pos: Position) -> list[tuple[Finding, Span]]:
    """Findings whose range, or a related place in this file (e.g. `cache_implementation=`), holds `pos`."""
    out = []
    for f in findings:
        if _contains(f.span, pos):
            out.append((f, f.span))
            continue
        for r in f.related:
            if r.path is None and _contains(r.span, pos):
                out.append((f, r.span))
                break
    return out


def _pointer(code: str, docs: RuleDocs) -> str:
    """A short pointer to a rule's docs: its name, summary line and a link (the full page is one click away)."""
    rule = docs.get(code)
    if rule is None:
        return ""
    return f"**[{rule.code} {rule.name}]({docs_url(rule.code)})**: {rule.summary}"


def _story(finding: Finding) -> str:
    return str(finding.story).strip() or f"**{finding.code}** {finding.message}"


def finding_markdown(finding: Finding, docs: RuleDocs) -> str:
    """The specific story (or the message when a rule wrote none), then a pointer to the rule's docs."""
    pointer = _pointer(finding.code, docs).strip()
    return f"{_story(finding)}\n\n---\n\n{pointer}" if pointer else _story(finding)


def findings_markdown(findings: Sequence[Finding], docs: RuleDocs) -> str:
    """Several findings at one place: each story once, then one docs pointer per rule (not every full page)."""
    stories = list(dict.fromkeys(_story(f) for f in findings))
    pointers = [p for p in dict.fromkeys(_pointer(f.code, docs).strip() for f in findings) if p]
    parts = ["\n\n---\n\n".join(stories)]
    if pointers:
        parts.append("\n\n".join(pointers))
    return "\n\n---\n\n".join(parts)


def value_markdown(value: str, context: Context) -> str:
    """What `cache_implementation=value` does for the target version, and what meets it at run time."""
    target = context.target
    origin = context.plan.origin if context.plan is not None and context.plan.primary == target else None
    where = f"transformers {target} ({origin or _SOURCES.get(context.version_source, context.version_source)})"
    head = f'**`cache_implementation="{value}"`** for {where}'
    described = describe(value, target)
    if described is None:
        return (f"{head}: not a valid value. `generate()` raises:\n\n"
                f"```\n{target.invalid_cache_implementation_message(value)}\n```")
    text = f"{head}: {described}."
    if value == "hybrid" and target.hybrid_is_reset:
        return text
    if target.has_conflict_error:
        message = target.conflict_message(target.cache_keyword(None), None)
        text += ("\n\nPassing a cache object (`" + target.cache_keyword(None) + "=`) to the same `generate()` "
                 f"call while this is set raises:\n\n```\n{message}\n```")
    return text


def hover(
    findings: Sequence[Finding], text: str, pos: Position, context: Context, docs: RuleDocs,
) -> HoverText | None:
    """Hover for `pos`: the findings there first; else a written cache_implementation value explained."""
    hits = findings_at(findings, pos)
    if hits:
        return HoverText(findings_markdown([f for f, _ in hits], docs), hits[0][1])
    written = written_value_at(text, pos)
    if written is not None:
        return HoverText(value_markdown(written.value, context), written.span)
    return None
