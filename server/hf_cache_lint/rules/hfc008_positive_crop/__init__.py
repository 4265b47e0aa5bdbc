"""HFC008 positive-crop: `cache.crop(n)` with a positive `n`, which 5.20+ refuse; `cache.crop(0)`, a no-op from 5.14
(4.x emptied the cache); a crop of a cache with sliding-window layers, which 4.56+ refuse once the window is full."""

from __future__ import annotations

import re
from collections.abc import Iterable

from hf_cache_lint.engine.base.findings import UNSAFE, Edit, Finding, Fix, Severity
from hf_cache_lint.engine.environment import releases
from hf_cache_lint.engine.facts.cache_crop import KIND as CACHE_CROP
from hf_cache_lint.engine.facts.cache_crop import CacheCrop
from hf_cache_lint.engine.output.analysis import Analysis
from hf_cache_lint.engine.syntax.use_scope import scope_at
from hf_cache_lint.engine.text.text import line_starts, offset
from hf_cache_lint.rules.base import Rule
from hf_cache_lint.rules.hfc008_positive_crop.examples import (
    EMPTY_TITLE,
    FULL_LAYERS_TITLE,
    INVALID,
    KEEP_LENGTH_TITLE,
    KEEP_TITLE,
)
from hf_cache_lint.rules.hfc008_positive_crop.valid import VALID


