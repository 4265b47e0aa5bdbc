"""HFC009 legacy-cache-access: a transformers cache read as the legacy tuples (`cache[i]`, `for k, v in cache:`)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import partial

from hf_cache_lint.engine.analysis import Analysis
from hf_cache_lint.engine.facts.removed_api_use import KIND as REMOVED_API_USE
from hf_cache_lint.engine.facts.removed_api_use import RemovedApiUse
from hf_cache_lint.engine.findings import UNSAFE, Edit, Finding, Fix, Severity
from hf_cache_lint.rules.base import Rule
from hf_cache_lint.rules.hfc009_legacy_cache_access.examples import INVALID
from hf_cache_lint.rules.hfc009_legacy_cache_access.valid import VALID

READS = frozenset({"subscript", "unpack", "unpack4"})
# An EncoderDecoderCache's legacy 4-tuple, part by part: the sub-cache and the layer's attribute that replace it
# (`cache.self_attention_cache.layers[i].keys`, ...; both sub-caches have `.layers` wherever a cache has them).
_SEQ2SEQ_PARTS = (("self_attention_cache", "keys"), ("self_attention_cache", "values"),
                  ("cross_attention_cache", "keys"), ("cross_attention_cache", "values"))


class LegacyCacheAccess(Rule):
    code = "HFC009"
    name = "legacy-cache-access"
    summary = "A transformers cache read as the legacy tuples (`cache[i]`, `for k, v in cache:`): 5.0+ raise."
    default_severity = Severity.ERROR
    reads = frozenset({REMOVED_API_USE})
    valid = VALID
    invalid = INVALID

    def check(self, analysis: Analysis) -> Iterable[Finding]:
        for use in analysis.removed_api:
            if use.kind == "read" and use.name in READS:
                yield self.finding(analysis, use)

    def finding(self, analysis: Analysis, use: RemovedApiUse) -> Finding:
        target = analysis.context.target
        error = _error(use)
        message = f"{_what(use)}; transformers {target} raises {error}. Instead, {_instead(use)}"
        severity = Severity.ERROR
        if use.condition:
            severity = Severity.WARNING
            message += f" This happens only if `{use.condition}` holds."
        return self.report(use.span, message, severity=severity, fixes=self.fixes(analysis, use),
                           story=partial(self.story, analysis, use, error))

    def fixes(self, analysis: Analysis, use: RemovedApiUse) -> Iterator[Fix]:
        fix = _fix(use)
        if fix is not None:
            if not _layers_everywhere(analysis):
                # The admitted range reaches back before `.layers` (4.54.0): there the fixed line raises.
                fix = Fix(fix.title, fix.edits, preferred=fix.preferred, applicability=UNSAFE)
            yield fix
            yield self.ignore_fix(analysis, use.span)
        # Without a mechanical replacement: none (the editor still offers the ignore comment).

    def story(self, analysis: Analysis, use: RemovedApiUse, error: str) -> str:
        target = analysis.context.target
        return "\n".join([
            f"**{self.code} {self.name}**: {_shape(use)} reads {_holder(use)} as the legacy tuples, which "
            f"transformers {target} no longer supports.",
            "",
            f"- **Since**: {use.removed} (4.57 still returns the legacy `(keys, values)` per layer"
            + (", `(self_keys, self_values, cross_keys, cross_values)` for an EncoderDecoderCache" if
               _seq2seq(use) else "") + ").",
            f"- **Instead**: {_instead(use)}.",
            *([f"- **When**: only if `{use.condition}` holds."] if use.condition else []),
            "",
            f"It raises when this line runs (transformers {target}):",
            "",
            f"```\n{error}\n```",
        ])


def _seq2seq(use: RemovedApiUse) -> bool:
    return use.name == "unpack4" or (use.cache is not None and use.cache.cls == "EncoderDecoderCache")


def _error(use: RemovedApiUse) -> str:
    """The exception the read raises, as Python words it (docs/facts.md, the release table's behaviours)."""
    if use.name == "unpack":
        return "ValueError: too many values to unpack (expected 2)"
    if use.name == "unpack4":
        return "ValueError: too many values to unpack (expected 4)"
    cls = use.cache.shown_class if use.cache is not None else "DynamicCache"
    error = f"TypeError: '{cls}' object is not subscriptable"
    if use.cache is not None and use.cache.cls is None:
        error += " (with the class of the cache generate returned: DynamicCache by default)"
    return error


def _shape(use: RemovedApiUse) -> str:
    if use.name == "unpack":
        return f"`for k, v in {use.module}`"
    if use.name == "unpack4":
        return f"`for sk, sv, ck, cv in {use.module}`"
    return f"`{use.module}[{use.index or '...'}]`"


def _holder(use: RemovedApiUse) -> str:
    """What the code says the cache is."""
    if use.cache is not None and use.cache.cls is not None:
        return f"a `{use.cache.cls}`"
    return "the cache of a `generate(..., return_dict_in_generate=True)` result"


def _what(use: RemovedApiUse) -> str:
    shape = _shape(use)
    if use.name == "unpack":
        return (f"{shape}: from {use.removed} a `DynamicCache` iterates as `(keys, values, sliding_window_tensor)`, "
                "so two names no longer unpack it")
    if use.name == "unpack4":
        return (f"{shape}: from {use.removed} an `EncoderDecoderCache` iterates as six-tuples (self keys, values, "
                "sliding tensor, then the cross-attention's), so four names no longer unpack it")
    return (f"{shape}: a transformers cache is not subscriptable from {use.removed} (the legacy `(keys, values)` "
            "indexing is gone)")


def _instead(use: RemovedApiUse) -> str:
    """The replacement, with the code's own receiver and index where the read has them."""
    r = use.module
    if use.name == "unpack":
        return f"iterate the layers: `for layer in {r}.layers:` with `layer.keys`, `layer.values` (4.54+ have them)"
    if use.name == "unpack4" or _seq2seq(use):
        i = use.index if use.index is not None and ":" not in use.index else "i"
        return (f"read the sub-caches' layers: `{r}.self_attention_cache.layers[{i}].keys` / `.values` and "
                f"`{r}.cross_attention_cache.layers[{i}].keys` / `.values` (4.54+ have them)")
    i = use.index if use.index is not None and ":" not in use.index else "i"
    return f"read the layer: `{r}.layers[{i}].keys` / `{r}.layers[{i}].values` (4.54+ have them)"


def _fix(use: RemovedApiUse) -> Fix | None:
    """The mechanical replacement, where one exists (each run on 4.57.6 and 5.x by the oracle)."""
    cache, span = use.cache, use.call_span
    if cache is None or span is None:
        return None
    if use.name == "unpack4":
        return None  # the loop's body reads four names: no one-expression replacement keeps it
    if use.name == "unpack":
        if not cache.layered:
            return None
        return Fix("Iterate `.layers`", (Edit(span, f"((layer.keys, layer.values) for layer in {use.module}.layers)"),),
                   preferred=True)
    index = use.index
    if index is None or ":" in index:
        return None  # a slice or several indices: no single layer to read
    if cache.cls == "EncoderDecoderCache":
        if use.part is None:
            return None
        sub, part = _SEQ2SEQ_PARTS[use.part]
        return Fix(f"Use `.{sub}.layers[{index}].{part}`",
                   (Edit(span, f"{use.module}.{sub}.layers[{index}].{part}"),), preferred=True)
    if not cache.layered or (use.part is not None and use.part > 1):
        return None  # the cache of a model not known to be decoder-only: its tuples may be 4 long
    layer = f"{use.module}.layers[{index}]"
    if use.part is not None:
        return Fix(f"Use `.layers[{index}].{('keys', 'values')[use.part]}`",
                   (Edit(span, f"{layer}.{('keys', 'values')[use.part]}"),), preferred=True)
    if "(" in use.module:
        return None  # the pair would evaluate the receiver (a call) twice
    return Fix(f"Use `.layers[{index}]`", (Edit(span, f"({layer}.keys, {layer}.values)"),), preferred=True)


def _layers_everywhere(analysis: Analysis) -> bool:
    """Whether every release the code is checked for has `.layers` (a range reaching below 4.54 does not)."""
    plan = analysis.context.plan
    releases = plan.releases if plan is not None else (analysis.context.target,)
    return all(t.cache_layers for t in releases)
