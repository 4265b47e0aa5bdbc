"""HFC100 unused-suppression: a suppression comment that silences nothing, or names a code no rule has (Ruff's
RUF100). Off unless selected (`--extend-select HFC100`), as RUF100 is.

It reads what the other rules found, not the analysis: checking/source.py calls `unused` with each comment and
the codes it silenced (its `check` finds nothing on its own).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from hf_cache_lint.engine.base.findings import Edit, Finding, Fix, Position, Severity, Span
from hf_cache_lint.engine.output.analysis import Analysis
from hf_cache_lint.engine.output.suppress import Directive, Suppressions
from hf_cache_lint.engine.text.text import split_lines
from hf_cache_lint.rules.base import Rule
from hf_cache_lint.rules.hfc100_unused_suppression.examples import INVALID, VALID

FIX_TITLE = "Remove unused suppression"
OUR_PREFIX = "HFC"


def _ours(d: Directive) -> list[str]:
    """The codes of a directive this tool answers for: all of an `hf-cache-lint:` comment's, a `# noqa`'s HFC
    codes only (`# noqa: E501` is another linter's business)."""
    return [c for c, _, _ in d.codes if d.kind != "noqa" or c.startswith(OUR_PREFIX)]


class UnusedSuppression(Rule):
    code = "HFC100"
    name = "unused-suppression"
    summary = "A suppression comment that silences no finding, or names an unknown code."
    default_severity = Severity.WARNING
    default_enabled = False
    # No fact kind: it reads the text's suppression comments against the other rules' findings
    # (checking/source.py `_unsuppressed`); the screen lets a text holding one through for it.
    reads = frozenset()
    reads_comments = True
    valid = VALID
    invalid = INVALID

    def check(self, analysis: Analysis) -> Iterable[Finding]:
        return ()  # see `unused`: it needs the other rules' findings

    def unused(self, text: str, table: Suppressions, used: Mapping[Directive, set[str]],
               enabled: Callable[[str], bool]) -> list[Finding]:
        """A finding for each directive with codes that silenced nothing or that no rule has.

        A code whose rule is not enabled in this run is not reported: the CLI and the editors run different
        rules by default (HFC006), so a comment needed in one must not be removed by a fix in the other.
        """
        from hf_cache_lint.rules import BY_CODE  # the registry imports this package: read it when called

        lines = split_lines(text)
        out = []
        for d in table.all():
            silenced = used.get(d, set())
            if d.bare:
                if d.kind != "noqa" and not silenced:  # a bare noqa comment may be there for another tool
                    out.append(self._report(d, lines, "silences nothing", [], []))
                continue
            ours = _ours(d)
            unknown = [c for c in ours if c not in BY_CODE]
            idle = [c for c in ours if c in BY_CODE and c != self.code and enabled(c) and c not in silenced]
            if unknown or idle:
                parts = [f"{what}: {', '.join(f'`{c}`' for c in codes)}"
                         for what, codes in (("unused", idle), ("unknown", unknown)) if codes]
                out.append(self._report(d, lines, "; ".join(parts), unknown + idle, list(d.codes)))
        return out

    def _report(self, d: Directive, lines: list[str], why: str, drop: list[str],
                codes: list[tuple[str, int, int]]) -> Finding:
        span = Span(Position(d.line, d.start), Position(d.line, d.end))
        kept = [lines[d.line - 1][s:e] for c, s, e in codes if c not in drop]
        if kept and d.codes_span is not None:
            edit = Edit(Span(Position(d.line, d.codes_span[0]), Position(d.line, d.codes_span[1])), ", ".join(kept))
        else:
            edit = _remove(d, lines)
        fix = Fix(FIX_TITLE, (edit,), preferred=True)
        story = (f"This `{lines[d.line - 1][d.start:d.end]}` comment {_WHY[d.kind]}, but {why.replace('`', '')}: "
                 "there is nothing here for it to silence. Remove it, so that a new finding on this code is "
                 "not silenced without anyone deciding so.")
        return self.report(span, f"Unused suppression ({why})", fixes=(fix,), story=story)


_WHY = {"noqa": "silences findings on its line", "ignore": "silences findings on its line",
        "file": "silences findings in the whole file"}


def _remove(d: Directive, lines: list[str]) -> Edit:
    """The edit that takes the directive out and leaves the line as it would have been written without it:
    the spaces before it go too; a whole-line comment takes its line; a reason written after it stays a
    comment (`x  # noqa: HFC001 why` -> `x  # why`), never code."""
    line = lines[d.line - 1]
    before, after = line[:d.start].rstrip(), line[d.end:].lstrip()
    if not before and not after:  # the comment was the line
        if d.line < len(lines):
            return Edit(Span(Position(d.line, 0), Position(d.line + 1, 0)), "")
        return Edit(Span(Position(d.line, 0), Position(d.line, len(line))), "")
    if not after:
        return Edit(Span(Position(d.line, len(before)), Position(d.line, len(line))), "")
    gap_end = len(line) - len(after)
    if after.startswith("#"):
        return Edit(Span(Position(d.line, len(before) if before else d.start), Position(d.line, gap_end)),
                    "  " if before else "")
    return Edit(Span(Position(d.line, d.start), Position(d.line, gap_end)), "# ")
