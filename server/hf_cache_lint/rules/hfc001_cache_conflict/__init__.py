"""HFC001 cache-conflict: a cache object and `cache_implementation` meet in one generate call."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import partial

from hf_cache_lint.engine.base.findings import SAFE, UNSAFE, Finding, Fix, Related, Severity
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.engine.facts.generate_call import KIND as GENERATE_CALL
from hf_cache_lint.engine.output.analysis import Analysis, CacheArg, CacheImpl, GenerateCall
from hf_cache_lint.engine.output.edits import clear_keyword, remove_argument
from hf_cache_lint.rules.base import Rule
from hf_cache_lint.rules.common import accepts, link, source_words, where
from hf_cache_lint.rules.hfc001_cache_conflict.examples import INVALID
from hf_cache_lint.rules.hfc001_cache_conflict.layouts import LAYOUT_INVALID
from hf_cache_lint.rules.hfc001_cache_conflict.routes import ROUTES_INVALID, ROUTES_VALID
from hf_cache_lint.rules.hfc001_cache_conflict.valid import VALID


def conflicts(target: Target, call: GenerateCall, arg: CacheArg, ci: CacheImpl) -> bool:
    """Whether transformers `target` raises the 'Passing both' ValueError for this pair (docs/facts.md §1-3)."""
    if arg.kind == "none" or not target.has_conflict_error or not accepts(target, call, arg.keyword):
        return False
    if ci.when and arg.when and ci.when.test == arg.when.test and ci.when.holds != arg.when.holds:
        return False  # set on one branch of a condition, the cache on the other: they never meet
    if ci.value == "":  # unknown value: may be None
        return True
    if target.rejects_cache_implementation(ci.value):
        return False  # rejected as invalid first (HFC004)
    if ci.value == "hybrid":
        if target.hybrid_is_reset:
            return False
        if target.hub_hybrid_dropped and ci.via not in ("keyword", "kwargs", "generation_config", "pipeline"):
            return False
    # "paged" as a call keyword switches generate to continuous batching instead.
    return not (ci.value == "paged" and ci.via in ("keyword", "kwargs"))


class CacheConflict(Rule):
    code = "HFC001"
    name = "cache-conflict"
    summary = "A cache object and `cache_implementation` reach the same `generate()` call."
    default_severity = Severity.ERROR
    reads = frozenset({GENERATE_CALL})
    valid = VALID + ROUTES_VALID
    invalid = INVALID + ROUTES_INVALID + LAYOUT_INVALID

    def check(self, analysis: Analysis) -> Iterable[Finding]:
        seen: dict[tuple[object, str], Finding] = {}
        for call in analysis.calls:
            ci = call.cache_implementation
            if ci is None:
                continue
            for arg in call.cache_args:
                if not conflicts(analysis.context.target, call, arg, ci):
                    continue
                finding = self.finding(analysis, call, arg, ci)
                key = (finding.span, arg.keyword)
                old = seen.get(key)
                if old is None or (old.severity != Severity.ERROR and finding.severity == Severity.ERROR):
                    seen[key] = finding
        return seen.values()

    def finding(self, analysis: Analysis, call: GenerateCall, arg: CacheArg, ci: CacheImpl) -> Finding:
        target = analysis.context.target
        depends = [_phrase(d) for d in (ci.condition, arg.condition) if d]
        if arg.kind == "unknown" and not arg.condition:
            depends.append(f"the value passed as `{arg.keyword}` is not None")
        value = f'"{ci.value}"' if ci.value else "a value"
        place = where(ci.site, ci.via)
        message = (f"`{arg.keyword}` gets a cache while `cache_implementation={value}` is {source_words(ci)}"
                   f"{f' ({place})' if place else ''}; transformers {target} raises "
                   f"{target.conflict_message(arg.keyword, call.model.class_name)}")
        if depends:
            message += f" This happens only if {' and '.join(depends)}."
        severity = Severity.ERROR if not depends else Severity.WARNING
        related = []
        if ci.site is not None:
            related.append(Related(ci.site.span, f"`cache_implementation` is set here: {ci.site.description}",
                                   ci.site.path))
        if arg.via_kwargs and arg.site is not None:
            related.append(Related(arg.site.span, f"the cache enters the call here: {arg.site.description}"))
        if call.via is not None:
            related.append(Related(call.via.span, "reached from this call"))
        return self.report(arg.span, message, severity=severity, fixes=self.fixes(analysis, call, arg, ci),
                           related=related, story=partial(self.story, analysis, call, arg, ci, depends))

    def fixes(self, analysis: Analysis, call: GenerateCall, arg: CacheArg, ci: CacheImpl) -> Iterator[Fix]:
        text = analysis.text
        # A call reached from another call (a helper's generate, `**GEN_KW` passed in): an edit there changes
        # what every caller of the helper gets, not only the one that conflicts. Unsafe (docs: Fix safety).
        shared = UNSAFE if call.via is not None else SAFE
        # Unsloth overwrites the keyword, so setting it to None would not help there.
        edits = clear_keyword(text, call, "cache_implementation") if ci.via != "wrapper" else None
        # A `**dict` that holds `cache_implementation=None` on some path: a keyword written beside it raises TypeError
        # ("got multiple values for keyword argument") on the path that set it.
        if any(sk.name == "cache_implementation" and sk.none for sk in call.spread_keywords):
            edits = None
        if edits is not None:
            yield Fix("Set `cache_implementation=None` in this call", edits, preferred=True, applicability=shared)
        if not arg.via_kwargs:
            removal = remove_argument(call, arg.span)
            if removal is not None:
                # Always unsafe: generate then builds a cache of its own, the user's (a prefix cache) is lost.
                yield Fix(f"Remove `{arg.keyword}=`", (removal,), preferred=edits is None, applicability=UNSAFE)
        if ci.via == "keyword" and call.ci_keyword is not None:
            removal = remove_argument(call, call.ci_keyword.span)
            if removal is not None:
                yield Fix("Remove `cache_implementation=`", (removal,), applicability=shared)
        yield self.ignore_fix(analysis, arg.span)

    def story(self, analysis: Analysis, call: GenerateCall, arg: CacheArg, ci: CacheImpl,
              depends: list[str]) -> str:
        target = analysis.context.target
        model = call.model.class_name or "a transformers model"
        expected = target.cache_keyword(call.model.class_name)
        cache = {"cache": f"a `{arg.cache_class}`" if arg.cache_class and arg.cache_class[0].isupper()
                 else (arg.cache_class or "a Cache object"),
                 "tuple": "a tuple (legacy cache format)", "unknown": "a value the linter cannot see",
                 "other": "an object that is not None"}.get(arg.kind, "a value")
        where_ci = link(ci.site, analysis.path) if ci.site else where(ci.site, ci.via)
        lines = [
            f"**{self.code} {self.name}**: the cache and `cache_implementation` meet in this call.",
            "",
            f"- **The cache**: `{arg.keyword}=` receives {cache}.",
            f"- **The model**: {model}{f' from `{call.model.checkpoint}`' if call.model.checkpoint else ''}; "
            f"transformers {target} expects the cache as `{expected}=`.",
            f"- **`cache_implementation=\"{ci.value or '?'}\"`**: {source_words(ci)}, {where_ci}.",
        ]
        if depends:
            lines.append(f"- **Depends on**: {' and '.join(depends)}.")
        lines += ["", f"`generate()` raises before any forward pass (transformers {target}):", "",
                  f"```\n{target.conflict_message(arg.keyword, call.model.class_name)}\n```", "",
                  "**Fixes**: pass `cache_implementation=None` in this call to keep your cache (it overrides every "
                  f"other source); or drop `{arg.keyword}=` and let generate build the cache "
                  f"`cache_implementation` asks for."]
        return "\n".join(lines)


def _phrase(dependency: str) -> str:
    """A branch condition (`flag`) holds; an unseen value (the parameter `x`) is not None."""
    return f"{dependency} holds" if dependency.startswith("`") else f"{dependency} is not None"
