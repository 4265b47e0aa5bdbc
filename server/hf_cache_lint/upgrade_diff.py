"""What an upgrade of transformers adds: the findings at the newer target that the current one does not have,
and the first behaviour change that brings each. Shared by `check --upgrade-to` and the editor command."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from hf_cache_lint.engine.base.findings import Finding
from hf_cache_lint.engine.environment.release_steps import releases_between
from hf_cache_lint.engine.environment.target import Target


def key(f: Finding) -> tuple[str, object]:
    # The message names the version, so the same problem is the same code at the same place.
    return f.code, f.span


def new_since(before: Sequence[Finding], after: Sequence[Finding]) -> list[Finding]:
    known = {key(f) for f in before}
    return [f for f in after if key(f) not in known]


def first_release(finding: Finding, current: Target, upgrade: Target,
                  findings_at: Callable[[Target], Sequence[Finding]]) -> Target:
    """The earliest behaviour change after `current` at which `finding` appears (at the latest, `upgrade`)."""
    for step in releases_between(current, upgrade)[:-1]:
        if key(finding) in {key(g) for g in findings_at(step)}:
            return step
    return upgrade


def note(release: Target, current: Target) -> str:
    return f" [new in transformers {release}; not reported for {current}]"
