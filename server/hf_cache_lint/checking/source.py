"""check_source: one module's text in, its findings out (the engine's facts, the rules, settings, suppressions).

The steps, in order: the one screen (engine/screen/screen.py: the text prefilter, then the `ast` gate) skips text that
cannot hold a finding of the enabled rules; the interpreter (engine/interpreter/interp.py) turns the text into an `Analysis`; every enabled rule reads
it; jedi refutes findings on receivers that are not transformers models (checking/jedi_bridge.py); a finding in a
block under an undecidable version test becomes a Warning; deprecations under an Error step aside; the
suppression comments (engine/output/suppress.py) drop what the user silenced.
"""

from __future__ import annotations

import bisect
import itertools
import logging
from collections.abc import Iterable
from dataclasses import fields, replace
from functools import lru_cache
from typing import TYPE_CHECKING

from hf_cache_lint.checking.jedi_bridge import drop_foreign
from hf_cache_lint.checking.screening import screen
from hf_cache_lint.engine.base.collector import gc_paused
from hf_cache_lint.engine.base.findings import CheckResult, Finding, Severity
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.interpreter import interp
from hf_cache_lint.engine.output.analysis import Analysis
from hf_cache_lint.engine.output.suppress import Directive, Suppressions, suppressions
from hf_cache_lint.settings import Settings

if TYPE_CHECKING:
    from hf_cache_lint.rules.base import Rule

log = logging.getLogger("hf_cache_lint")


def analyse(text: str, path: str, context: Context | None = None, incremental: bool | str = False) -> Analysis:
    """Run the interpreter over one module's text (never raises on bad syntax)."""
    return interp.analyse(text, path, context or Context(), incremental=incremental)


def check_source(
    text: str, path: str = "<stdin>", settings: Settings | None = None, context: Context | None = None,
    *, incremental: bool | str = False, use_gate: bool = True, lazy_stories: bool = False,
    keep_tree: str | None = None,
) -> CheckResult:
    """All enabled rules over one module's text, suppressions and settings applied.

    `incremental`: reuse the previous parse of this path (an editor buffer, edited keystroke by keystroke);
    a string: of that key instead (a second tree for one document, e.g. the texts fixes would give).
    `use_gate`: False forces parso on every module the prefilter passes (tests compare both paths).
    `lazy_stories`: each finding's hover story stays a `Story`, written when first read (the language server:
    a keystroke needs none of them); else every story is written here, a plain string.
    `keep_tree`: a whole file (screened as one, the gate asked) whose parse tree is kept under this key, where
    the re-checks of its fixes re-parse only what each fix changed (fixcheck/rechecks.py `recheck_key`; the caller
    forgets it). The same tree as without: the key only decides where parso keeps it.
    """
    settings = settings or Settings()
    with gc_paused():
        # An editor buffer keeps parso's incremental tree warm instead; the gate is for whole files. Every file
        # is asked, however often it says a trigger: the ast stage (engine/screen/reaching.py) rules out modeling code
        # that says them everywhere (on transformers' tree 9 of the 20 files with more than 3 did not pass it).
        if not screen(text, path, settings, context, gate=not incremental and use_gate):
            return CheckResult(path)
        try:
            result = _run_rules(text, path, settings, context, keep_tree or incremental, lazy_stories)
        except BaseException:  # an engine bug: no re-check follows to drop the tree
            if keep_tree:
                interp.forget(keep_tree)
            raise
        if keep_tree and not any(f.fixes for f in result.findings):
            # Nothing to re-check: the tree goes now, while the collector is still off. Kept past this block, it
            # would be scanned by the young collections that follow (+0.6 s of CPU over transformers' tree). The
            # analysis that read it is gone with _run_rules (findings hold positions, not nodes), so its cycles
            # are broken too: freed here by reference counting, not traced by the next young collection (the 93 files of
            # transformers' tree that reach the engine, in process, least of 4: 7.35 -> 6.89 s of CPU).
            interp.forget(keep_tree, unlink=True)
        return result


