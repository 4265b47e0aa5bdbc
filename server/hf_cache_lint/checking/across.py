"""One report for a range of transformers releases: the findings of each checked release merged per place.

A finding is the same problem at every release where its code and span meet (the message names the version,
so it is not compared). The merged finding is the newest failing release's, with the releases on which it
fails named in its message, and only the fixes that are the same at each of them: a fix that renames to a
keyword one admitted release lacks (`cache=` before 5.24) is dropped, one that works on all of them kept.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import replace
from typing import TypeVar

from hf_cache_lint.engine.base.findings import Finding, Fix
from hf_cache_lint.engine.environment.target import Target

Place = TypeVar("Place", bound=Hashable)


def key(finding: Finding) -> tuple[str, object]:
    return finding.code, finding.span


def runs(found: Sequence[Target], checked: Sequence[Target]) -> str:
    """`4.45.0 to 4.57.6, 5.24.0`: the checked releases a finding is seen on, as runs of consecutive ones."""
    index = {t: i for i, t in enumerate(checked)}
    spans: list[list[Target]] = []
    for t in sorted(found, key=lambda t: index[t]):
        if spans and index[spans[-1][-1]] == index[t] - 1:
            spans[-1].append(t)
        else:
            spans.append([t])
    return ", ".join(str(s[0]) if len(s) == 1 else f"{s[0]} to {s[-1]}" for s in spans)


def range_note(found: Sequence[Target], checked: Sequence[Target], admits: str) -> str:
    """What the message says of the releases a finding fails on, within the ones `admits` names."""
    if len(found) == len(checked):
        return f" [on every release {admits} admits: checked at {runs(found, checked)}]"
    return f" [on transformers {runs(found, checked)}, which {admits} admits; not on {runs(_rest(found, checked), checked)}]"


def _rest(found: Sequence[Target], checked: Sequence[Target]) -> list[Target]:
    return [t for t in checked if t not in found]


def _portable(fixes_per_release: Sequence[tuple[Fix, ...]]) -> tuple[Fix, ...]:
    """The fixes offered, with the same edits, at every release; the first such is preferred."""
    first, *others = fixes_per_release
    kept = [f for f in first if all(any(g.edits == f.edits for g in other) for other in others)]
    if not kept:
        return ()
    has_preferred = any(f.preferred for f in kept if not f.title.startswith("Ignore"))
    out: list[Fix] = []
    for f in kept:
        if not has_preferred and not f.title.startswith("Ignore") and not any(g.preferred for g in out):
            f = replace(f, preferred=True)  # the range's own choice: the one fix that runs everywhere
        out.append(f)
    return tuple(out)


def _told(hits: Sequence[tuple[Target, Finding]], fixes: tuple[Fix, ...]) -> Finding:
    """Whose words the merged finding takes: the newest failing release's, unless the range's preferred fix is
    another release's own preferred one (a typo's `past_key_values=` is 5.23's advice, 5.24 advises `cache=`):
    then the newest release that advises it, so the message and the fix agree."""
    preferred = next((f for f in fixes if f.preferred), None)
    if preferred is not None:
        for _, finding in hits:
            if any(g.preferred and g.edits == preferred.edits for g in finding.fixes):
                return finding
    return hits[0][1]


def merge(per_release: Sequence[tuple[Target, Sequence[tuple[Place, Finding]]]], admits: str,
          annotate: bool = True) -> list[tuple[Place, Finding]]:
    """The findings of every checked release (oldest first), one per (place, code, span), in the newest
    release's order then the older ones'. `annotate`: name the failing releases in each message."""
    checked = [t for t, _ in per_release]
    seen: dict[tuple[Place, tuple[str, object]], list[tuple[Target, Finding]]] = {}
    for target, items in reversed(per_release):
        for place, finding in items:
            seen.setdefault((place, key(finding)), []).append((target, finding))
    out: list[tuple[Place, Finding]] = []
    for (place, _), hits in seen.items():
        found = [t for t, _ in hits]
        fixes = _portable([f.fixes for _, f in hits])
        shown = _told(hits, fixes)
        message = shown.message + (range_note(found, checked, admits) if annotate else "")
        out.append((place, replace(shown, message=message, fixes=fixes)))
    return out
