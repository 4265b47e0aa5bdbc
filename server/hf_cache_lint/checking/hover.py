"""Hover text: each finding's story then a pointer to its rule docs, or what a written `cache_implementation` builds.

An editor shows a diagnostic's message right above the hover on the diagnostic's range (VS Code, Neovim's float,
eglot's eldoc), so there the hover says only what the message does not: a story's quoted error that the message
already quotes word for word is left out (with the line that introduces it), and a finding without a story gets
only its docs pointer. On a related place (`cache_implementation=` set elsewhere) no message is shown beside the
hover, so the story is told whole.

Pure: findings, text, an engine position and the rules' names and summaries (`RuleDoc`s, passed in as data:
the engine imports no rule; checking/rule_docs.py builds them from the registry) in, Markdown out. The LSP
adapter only converts positions.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from hf_cache_lint.checking.completion import describe, written_value_at
from hf_cache_lint.engine.base.findings import Finding, Position, Span, docs_url
from hf_cache_lint.engine.environment.context import Context

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


def findings_at(findings: Sequence[Finding], pos: Position) -> list[tuple[Finding, Span, bool]]:
    """Findings whose range, or a related place in this file (e.g. `cache_implementation=`), holds `pos`:
    (finding, the span hovered, whether it is the finding's own range, where the editor shows its message)."""
    out = []
    for f in findings:
        if _contains(f.span, pos):
            out.append((f, f.span, True))
            continue
        for r in f.related:
            if r.path is None and _contains(r.span, pos):
                out.append((f, r.span, False))
                break
    return out


def _pointer(code: str, docs: RuleDocs) -> str:
    """A short pointer to a rule's docs: its name, summary line and a link (the full page is one click away)."""
    rule = docs.get(code)
    if rule is None:
        return ""
    return f"**[{rule.code} {rule.name}]({docs_url(rule.code)})**: {rule.summary}"


# A fenced block with the paragraph that introduces it when that is one line ending in ':' ("`generate()` raises
# before any forward pass (transformers 5.23.0):"), as every rule writes the error its version raises.
_QUOTED = re.compile(r"(?:(?<=\n\n)|^)(?:[^\n]*:\n\n)?```[^\n]*\n(?P<body>.*?)\n```[ \t]*(?:\n|$)", re.DOTALL)


def _squashed(text: str) -> str:
    return " ".join(text.split())


def without_quoted_message(story: str, message: str) -> str:
    """`story` without the quoted blocks (and their one-line lead-in) that `message` already holds word for
    word (whitespace aside): beside the diagnostic, the same 200-character error twice is noise."""
    said = _squashed(message)

    def drop(match: re.Match[str]) -> str:
        body = _squashed(match["body"])
        return "" if body and body in said else match[0]

    return re.sub(r"\n{3,}", "\n\n", _QUOTED.sub(drop, story)).strip()


def _story(finding: Finding, beside_message: bool = False) -> str:
    """The finding's story; `beside_message`: the editor shows the message next to it (the hover is on the
    finding's own range), so nothing the message says is repeated, and no story at all is just ''."""
    story = str(finding.story).strip()
    if beside_message:
        return without_quoted_message(story, finding.message)
    return story or f"**{finding.code}** {finding.message}"


def finding_markdown(finding: Finding, docs: RuleDocs, beside_message: bool = False) -> str:
    """The specific story (or the message when a rule wrote none and none is shown), then a pointer to the
    rule's docs."""
    return findings_markdown([finding], docs, [beside_message])


def findings_markdown(findings: Sequence[Finding], docs: RuleDocs, beside_message: Sequence[bool] = ()) -> str:
    """Several findings at one place: each story once, then one docs pointer per rule (not every full page).
    `beside_message[i]`: finding i's message is shown next to the hover (default: no)."""
    beside = list(beside_message) + [False] * (len(findings) - len(beside_message))
    stories = [s for s in dict.fromkeys(_story(f, b) for f, b in zip(findings, beside, strict=True)) if s]
    pointers = [p for p in dict.fromkeys(_pointer(f.code, docs).strip() for f in findings) if p]
    parts = ["\n\n---\n\n".join(stories)] if stories else []
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
        return HoverText(findings_markdown([f for f, _, _ in hits], docs, [own for *_, own in hits]), hits[0][1])
    written = written_value_at(text, pos)
    if written is not None:
        return HoverText(value_markdown(written.value, context), written.span)
    return None