def _run_rules(text: str, path: str, settings: Settings, context: Context | None,
               incremental: bool | str, lazy_stories: bool) -> CheckResult:
    """The analysis, then every enabled rule over it (one failing rule is logged, the others still run)."""
    # Imported here, not with this module: importing the rules takes ~65 ms (`python -X importtime`) and a run whose files all stop at
    # the gate (or a language server still answering `initialize`) never needs them.
    from hf_cache_lint.rules import ALL_RULES
    from hf_cache_lint.rules.order import forget as forget_answers

    try:
        analysis = analyse(text, path, context, incremental)
    except RecursionError:  # the parser itself (the interpreter skips such statements one by one)
        return CheckResult(path, notes=("not analysed: too deeply nested to parse",))
    findings: list[Finding] = []
    for rule in ALL_RULES:
        if not settings.enabled(rule.code):
            continue
        try:
            for f in rule.check(analysis):
                # Written here unless lazy, inside this `try`: a story that fails fails its rule, as it always did.
                story = f.story if lazy_stories else str(f.story)
                severity = settings.severity_for(f.code, f.severity)
                # A copy only when something changes (`replace` costs more than some rules' whole check).
                findings.append(f if severity is f.severity and story is f.story
                                else replace(f, severity=severity, story=story))
        except Exception:  # one failing rule must not hide the others
            log.exception("rule %s failed on %s", rule.code, path)
    forget_answers()  # rules/order.py's answers: this check's become the last check's (for the calls a next check gives again)
    table = suppressions(text)
    findings = [under_version_guard(f, analysis) for f in drop_foreign(analysis, findings)]
    findings = _unstacked(findings, _yielding(ALL_RULES))
    # By (start, end, code) as `Position`s order, compared as ints (a dataclass's `<` is a Python call).
    kept = sorted(_distinct(_unsuppressed(findings, table, text, settings)), key=_place_and_code)
    return CheckResult(path, tuple(kept), notes=budget_notes(analysis))


UNUSED_SUPPRESSION = "HFC100"


def _unsuppressed(findings: list[Finding], table: Suppressions, text: str, settings: Settings) -> list[Finding]:
    """The findings no comment silences, and (when HFC100 is on) one for each comment that silenced nothing."""
    if not table:
        return findings
    kept: list[Finding] = []
    used: dict[Directive, set[str]] = {}
    for f in findings:
        by = table.silencing(f)
        if by is None:
            kept.append(f)
        else:
            used.setdefault(by, set()).add(f.code)
    if settings.enabled(UNUSED_SUPPRESSION):
        # A comment does not silence the report about itself (a stale bare `# hf-cache-lint: ignore` is reported,
        # as Ruff reports a stale blanket noqa comment); another comment may (`# hf-cache-lint: noqa: HFC100`).
        kept.extend(f for f in _unused(text, table, used, settings) if table.silencing(f, but=f.span) is None)
    return kept


def _unused(text: str, table: Suppressions, used: dict[Directive, set[str]], settings: Settings) -> list[Finding]:
    from hf_cache_lint.rules import BY_CODE
    from hf_cache_lint.rules.hfc100_unused_suppression import UnusedSuppression

    rule = BY_CODE[UNUSED_SUPPRESSION]
    assert isinstance(rule, UnusedSuppression)
    severity = settings.severity_for(rule.code, rule.default_severity)
    return [f if f.severity is severity else replace(f, severity=severity)
            for f in rule.unused(text, table, used, settings.enabled)]


# Read once: an Enum member read from its class is a Python-level lookup (~0.3 us on 3.11), per finding here.
_ERROR, _WARNING = Severity.ERROR, Severity.WARNING
_RAISING = (_ERROR, _WARNING)

# Every field of a Finding but its story: what tells two findings apart before their stories need reading.
_BUT_STORY = tuple(f.name for f in fields(Finding) if f.name != "story")


