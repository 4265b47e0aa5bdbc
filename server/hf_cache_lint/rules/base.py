"""The shape every rule module fills in (after Fixit's LintRule): identity, docs, examples, check."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from typing import TYPE_CHECKING, Any, ClassVar

from hf_cache_lint.engine.base.findings import Finding, Fix, Related, Severity, Span, Story
from hf_cache_lint.engine.facts import FactKind
from hf_cache_lint.engine.output.edits import ignore_fix

if TYPE_CHECKING:
    from hf_cache_lint.engine.output.analysis import Analysis

# The transformers releases every example is checked against (the oracle runs each of them).
CHECKED_VERSIONS: tuple[str, ...] = ("4.57.6", "5.23.0", "5.24.0", "5.25.0")


@dataclass(frozen=True)
class Valid:
    """Code that must produce no finding of this rule for `versions`, and that runs clean there."""

    code: str
    versions: tuple[str, ...] = CHECKED_VERSIONS
    files: Mapping[str, str] = field(default_factory=dict)
    note: str = ""


@dataclass(frozen=True)
class Invalid:
    """Code that must produce exactly one finding of this rule for each of `versions`.

    `flagged` is the exact source text the finding's range covers (its `occurrence`-th match);
    `fixed` maps each expected fix title to the whole text after applying that fix (checked on the
    first version in `versions`). Every checked version not in `versions` must give no finding.
    `runtime` is what the oracle expects the real run to raise for `versions` (default: this rule): an HFC
    code, "OTHER", or "OK" (no exception, e.g. a deprecation that only warns). `severity` and `runtime` may
    also map each version to its own value when they differ by version (read them with `severity_on` and
    `runtime_on`).
    """

    code: str
    flagged: str
    fixed: Mapping[str, str] = field(default_factory=dict)
    versions: tuple[str, ...] = CHECKED_VERSIONS
    severity: Severity | Mapping[str, Severity] | None = None
    message_contains: str = ""
    occurrence: int = 0
    files: Mapping[str, str] = field(default_factory=dict)
    runtime: str | Mapping[str, str] | None = None
    note: str = ""
    # The fixed texts run clean on every checked release, the oldest and the newest included (the oracle runs
    # them there), not only on the release the fix was made for.
    portable: bool = False

    def severity_on(self, version: str, default: Severity) -> Severity:
        """The expected severity of the finding on `version`."""
        got = self.severity.get(version) if isinstance(self.severity, Mapping) else self.severity
        return got or default

    def runtime_on(self, version: str, default: str) -> str:
        """What the real run on `version` raises: an HFC code, "OTHER" or "OK" (default: the rule's code)."""
        got = self.runtime.get(version) if isinstance(self.runtime, Mapping) else self.runtime
        return got or default


class Rule:
    """A lint rule: subclasses set the class attributes and implement `check`."""

    code: ClassVar[str]
    name: ClassVar[str]
    summary: ClassVar[str]
    default_severity: ClassVar[Severity]
    docs: ClassVar[str]
    # The fact kinds the rule's `check` reads from the Analysis (engine/facts, each module's KIND), as Fixit's
    # rules declare METADATA_DEPENDENCIES: the screen lets a text through for the enabled rules' kinds only, so a
    # kind read and not declared here loses the rule's findings wherever no other rule reads it
    # (tests/engine/test_screen.py runs each rule's examples with that rule alone).
    reads: ClassVar[frozenset[FactKind[Any]]]
    # Whether the rule reads the text's suppression comments themselves (HFC100), not only facts: the screen
    # then lets any text holding one through.
    reads_comments: ClassVar[bool] = False
    valid: ClassVar[tuple[Valid, ...]] = ()
    invalid: ClassVar[tuple[Invalid, ...]] = ()
    # Whether `hf-cache-lint check` runs the rule without being asked (editors always do). Off for
    # findings that only predict a warning, so CI output stays about what raises.
    cli_default: ClassVar[bool] = True
    # Whether the rule runs without being named in `select`/`extend-select`, in the CLI and in editors alike
    # (off: HFC100, opt-in as Ruff's RUF100). settings.py's OPT_IN lists these codes (a test compares them).
    default_enabled: ClassVar[bool] = True
    # A finding of this rule is dropped where an Error finding of another rule covers the same range:
    # the call raises there, and a deprecation on the same keyword would only repeat it.
    yields_to_errors: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        # A rule package keeps its docs beside it, as docs.md (Ruff-style headings).
        if "docs" not in cls.__dict__:
            package = cls.__module__
            cls.docs = resources.files(package).joinpath("docs.md").read_text("utf-8")

    def check(self, analysis: Analysis) -> Iterable[Finding]:
        """Every finding of this rule in the analysed file (build each with `report`)."""
        raise NotImplementedError

    def reads_keyword(self, name: str) -> bool:
        """Whether this rule may report on a call reaching generate for the keyword `name` written in it when
        the call carries neither a cache nor a `cache_implementation`. The gate (engine/screen/gate.py) skips parsing
        a module whose generate calls have none of these, so a rule that reads such keywords must say so
        here, or its findings are lost in those modules."""
        return False

    def report(self, span: Span, message: str, *, severity: Severity | None = None, fixes: Iterable[Fix] = (),
               related: Iterable[Related] = (), story: str | Callable[[], str] = "",
               tags: tuple[str, ...] = ()) -> Finding:
        """A finding of this rule at `span`: its code and name filled in, `default_severity` unless told.

        `fixes` in the order an editor lists them (the preferred one first, `ignore_fix` last); `related`,
        other places that explain it; `story`, the Markdown of the hover, or a function that writes it (called
        when the story is first read: in an editor only on hover; it must read only the values it is given,
        never the parse tree, which the next keystroke's parse changes); `tags` ("deprecated")."""
        return Finding(self.code, self.name, message, severity or self.default_severity, span, tuple(fixes),
                       tuple(related), Story(story) if callable(story) else story, tags)

    def ignore_fix(self, analysis: Analysis, span: Span) -> Fix:
        """"Ignore CODE on this line": the `# hf-cache-lint: ignore[CODE]` comment on the line `span` starts."""
        return ignore_fix(analysis.text, span.start.line, self.code)

    @classmethod
    def full_docs(cls) -> str:
        """The Markdown shown by `hf-cache-lint rule CODE`, hovers and docs/rules/CODE.md."""
        return f"# {cls.code} {cls.name}\n\n{cls.summary}\n\n{cls.docs.strip()}\n"


Replacement = tuple[str, str]


def invalid(code: str, flagged: str, fixes: Mapping[str, Replacement | tuple[Replacement, ...]],
            **kw: object) -> Invalid:
    """An Invalid example whose fix results are written as replacements on its code: for each fix
    title, one `(text before, text after)` pair or several (each `before` must occur exactly once)."""
    fixed = {}
    for title, change in fixes.items():
        pairs: tuple[Replacement, ...] = (change,) if isinstance(change[0], str) else change
        result = code
        for old, new in pairs:
            assert result.count(old) == 1, f"{old!r} must occur once"
            result = result.replace(old, new)
        fixed[title] = result
    return Invalid(code, flagged, fixed, **kw)  # type: ignore[arg-type]