class PositiveCrop(Rule):
    code = "HFC008"
    name = "positive-crop"
    summary = ("`cache.crop(n)` with a positive `n` (transformers 5.20+ raise a ValueError), `crop(0)` (a no-op from "
               "5.14: the cache is not emptied), or on a sliding-window model's cache (4.56+ raise once it holds more "
               "tokens than the window).")
    default_severity = Severity.ERROR
    reads = frozenset({CACHE_CROP})
    valid = VALID
    invalid = INVALID

    def check(self, analysis: Analysis) -> Iterable[Finding]:
        target = analysis.context.target
        zeros = set()  # a helper's `crop(0)` reached with several caches: reported once, for the first
        for crop in analysis.of(CACHE_CROP):
            if target.positive_crop_raises and self.positive(crop):
                # A `try` that catches the ValueError (axolotl's chat: `except Exception:` starts a new cache)
                # says the code expects the crop to fail: nothing raises out of it.
                if not scope_at(analysis.tree, crop.span).handles("ValueError"):
                    yield self.positive_crop(analysis, crop)
            elif crop.value == 0 and target.crop_zero_keeps:
                if crop.span not in zeros:
                    zeros.add(crop.span)
                    yield self.zero_crop(analysis, crop)
            elif crop.window is not None and target.sliding_crop_error is not None and crop.value != 0:
                error, since = target.sliding_crop_error
                # The same for the sliding-window error, by its own class (a ValueError before 5.15, a RuntimeError
                # from it): `except RuntimeError:` around a rollback expects 5.x's, not 4.57's.
                if not scope_at(analysis.tree, crop.span).handles(error.split(":", 1)[0]):
                    yield self.sliding_crop(analysis, crop, error, since)

    @staticmethod
    def positive(crop: CacheCrop) -> bool:
        """A positive constant, or an expression not written as a negative count (a negative value removes that
        many tokens; `crop(0)` is no error either)."""
        if crop.value is not None:
            return crop.value > 0
        return not _written_negative(crop.argument_text)

    def zero_crop(self, analysis: Analysis, crop: CacheCrop) -> Finding:
        """`cache.crop(0)` (4.x: keep no token, the cache emptied): from 5.14 the count of tokens to remove, so none
        is (silent; the oracle's release case `crop_zero_keeps`). The fix removes every token by its negative count,
        what `crop` means on 4.57 (the length less that many) and on 5.x (that many removed) alike."""
        target = analysis.context.target
        first = releases.behaviour("crop_zero_keeps").first
        message = (f"`{crop.receiver}.crop(0)` on {crop.cache}: from transformers {first} `crop` takes the number of "
                   f"tokens to remove, so on transformers {target} `crop(0)` removes none and the cache keeps every "
                   "token (no error); before, 0 was the length to keep and the cache was emptied")
        fixes = [*self.empty_fix(crop), self.ignore_fix(analysis, crop.span)]
        return self.report(
            crop.span, message, severity=Severity.WARNING, fixes=tuple(fixes),
            story=f"4.x and 5.0-5.13 read `crop(n)` as the length to keep, so `crop(0)` emptied the cache; from "
                  f"{first} a non-negative argument keeps every token. `crop(-cache.get_seq_length())` removes every "
                  "token on both readings.")

    @staticmethod
    def empty_fix(crop: CacheCrop) -> Iterable[Fix]:
        """`r.crop(0)` -> `r.crop(-r.get_seq_length())`, for a receiver that is a name or an attribute chain (read
        twice, the same value)."""
        if not _PLAIN_RECEIVER.fullmatch(crop.receiver):
            return
        r = crop.receiver
        yield Fix(EMPTY_TITLE, (Edit(crop.span, f"{r}.crop(-{r}.get_seq_length())"),), preferred=True)

    def sliding_crop(self, analysis: Analysis, crop: CacheCrop, error: str, since: str) -> Finding:
        """A crop of a cache the code says has sliding-window layers (the model's family has them): it raises once
        such a layer has seen more tokens than its window, whatever the sign (4.56+; the error changed in 5.15)."""
        target = analysis.context.target
        message = (f"`{crop.receiver}.crop({crop.argument_text})` on {crop.cache}, whose {crop.window} layers include "
                   f"sliding-window ones: once the cache holds more tokens than the window, transformers {target} "
                   f"raises {error} (since {since})")
        # Without a mechanical replacement (a forward's or generate's cache): none (the editor still offers the
        # ignore comment).
        fixes = [*self.full_layers_fix(analysis, crop)]
        if fixes:
            fixes.append(self.ignore_fix(analysis, crop.span))
        story = (f"{crop.window} models give some layers a sliding window. A sliding-window layer keeps only the last "
                 "window of tokens, so it cannot go back once it has seen more than that: from 4.56.0 (the first "
                 "release with `DynamicSlidingWindowLayer`) `crop` raises a ValueError there, and from 5.15.0 a "
                 "RuntimeError that asks for `activate_past_recording()` (which helps only from 5.15) before "
                 "the tokens to roll back are written. A cache built without the model's config (`DynamicCache()`) "
                 "has full layers only and crops on every release.")
        # An Info: it raises only once the cache holds more tokens than the window (Gemma 2: 4096, Gemma 3: 1024),
        # and the code does not say how long the cache gets (the recall set's labels come from tiny models whose
        # window is 32: a Warning would be false wherever a short text is cropped).
        return self.report(crop.span, message, severity=Severity.INFO, fixes=tuple(fixes), story=story)

    @staticmethod
    def full_layers_fix(analysis: Analysis, crop: CacheCrop) -> Iterable[Fix]:
        """`DynamicCache(config=model.config)` -> `DynamicCache()`: full layers, which crop on every release; unsafe,
        since the sliding layers no longer bound the cache's memory (the outputs are the same: the attention mask
        keeps the window)."""
        if crop.built is None:
            return
        starts = line_starts(analysis.text)
        text = analysis.text[offset(starts, crop.built.start):offset(starts, crop.built.end)]
        m = _CONFIG_ONLY.fullmatch(text)
        if m is None:
            return
        yield Fix(FULL_LAYERS_TITLE, (Edit(crop.built, f"{m.group(1)}()"),), preferred=True, applicability=UNSAFE)

    def positive_crop(self, analysis: Analysis, crop: CacheCrop) -> Finding:
        target = analysis.context.target
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
        return self.report(
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
# A cache class built with the model's config and nothing else: `DynamicCache(config=model.config)`.
_CONFIG_ONLY = re.compile(r"([\w.]+)\(\s*config\s*=\s*[\w.]+\s*,?\s*\)", re.DOTALL)


# A receiver whose text reads the same value twice: a name or an attribute chain (`self.cache`).
_PLAIN_RECEIVER = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