def _distinct(findings: Iterable[Finding]) -> list[Finding]:
    """Each finding once, as a set of them keeps it, in the order found; a story is read (and so written, when
    lazy) only to tell apart two findings alike in everything else."""
    groups: list[list[Finding]] = []  # findings alike in every field but the story, in the order first found
    # Candidates by code, message and place (the span as ints: hashing a Span and its Positions is three Python
    # calls), each a list of groups: hashing every field (the fixes' edits, the related places) of every finding
    # cost more than most rules; fields are compared only between findings that share these, the group's first
    # member standing for the group (its members are alike in every field but the story).
    near: dict[tuple[object, ...], list[list[Finding]]] = {}
    for f in findings:
        start, end = f.span.start, f.span.end
        key = (f.code, f.message, start.line, start.column, end.line, end.column)
        candidates = near.get(key)
        if candidates is None:
            same = [f]
            near[key] = [same]
            groups.append(same)
            continue
        fields_ = _but_story(f)
        found = next((members for members in candidates if _but_story(members[0]) == fields_), None)
        if found is None:
            found = []
            candidates.append(found)
            groups.append(found)
        if all(str(g.story) != str(f.story) for g in found):
            found.append(f)
    return [f for same in groups for f in same]


def _but_story(f: Finding) -> tuple[object, ...]:
    return tuple(getattr(f, name) for name in _BUT_STORY)


def _place_and_code(f: Finding) -> tuple[int, int, int, int, str]:
    start, end = f.span.start, f.span.end
    return start.line, start.column, end.line, end.column, f.code


def budget_notes(analysis: Analysis) -> tuple[str, ...]:
    """What the analysis left out, said once per kind (at most a few lines are named)."""
    notes = []
    if analysis.skipped:
        lines = sorted({s.line for s in analysis.skipped})
        where = ", ".join(f"at line {n}" for n in lines[:3]) + (f" and {len(lines) - 3} more" if len(lines) > 3 else "")
        what = "a statement" if len(lines) == 1 else f"{len(lines)} statements"
        notes.append(f"{what} too deeply nested to analyse skipped ({where})")
    if analysis.stopped is not None:
        notes.append(f"analysis stopped at line {analysis.stopped.line}: the file is beyond the analysis budget "
                     f"({analysis.stopped.reason}); findings after that point may be missing")
    return tuple(notes)


def under_version_guard(finding: Finding, analysis: Analysis) -> Finding:
    """An Error inside a block whose transformers-version test the analysis cannot decide becomes a Warning:
    it happens only on the versions that test admits."""
    if finding.severity != _ERROR:
        return finding
    for block, test in analysis.version_guarded:
        if block.start <= finding.span.start and finding.span.end <= block.end:
            return replace(finding, severity=_WARNING,
                           message=f"{finding.message} (only where the version test `{test}` lets this run)")
    return finding


@lru_cache(maxsize=8)
def _yielding(rules: tuple[Rule, ...]) -> frozenset[str]:
    """The codes of the rules that step aside under an Error (the registry is fixed: worked out once)."""
    return frozenset(r.code for r in rules if r.yields_to_errors)


def _unstacked(findings: list[Finding], yielding: frozenset[str]) -> list[Finding]:
    """Drop the findings of `yielding` rules (deprecations) where another rule's Error or Warning covers
    the same code (its range, or a related place in this file): the call raises or may raise there, and
    that finding is the one to act on."""
    raising = [f for f in findings if f.code not in yielding and f.severity in _RAISING]
    if not raising:
        return findings
    # Each span as two (line, column) pairs: `Position`'s `<` compares the same pairs, in a Python call.
    # Sorted by start, with the furthest end among each prefix: a span [a, b) meets one iff some span starting
    # before b ends after a, one bisection per finding (a scan of every span was quadratic: a module of a
    # thousand functions with a conflict and a deprecation each made half a million comparisons).
    spans = sorted(((s.start.line, s.start.column), (s.end.line, s.end.column))
                   for s in [f.span for f in raising] + [r.span for f in raising for r in f.related if r.path is None])
    starts = [s for s, _ in spans]
    furthest = list(itertools.accumulate((e for _, e in spans), max))
    kept = []
    for f in findings:
        if f.code in yielding:
            start, end = f.span.start, f.span.end
            a, b = (start.line, start.column), (end.line, end.column)
            before = bisect.bisect_left(starts, b)
            if before and furthest[before - 1] > a:
                continue
        kept.append(f)
    return kept
