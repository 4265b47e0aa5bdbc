"""HFC008 positive-crop: `cache.crop(n)` with a positive `n`, which 5.20+ refuse."""

from __future__ import annotations

import re
from collections.abc import Iterable

from hf_cache_lint.engine.base.findings import UNSAFE, Edit, Finding, Fix, Severity
from hf_cache_lint.engine.facts.cache_crop import KIND as CACHE_CROP
from hf_cache_lint.engine.facts.cache_crop import CacheCrop
from hf_cache_lint.engine.output.analysis import Analysis
from hf_cache_lint.rules.base import Rule
from hf_cache_lint.rules.hfc008_positive_crop.examples import INVALID, KEEP_LENGTH_TITLE, KEEP_TITLE
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
            if crop.value is not None and crop.value <= 0:
                continue  # a negative value removes that many tokens; `crop(0)` is no error either
            if crop.value is None and _written_negative(crop.argument_text):
                continue
            shown = str(crop.value) if crop.value is not None else crop.argument_text
            error = (f"ValueError: Calling `crop` with a positive value (`{shown}`) is not supported. Please use a "
                     "negative integer to remove that number of tokens from the cache instead.")
            if crop.value is not None:
                message = f"`crop({shown})` on {crop.cache}: transformers {target} raises {error}"
                severity = Severity.ERROR
            else:
                message = (f"`crop({shown})` on {crop.cache}: when `{shown}` is positive (the length to keep, as "
                           f"4.x read it), transformers {target} raises {error}")
                severity = Severity.WARNING
            fixes = [*self.keep_fix(crop), self.ignore_fix(analysis, crop.span)]
            yield self.report(
                crop.span, message, severity=severity, fixes=tuple(fixes),
                story=f"4.x read `crop({shown})` as the length to keep; 5.15 to 5.19 warn that this is deprecated, "
                      "and 5.20 and later take only the number of tokens to remove, as a negative integer, and "
                      "raise on a positive one.")

    @staticmethod
    def keep_fix(crop: CacheCrop) -> Iterable[Fix]:
        """Crop only a longer cache, by the negative count to remove: what 4.x did with the length to keep, on
        4.57.6 and 5.x alike (4.57's `crop(0)` empties a cache, so an equal length must not crop at all)."""
        if crop.indent is None:
            return
        r, n = crop.receiver, crop.argument_text
        length = f"{r}.get_seq_length()"
        text = f"if {length} > {n}:\n{crop.indent}    {r}.crop({n} - {length})"
        if crop.value is not None:
            yield Fix(KEEP_TITLE, (Edit(crop.span, text),), preferred=True)
            return
        # For an expression it holds on the finding's own premise, a length to keep (not negative): a count to
        # remove written without its minus would be turned into removing more than asked. So: unsafe.
        yield Fix(KEEP_LENGTH_TITLE.format(n=crop.argument_text), (Edit(crop.span, text),), preferred=True,
                  applicability=UNSAFE)


def _written_negative(argument: str) -> bool:
    """`-n`, `-(a - b)`, `n - cache.get_seq_length()`: written as a count to remove (5.x's form: minus, or a
    length less the cache's own), whatever it holds."""
    return argument.lstrip().startswith("-") or _LESS_THE_LENGTH.search(argument) is not None


_LESS_THE_LENGTH = re.compile(r"-\s*[\w.\[\]]*get_seq_length\(\s*\)\s*$")
