"""HFC003 cache-keyword: the cache keyword (or `assistant_model=`) does not fit the model class or version."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import partial

from hf_cache_lint.engine.base.findings import SAFE, UNSAFE, Finding, Fix, Severity, Span
from hf_cache_lint.engine.environment.families import is_mamba_family
from hf_cache_lint.engine.environment.target import unused_kwargs_message
from hf_cache_lint.engine.facts.generate_call import KIND as GENERATE_CALL
from hf_cache_lint.engine.output.analysis import Analysis, GenerateCall, Keyword
from hf_cache_lint.engine.output.edits import remove_argument, rename_keyword
from hf_cache_lint.engine.output.keywords import written_cache_keyword
from hf_cache_lint.rules.base import Rule
from hf_cache_lint.rules.hfc003_cache_keyword.examples import INVALID
from hf_cache_lint.rules.hfc003_cache_keyword.valid import VALID
from hf_cache_lint.rules.order import ci_rejected, keyword_rejected, kwargs_rejected

_OLD_NAMES = ("past_key_values", "cache_params")


@dataclass(frozen=True)
class _Problem:
    """One finding before it is rendered: what is wrong with which keyword, and the fix."""

    kind: str  # "rejected" | "both" | "assisted"
    keyword: str
    span: Span
    written: Keyword | None
    severity: Severity
    message: str
    runtime: str  # the exact text transformers raises or warns


class CacheKeyword(Rule):
    code = "HFC003"
    name = "cache-keyword"
    summary = "The cache keyword of `generate()` does not fit the model class or the transformers version."
    default_severity = Severity.ERROR
    reads = frozenset({GENERATE_CALL})
    valid = VALID
    invalid = INVALID

    def check(self, analysis: Analysis) -> Iterable[Finding]:
        target = analysis.context.target
        for call in analysis.calls:
            if ci_rejected(target, call):
                continue  # the invalid `cache_implementation` is raised first (HFC004)
            for problem in self.problems(analysis, call):
                yield self.report(problem.span, problem.message, severity=problem.severity,
                                  fixes=self.fixes(analysis, call, problem), story=partial(self.story, analysis, call, problem))

    def problems(self, analysis: Analysis, call: GenerateCall) -> Iterator[_Problem]:
        target = analysis.context.target
        model = call.model.class_name or "this model"
        for arg in call.cache_args:
            if keyword_rejected(target, call, arg.keyword):
                if arg.kind == "none":
                    continue  # a None value passes `_validate_model_kwargs`
                maybe = arg.kind == "unknown" or arg.condition is not None
                expected = target.cache_keyword(call.model.class_name)
                runtime = unused_kwargs_message([arg.keyword])
                message = (f"transformers {target} takes the cache of {model} as `{expected}=`, not "
                           f"`{arg.keyword}=`; generate raises {runtime}")
                if maybe:
                    message += f" This happens only if {arg.condition or 'the value'} is not None."
                yield _Problem("rejected", arg.keyword, arg.span, written_cache_keyword(call, arg),
                               Severity.WARNING if maybe else Severity.ERROR, message, runtime)
            elif target.unified_cache_keyword and arg.keyword in _OLD_NAMES \
                    and any(a.keyword == "cache" for a in call.cache_args):
                # Both names: 5.24 keeps `cache=` and drops the old one (deprecate_kwarg), so the cache given
                # under the old name is silently lost. An old name alone only warns: HFC006's business.
                owner = f"{call.model.class_name or '<model class>'}.generate"
                runtime = (f"FutureWarning: Both `{arg.keyword}` and `cache` are set for `{owner}`. Using "
                           f"`cache=...` and ignoring deprecated `{arg.keyword}=...`.")
                message = (f"`{arg.keyword}=` and `cache=` are both given: transformers {target} uses `cache=` "
                           f"and ignores `{arg.keyword}=`, with a FutureWarning")
                yield _Problem("both", arg.keyword, arg.span, written_cache_keyword(call, arg), Severity.WARNING,
                               message, runtime)
        assistant = next((k for k in call.keywords if k.name == "assistant_model" and k.value_text != "None"), None)
        if assistant is not None and target.assisted_rejects_stateful and is_mamba_family(call.model.class_name) \
                and not kwargs_rejected(target, call):
            runtime = ("ValueError: assisted generation is not supported with stateful models, such as "
                       f"{call.model.class_name}")
            message = (f"{model} keeps a recurrent state that cannot be rolled back to the accepted draft tokens; "
                       f"transformers {target} raises {runtime}")
            yield _Problem("assisted", "assistant_model", assistant.span, assistant, Severity.ERROR, message, runtime)

    def fixes(self, analysis: Analysis, call: GenerateCall, p: _Problem) -> Iterator[Fix]:
        if p.written is None:
            return  # through a ** dict: nothing safe to apply; the editor still offers ignore
        target = analysis.context.target
        if p.kind == "rejected":
            expected = target.cache_keyword(call.model.class_name)
            yield Fix(f"Rename to `{expected}=`", (rename_keyword(p.written, expected),), preferred=True)
        else:
            removal = remove_argument(call, p.written.span)
            if removal is None:
                return
            # Without the assistant, generate decodes without it: the same output, slower (behaviour beyond the
            # finding: unsafe). Dropping the ignored old cache keyword changes nothing 5.24 does not already do.
            yield Fix(f"Remove `{p.keyword}=`", (removal,), preferred=True,
                      applicability=UNSAFE if p.keyword == "assistant_model" else SAFE)
        yield self.ignore_fix(analysis, p.span)

    def story(self, analysis: Analysis, call: GenerateCall, p: _Problem) -> str:
        target = analysis.context.target
        model = call.model.class_name or "a transformers model"
        expected = target.cache_keyword(call.model.class_name)
        headline = {
            "rejected": f"`{p.keyword}=` is not where transformers {target} looks for this model's cache.",
            "both": f"the cache is given twice; `{p.keyword}=` is ignored.",
            "assisted": "assisted generation needs a cache it can roll back; a stateful model has none.",
        }[p.kind]
        effect = "raises" if p.runtime.startswith("ValueError") else "warns and drops the cache"
        return "\n".join([
            f"**{self.code} {self.name}**: {headline}",
            "",
            f"- **The model**: {model}{f' from `{call.model.checkpoint}`' if call.model.checkpoint else ''}; "
            f"transformers {target} takes its cache as `{expected}=`.",
            "- **By version**: 5.24+ `cache=` for every model (`past_key_values=`/`cache_params=` still work with a "
            "FutureWarning until 6.0); before 5.24 `cache_params=` for Mamba-family models, `past_key_values=` "
            "for the rest.",
            "",
            f"`generate()` {effect} (transformers {target}):",
            "",
            f"```\n{p.runtime}\n```",
        ])

