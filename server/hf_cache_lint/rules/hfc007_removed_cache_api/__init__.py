"""HFC007 removed-cache-api: a cache class or Cache method the target transformers no longer has."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from hf_cache_lint.engine.analysis import Analysis
from hf_cache_lint.engine.findings import Edit, Finding, Fix, Severity, Span
from hf_cache_lint.engine.removed_api import RemovedApiUse
from hf_cache_lint.engine.text import line_starts, offset
from hf_cache_lint.engine.versions import REMOVED_CACHE_METHODS
from hf_cache_lint.rules.base import Rule
from hf_cache_lint.rules.hfc007_removed_cache_api.examples import INVALID
from hf_cache_lint.rules.hfc007_removed_cache_api.valid import VALID

# What 5.x offers instead of each removed class (checked on 5.24.0: these constructors take these arguments).
REPLACEMENTS: dict[str, str] = {
    "HybridCache": "`StaticCache(config=model.config, max_cache_len=...)` (5.x builds the sliding-window layers "
                   "from the config) or `DynamicCache(config=model.config)`",
    "HybridChunkedCache": "`StaticCache(config=model.config, max_cache_len=...)` or `DynamicCache(config=model.config)`",
    "SlidingWindowCache": "`StaticCache(config=model.config, max_cache_len=...)` or `DynamicCache(config=model.config)`",
    "OffloadedCache": "`DynamicCache(config=model.config, offloading=True)`",
    "OffloadedStaticCache": "`StaticCache(config=model.config, max_cache_len=..., offloading=True)`",
    "QuantoQuantizedCache": '`QuantizedCache(backend="quanto", config=model.config)`',
    "HQQQuantizedCache": '`QuantizedCache(backend="hqq", config=model.config)`',
    "SinkCache": "the `custom_generate` repository `transformers-community/sink_cache` (as 4.57's own "
                 "deprecation says)",
    "MambaCache": "nothing to import: Mamba models build their own cache; pass the previous output's "
                  "`cache_params` back (`cache=` from 5.24)",
}
_CACHE_CLASSES = ("DynamicCache", "StaticCache", "QuantizedCache", "EncoderDecoderCache", "Cache")


class RemovedCacheApi(Rule):
    code = "HFC007"
    name = "removed-cache-api"
    summary = "A cache class or `Cache` method the target transformers no longer has (`HybridCache`, " \
              "`MambaCache`, `to_legacy_cache()`, ... in 5.x): the import or call raises."
    default_severity = Severity.ERROR
    valid = VALID
    invalid = INVALID

    def check(self, analysis: Analysis) -> Iterable[Finding]:
        for use in analysis.removed_api:
            yield self.finding(analysis, use)

    def finding(self, analysis: Analysis, use: RemovedApiUse) -> Finding:
        target = analysis.context.target
        error = _error(use)
        if use.kind == "method":
            instead = REMOVED_CACHE_METHODS[use.name][1]
            message = (f"`{use.name}()` no longer exists in transformers {target} (removed in {use.removed}); "
                       f"this call raises {error}. Instead, {instead}")
        else:
            where = "importing" if use.kind == "import" else "reading"
            message = (f"transformers {target} no longer has `{use.name}` (gone since {use.removed}); {where} it "
                       f"raises {error}. 5.x replacement: {REPLACEMENTS[use.name]}")
        severity = Severity.ERROR
        if use.kind == "method" and not _known_cache(use.module):
            severity = Severity.WARNING
            message += f" (if `{use.module}` is a transformers cache)"
        if use.condition:
            severity = Severity.WARNING
            message += f" This happens only if `{use.condition}` holds."
        return self.report(use.span, message, severity=severity, fixes=self.fixes(analysis, use),
                           story=self.story(analysis, use, error))

    def fixes(self, analysis: Analysis, use: RemovedApiUse) -> Iterator[Fix]:
        ignore = self.ignore_fix(analysis, use.span)
        if use.kind == "method" and use.name == "from_legacy_cache" and use.module == "DynamicCache" \
                and use.call_span is not None and use.argument_span is not None:
            argument = _text(analysis.text, use.argument_span)
            yield Fix("Use `DynamicCache(...)`", (Edit(use.call_span, f"DynamicCache({argument})"),), preferred=True)
            yield ignore
        # Other removals have no mechanical replacement (a class's constructor changed, a tuple the code goes on
        # to read): the editor still offers the ignore comment.

    def story(self, analysis: Analysis, use: RemovedApiUse, error: str) -> str:
        target = analysis.context.target
        if use.kind == "method":
            what = f"`{use.module}.{use.name}(...)`"
            instead = REMOVED_CACHE_METHODS[use.name][1]
        else:
            what = f"`{use.name}` ({'imported from' if use.kind == 'import' else 'read from'} `{use.module}`)"
            instead = REPLACEMENTS[use.name]
        lines = [
            f"**{self.code} {self.name}**: {what} does not exist in transformers {target}.",
            "",
            f"- **Removed in**: {use.removed} (4.57 still has it).",
            f"- **Instead**: {instead}.",
        ]
        if use.condition:
            lines.append(f"- **When**: only if `{use.condition}` holds.")
        return "\n".join([*lines, "", f"It raises when this line runs (transformers {target}):", "",
                          f"```\n{error}\n```"])


def _error(use: RemovedApiUse) -> str:
    """The exception the use raises, as transformers and Python word it."""
    if use.kind == "import":
        return f"ImportError: cannot import name '{use.name}' from '{use.module}'"
    if use.kind == "attribute":
        return f"AttributeError: module transformers has no attribute {use.name}"
    if use.name == "from_legacy_cache" and use.module in _CACHE_CLASSES:
        return f"AttributeError: type object '{use.module}' has no attribute '{use.name}'"
    return f"AttributeError: 'DynamicCache' object has no attribute '{use.name}'" \
        " (with the class of whichever cache it is)"


def _text(text: str, span: Span) -> str:
    starts = line_starts(text)
    return text[offset(starts, span.start):offset(starts, span.end)]


def _known_cache(receiver: str) -> bool:
    """The receiver is a transformers cache as the code says it: a cache class, or a model output's cache."""
    head, _, last = receiver.rpartition(".")
    # `out.past_key_values` is a model output's cache; a bare name (a parameter) may hold anything.
    return receiver in _CACHE_CLASSES or (bool(head) and last in ("past_key_values", "cache", "cache_params"))
