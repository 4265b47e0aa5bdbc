"""HFC004 invalid-cache-implementation: a `cache_implementation` value the target version rejects."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Iterator
from functools import partial
from pathlib import Path

from hf_cache_lint.engine.base.findings import UNSAFE, Edit, Finding, Fix, Related, Severity, Span
from hf_cache_lint.engine.environment.families import windowed_family
from hf_cache_lint.engine.environment.release_version import Version
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.engine.facts.cache_use import KIND as CACHE_USE
from hf_cache_lint.engine.facts.cache_use import CacheUse
from hf_cache_lint.engine.facts.ci_value import KIND as CI_VALUE
from hf_cache_lint.engine.facts.generate_call import KIND as GENERATE_CALL
from hf_cache_lint.engine.facts.loader_keyword import KIND as LOADER_KEYWORD
from hf_cache_lint.engine.facts.loader_keyword import LoaderKeyword
from hf_cache_lint.engine.output.analysis import Analysis, CiValue, GenerateCall
from hf_cache_lint.engine.text.text import line_starts, offset
from hf_cache_lint.rules.base import Rule
from hf_cache_lint.rules.hfc004_invalid_cache_implementation.examples import FULL_PRECISION_TITLE, INVALID
from hf_cache_lint.rules.hfc004_invalid_cache_implementation.valid import VALID
from hf_cache_lint.rules.hfc006_deprecated_cache_usage import DEPRECATED_NOW
from hf_cache_lint.rules.order import ci_rejected, is_encoder_decoder, kwargs_rejected, quote_like

QUANTIZED_MESSAGE = ("ValueError: This model does not support the quantized cache. If you want your model to "
                     "support quantized cache, please open an issue and tag @zucchini-nlp.")
_NONE = "None"
# The first release `from_pretrained(id, cache_implementation=...)` was run on (the oracle's oldest, docs/facts.md).
LOADER_CHECKED_SINCE = Version.parse("4.52.4")


def _remove_argument(arguments: tuple[Span, ...], arg: Span) -> Edit | None:
    """Remove one argument of a call with the comma before it (after it, for the first one)."""
    if arg not in arguments:
        return None
    i = arguments.index(arg)
    if i > 0:
        return Edit(Span(arguments[i - 1].end, arg.end), "")
    return Edit(Span(arg.start, arguments[1].start), "") if len(arguments) > 1 else None


def suggestion(target: Target, value: str) -> str | None:
    """The value the user most likely meant, as Python source (`"static"`, or `None` to leave it unset)."""
    current = [v for v in target.valid_cache_implementations if v not in target.deprecated_cache_implementations]
    low = value.strip().lower()
    if low in current:
        return low
    if low == "dynamic_full":  # 4.x only: a DynamicCache without sliding layers; 5.x builds a DynamicCache
        return "dynamic"
    if low in ("mamba", "paged"):  # Mamba builds its own cache; 4.x has no paged cache (use None: the default)
        return _NONE
    if low in DEPRECATED_NOW and low not in target.valid_cache_implementations:
        return DEPRECATED_NOW[low][1] or _NONE
    got = difflib.get_close_matches(low, current, n=1, cutoff=0.6)
    return got[0] if got else None


class InvalidCacheImplementation(Rule):
    code = "HFC004"
    name = "invalid-cache-implementation"
    summary = "A `cache_implementation` value this transformers version rejects."
    default_severity = Severity.ERROR
    reads = frozenset({GENERATE_CALL, CI_VALUE, CACHE_USE, LOADER_KEYWORD})
    valid = VALID
    invalid = INVALID

    def check(self, analysis: Analysis) -> Iterable[Finding]:
        target = analysis.context.target
        seen: set[Span] = set()
        for ci in analysis.ci_values:
            span = ci.origin if ci.where == "json" else ci.span
            if span is None or span in seen:
                continue
            # A deprecated name is still valid: it only warns (HFC006's business).
            if ci.value not in target.valid_cache_implementations:
                seen.add(span)
                yield self.invalid_value(analysis, ci, span)
        for call in analysis.calls:
            finding = self.quantized(analysis, call, seen)
            if finding is not None:
                seen.add(finding.span)
                yield finding
        for kw in analysis.of(LOADER_KEYWORD):
            # Checked on the oracle from 4.52.4 (its oldest release) to the newest: older targets get no claim.
            if kw.span not in seen and target.version >= LOADER_CHECKED_SINCE:
                seen.add(kw.span)
                yield self.loader_keyword(analysis, kw)
        windowed = target.quantized_window_error
        if windowed is None:
            return
        for use in analysis.of(CACHE_USE):
            if use.op == "construct" and use.window is not None and use.span not in seen:
                seen.add(use.span)
                yield self.quantized_construct(use, *windowed)

    def quantized_construct(self, use: CacheUse, error: str, since: str) -> Finding:
        """`QuantizedCache(backend=..., config=model.config)` for a model with sliding-window layers: the constructor
        raises from 5.14.0 (the release table's `quantized_cache_full_attention_only`)."""
        message = (f"`{use.name}(...)` built with the config of a {use.window} model, whose layers include "
                   f"sliding-window ones; its constructor raises {error} (since {since})")
        story = (f"{use.window} models give some layers a sliding window. From {since} transformers quantizes only "
                 "the caches of models whose layers are all full-attention ones, and the constructor checks the "
                 "config it is given; before, it built the quantized cache.\n\nA `DynamicCache(config=model.config)` "
                 "keeps the sliding layers' window, in full precision.")
        return self.report(use.span, message, story=story)

    def loader_keyword(self, analysis: Analysis, kw: LoaderKeyword) -> Finding:
        """`from_pretrained(id, cache_implementation=...)`: the loader hands a keyword the model's config does not
        have to the model class's `__init__`, which raises (the oracle: 4.52.4 to 5.25.0, Auto classes and model
        classes alike); generate never sees the value."""
        target = analysis.context.target
        owner = f"`{kw.model_class}.__init__()`" if kw.model_class else "the model class's `__init__()`"
        error = (f"TypeError: {kw.model_class + '.' if kw.model_class else ''}__init__() got an unexpected keyword "
                 f"argument '{kw.keyword}'")
        message = (f"`{kw.keyword}=` given to `{kw.loader}(...)`, which does not take it: the loader passes what the "
                   f"model's config does not hold to {owner}, so transformers {target} raises {error}. Instead, set "
                   f"it after loading (`model.generation_config.{kw.keyword} = ...`) or pass it to `generate(...)`")
        story = "\n".join([
            f"**{self.code} {self.name}**: `{kw.keyword}=` in `{kw.loader}(...)`.", "",
            "`from_pretrained` reads the keywords the model's config has into the config and hands the rest to the "
            "model class's constructor. The config has no `cache_implementation` (it is a generation setting, kept "
            "in the generation config), so the constructor gets it and raises:", "", f"```\n{error}\n```", "",
            "Set it on the generation config after loading, or give it to `generate(...)`."])
        fixes: list[Fix] = []
        removal = _remove_argument(kw.arguments, kw.span)
        if removal is not None:
            # Unsafe: the load then runs, without the cache the code asked for (generate builds its default one).
            fixes.append(Fix(f"Remove `{kw.keyword}=`", (removal,), preferred=True, applicability=UNSAFE))
        fixes.append(self.ignore_fix(analysis, kw.span))
        return self.report(kw.span, message, fixes=tuple(fixes), story=story)

    def invalid_value(self, analysis: Analysis, ci: CiValue, span: Span) -> Finding:
        target = analysis.context.target
        meant = suggestion(target, ci.value)
        hint = f" (did you mean {meant if meant == _NONE else repr(meant).replace(chr(39), chr(34))}?)" \
            if meant else ""
        where = {"keyword": "generate", "GenerationConfig": "`GenerationConfig(...)`",
                 "json": "`from_pretrained` (reading generation_config.json)"}.get(ci.where, "generate")
        if not target.cache_implementation_checked:
            return self.ignored_value(analysis, ci, span, hint, meant)
        error = target.invalid_cache_implementation_message(ci.value)
        message = f'`cache_implementation="{ci.value}"` is not valid in transformers {target}{hint}; {where} raises {error}'
        related: tuple[Related, ...] = ()
        if ci.where == "json":
            related = (Related(ci.span, f'"cache_implementation": "{ci.value}" is set here', ci.path),)
        fixes = () if ci.where == "json" else tuple(self.replace_fixes(analysis, ci, meant))
        story = partial(self.story, target, ci, [
            f"`\"{ci.value}\"` is not one of the values transformers {target} accepts"
            f"{'' if ci.where != 'json' else f' (in {Path(ci.path or ci.where).name})'}.",
            f"`{where}` raises:", "", f"```\n{error}\n```"])
        return self.report(span, message, fixes=fixes, related=related, story=story)

    def ignored_value(self, analysis: Analysis, ci: CiValue, span: Span, hint: str, meant: str | None) -> Finding:
        """4.41-4.44 validate no `cache_implementation` (the release table's `cache_implementation:*`): an unknown
        value is kept, and generate builds a cache only for the values it knows, so it runs with the model's
        default cache, silently (generation/utils.py `_prepare_cache_for_generation`, read from the wheels)."""
        target = analysis.context.target
        effect = (f"transformers {target} accepts any string there and generate ignores a value it does not know: "
                  "no such cache is built, and the model runs with its default cache, without a word")
        message = f'`cache_implementation="{ci.value}"` is not a value transformers {target} knows{hint}; {effect}'
        related: tuple[Related, ...] = ()
        if ci.where == "json":
            related = (Related(ci.span, f'"cache_implementation": "{ci.value}" is set here', ci.path),)
        fixes = () if ci.where == "json" else tuple(self.replace_fixes(analysis, ci, meant))
        story = partial(self.story, target, ci, [
            f"`\"{ci.value}\"` is not one of the values transformers {target} builds a cache for.",
            f"Nothing raises: {effect}."])
        return self.report(span, message, severity=Severity.WARNING, fixes=fixes, related=related, story=story)

    def quantized(self, analysis: Analysis, call: GenerateCall, seen: set[Span]) -> Finding | None:
        """`"quantized"` on an encoder-decoder model fails when generate builds the cache; so does it, from 5.14.0,
        on a model the code says has sliding-window layers (the release table's
        `quantized_cache_full_attention_only`)."""
        target = analysis.context.target
        ci = call.cache_implementation
        if ci is None or ci.value != "quantized":
            return None
        family = windowed_family(call.model.class_name, call.model.checkpoint)
        windowed = target.quantized_window_error if family is not None and call.model.is_transformers else None
        if not is_encoder_decoder(call.model) and windowed is None:
            return None
        if ci_rejected(target, call) or kwargs_rejected(target, call) or any(a.kind != "none" for a in call.cache_args):
            return None  # an earlier error, or a cache is given (then nothing is built: HFC001's business)
        literal = next((v for v in analysis.ci_values if v.where != "json" and ci.site is not None
                        and ci.site.path is None and ci.site.span.start <= v.span.start
                        and v.span.end <= ci.site.span.end), None)
        span = literal.span if literal is not None else call.span
        if span in seen:
            return None
        if windowed is not None and not is_encoder_decoder(call.model):
            # Unsafe: where the quantized cache still runs (before 5.14.0), a full-precision one gives other
            # numbers and takes more memory.
            fixes = tuple(self.replace_fixes(analysis, literal, "dynamic", safe=False)) if literal is not None else ()
            error, since = windowed
            model = f"`{call.model.class_name or call.model.checkpoint}` ({family})"
            message = (f'`cache_implementation="quantized"` on {model}, whose layers include sliding-window ones; '
                       f"transformers {target} raises {error} (since {since})")
            story = partial(self.story, target, literal or CiValue("quantized", span, "keyword"), [
                f"{family} models give some layers a sliding window. From {since} transformers quantizes only the "
                "caches of models whose layers are all full-attention ones; before, it built the quantized cache.",
                "`generate()` raises when it builds the cache:", "", f"```\n{error}\n```"])
            return self.report(span, message, fixes=fixes, story=story)
        fixes = tuple(self.replace_fixes(analysis, literal, "dynamic")) if literal is not None else ()
        model = call.model.class_name or "this encoder-decoder model"
        message = (f'`cache_implementation="quantized"` on {model} (an encoder-decoder model); transformers '
                   f"{target} raises {QUANTIZED_MESSAGE}")
        story = partial(self.story, target, literal or CiValue("quantized", span, "keyword"), [
            f"{model} is an encoder-decoder model: transformers quantizes only decoder-only caches.",
            "`generate()` raises when it builds the cache:", "", f"```\n{QUANTIZED_MESSAGE}\n```"])
        return self.report(span, message, fixes=fixes, story=story)

    def replace_fixes(self, analysis: Analysis, ci: CiValue, value: str | None, safe: bool = True) -> Iterator[Fix]:
        """Replace the literal with `value`; an unsafe replacement (one that changes what runs where the value
        still works) says so in its title."""
        if value is None:
            return
        starts = line_starts(analysis.text)
        literal = analysis.text[offset(starts, ci.span.start):offset(starts, ci.span.end)]
        new = value if value == _NONE else quote_like(literal, value)
        if safe:
            yield Fix(f"Replace with `{new}`", (Edit(ci.span, new),), preferred=True)
        else:
            yield Fix(FULL_PRECISION_TITLE.format(new=new), (Edit(ci.span, new),), preferred=True,
                      applicability=UNSAFE)
        yield self.ignore_fix(analysis, ci.span)

    def story(self, target: Target, ci: CiValue, body: list[str]) -> str:
        valid = ", ".join(f"`{v}`" for v in target.valid_cache_implementations
                          if v not in target.deprecated_cache_implementations)
        return "\n".join([f"**{self.code} {self.name}**: `cache_implementation=\"{ci.value}\"`.", "", *body, "",
                          f"Values transformers {target} accepts: {valid}."])
