"""HFC008 positive-crop: `cache.crop(n)` with a positive `n`, which 5.20+ refuse."""

from __future__ import annotations

from collections.abc import Iterable

from hf_cache_lint.engine.analysis import Analysis
from hf_cache_lint.engine.facts.cache_crop import KIND as CACHE_CROP
from hf_cache_lint.engine.findings import Edit, Finding, Fix, Severity
from hf_cache_lint.rules.base import Rule
from hf_cache_lint.rules.hfc008_positive_crop.examples import INVALID
from hf_cache_lint.rules.hfc008_positive_crop.valid import VALID


class PositiveCrop(Rule):
    code = "HFC008"
    name = "positive-crop"
    summary = "`cache.crop(n)` with a positive `n`: transformers 5.20+ raise a ValueError."
    default_severity = Severity.ERROR
    reads = frozenset({CACHE_CROP})
    valid = VALID
    invalid = INVALID

    def check(self, analysis: Analysis) -> Iterable[Finding]:
        target = analysis.context.target
        if not target.positive_crop_raises:
            return
        for crop in analysis.of(CACHE_CROP):
            if crop.value <= 0:
                continue
            yield self.report(
                crop.span,
                f"`crop({crop.value})` on {crop.cache}: transformers {target} raises ValueError: Calling `crop` with a "
                f"positive value (`{crop.value}`) is not supported. Please use a negative integer to remove that "
                "number of tokens from the cache instead.",
                fixes=(Fix(f"Crop to {crop.value} tokens as 4.x did",
                           (Edit(crop.argument, f"min(0, {crop.value} - {crop.receiver}.get_seq_length())"),),
                           preferred=True),
                       self.ignore_fix(analysis, crop.span)),
                story=f"4.x read `crop({crop.value})` as the length to keep; 5.20+ take only the number of tokens to "
                      "remove, as a negative integer, and raise on a positive one.")
