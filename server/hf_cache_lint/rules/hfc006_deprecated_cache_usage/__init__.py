"""HFC006 deprecated-cache-usage: code that works at the target version but warns (nothing raises)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import partial

from hf_cache_lint.engine.base.findings import UNSAFE, Edit, Finding, Fix, Severity
from hf_cache_lint.engine.facts.ci_value import KIND as CI_VALUE
from hf_cache_lint.engine.facts.generate_call import KIND as GENERATE_CALL
from hf_cache_lint.engine.output.analysis import Analysis, CacheArg, CiValue, GenerateCall
from hf_cache_lint.engine.output.edits import rename_keyword
from hf_cache_lint.engine.output.keywords import written_cache_keyword
from hf_cache_lint.engine.text.text import line_starts, offset
from hf_cache_lint.rules.base import Rule
from hf_cache_lint.rules.hfc006_deprecated_cache_usage.examples import INVALID
from hf_cache_lint.rules.hfc006_deprecated_cache_usage.valid import VALID
from hf_cache_lint.rules.order import ci_rejected, kwargs_rejected, quote_like

OLD_KEYWORDS = ("past_key_values", "cache_params")
TAGS = ("deprecated",)

# What a deprecated 5.x `cache_implementation` name builds now, and the current name that builds the same
# (None: leave it unset). generation/utils.py `_prepare_generation_config` / `_prepare_cache_for_generation`.
DEPRECATED_NOW: dict[str, tuple[str, str | None]] = {
    "sliding_window": ("a `StaticCache` whose layer types come from the model config", "static"),
    "hybrid_chunked": ("a `StaticCache` whose layer types come from the model config", "static"),
    "offloaded_hybrid": ("an offloaded `StaticCache` whose layer types come from the model config", "offloaded_static"),
    "offloaded_hybrid_chunked": ("an offloaded `StaticCache` whose layer types come from the model config",
                                 "offloaded_static"),
    "hybrid": ("nothing: generate resets it to None and builds its default `DynamicCache`", None),
}


class DeprecatedCacheUsage(Rule):
    code = "HFC006"
    name = "deprecated-cache-usage"
    summary = "Cache code that works at this transformers version but is deprecated (it warns, nothing raises)."
    default_severity = Severity.HINT
    reads = frozenset({GENERATE_CALL, CI_VALUE})
    cli_default = False
    yields_to_errors = True
    valid = VALID
    invalid = INVALID

    def check(self, analysis: Analysis) -> Iterable[Finding]:
        target = analysis.context.target
        for call in analysis.calls:
            yield from self.old_keywords(analysis, call)
        for ci in analysis.ci_values:
            # A json value is the checkpoint's (Gemma's Hub default is "hybrid"): nothing to change in this file.
            if ci.where == "json" or ci.value not in target.deprecated_cache_implementations:
                continue
            if ci.value == "hybrid" and not target.hybrid_is_reset and ci.where == "attribute":
                continue  # 4.x resets a "hybrid" on the model's own config in place, silently (docs/facts.md §2)
            yield self.deprecated_value(analysis, ci)

    def old_keywords(self, analysis: Analysis, call: GenerateCall) -> Iterator[Finding]:
        target = analysis.context.target
        if not target.unified_cache_keyword or ci_rejected(target, call) or kwargs_rejected(target, call):
            return  # before 5.24 these names are the current ones; a call that raises gets that error instead
        if any(a.keyword == "cache" for a in call.cache_args):
            return  # both names given: the old one is ignored, which HFC003 reports (it loses the cache)
        for arg in call.cache_args:
            if arg.keyword in OLD_KEYWORDS:
                yield self.old_keyword(analysis, call, arg)

    def old_keyword(self, analysis: Analysis, call: GenerateCall, arg: CacheArg) -> Finding:
        target = analysis.context.target
        carried = f" (passed in through {arg.through or 'a `**` dict'})" if arg.via_kwargs else ""
        message = (f"`{arg.keyword}=`{carried} is deprecated in transformers {target}: generate warns and reads it "
                   "as `cache=`, the new name of the cache keyword (the old names go in 6.0.0)")
        if call.ci_keyword is not None and call.ci_keyword.value_text.strip() == "None":
            # What HFC001's preferred fix leaves: this hint appears where the Error was. Say why it is a second,
            # separate matter, so the fix does not look half done (issue 32).
            message += (f"; the `cache_implementation=None` beside it (HFC001's fix) is right and stays: only the "
                        f"keyword's name `{arg.keyword}=` is deprecated")
        written = written_cache_keyword(call, arg)
        fixes: tuple[Fix, ...] = ()
        if written is not None:
            # `cache=` does not run before 5.24 (HFC003 there): not on every release code may still support.
            fixes = (Fix("Rename to `cache=`", (rename_keyword(written, "cache"),), preferred=True,
                         applicability=UNSAFE),
                     self.ignore_fix(analysis, arg.span))
        return self.report(arg.span, message, fixes=fixes, story=partial(self.old_keyword_story, analysis, call, arg),
                           tags=TAGS)

    def old_keyword_story(self, analysis: Analysis, call: GenerateCall, arg: CacheArg) -> str:
        target = analysis.context.target
        warning = target.keyword_deprecation_message(arg.keyword, call.model.class_name)
        model = call.model.class_name or "the model"
        return "\n".join([
            f"**{self.code} {self.name}**: `{arg.keyword}=` is the pre-5.24 name of the cache keyword.",
            "",
            f"transformers {target} renamed the cache keyword of `generate()` to `cache=` for every model. "
            f"`{arg.keyword}=` still works: generate passes the cache on as `cache=` and warns "
            f"(transformers {target}, {model}):",
            "",
            f"```\n{warning}\n```",
            "",
            "**Fix**: rename the keyword to `cache=`. Code that must also run on transformers older than 5.24 "
            f"can keep `{arg.keyword}=` until it drops them (or ignore {self.code}).",
        ])

    def deprecated_value(self, analysis: Analysis, ci: CiValue) -> Finding:
        target = analysis.context.target
        builds, now = DEPRECATED_NOW.get(ci.value, ("the same cache as `\"static\"`", "static"))
        if ci.value == "hybrid" and not target.hybrid_is_reset:
            builds, now = DEPRECATED_NOW["sliding_window"]  # 4.x still builds from it, as from the others
        if now is None:
            message = (f'`cache_implementation="{ci.value}"` is deprecated in transformers {target} and does '
                       f"nothing: generate resets it to None and builds its default `DynamicCache`")
            advice = "Remove it, or replace it with `None`: nothing changes at run time."
            effect = f"generate resets `\"{ci.value}\"` to None without a word before it builds the cache."
        else:
            message = (f'`cache_implementation="{ci.value}"` is deprecated in transformers {target}: it builds '
                       f'{builds}, as `"{now}"` does, and generate logs a deprecation')
            advice = f'Replace it with `"{now}"`: the same cache under its current name.'
            effect = ("when generate builds the cache it logs (transformers "
                      f"{target}):\n\n```\n{target.deprecated_cache_implementation_message(ci.value)}\n```")
        story = partial("\n".join, [
            f"**{self.code} {self.name}**: `cache_implementation=\"{ci.value}\"` is a deprecated name.",
            "",
            f"It is still accepted, and {effect}",
            "",
            f"**Fix**: {advice}",
        ])
        return self.report(ci.span, message, fixes=self.replace_fixes(analysis, ci, now), story=story, tags=TAGS)

    def replace_fixes(self, analysis: Analysis, ci: CiValue, value: str | None) -> Iterator[Fix]:
        starts = line_starts(analysis.text)
        literal = analysis.text[offset(starts, ci.span.start):offset(starts, ci.span.end)]
        new = "None" if value is None else quote_like(literal, value)
        yield Fix(f"Replace with `{new}`", (Edit(ci.span, new),), preferred=True)
        yield self.ignore_fix(analysis, ci.span)

