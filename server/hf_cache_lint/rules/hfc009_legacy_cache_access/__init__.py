"""HFC009 legacy-cache-access: a transformers cache read as the legacy tuples (`cache[i]`, `for k, v in cache:`)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from functools import partial

from hf_cache_lint.engine.base.findings import UNSAFE, Edit, Finding, Fix, Position, Severity, Span
from hf_cache_lint.engine.environment import releases as table
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.engine.facts.cache_use import BEAM_CACHE, GENERATE_CACHE, SUB_CACHE, CacheUse
from hf_cache_lint.engine.facts.cache_use import KIND as CACHE_USE
from hf_cache_lint.engine.facts.removed_api_use import KIND as REMOVED_API_USE
from hf_cache_lint.engine.facts.removed_api_use import RemovedApiUse
from hf_cache_lint.engine.output.analysis import Analysis
from hf_cache_lint.engine.syntax.dominance import Dominance
from hf_cache_lint.engine.syntax.nodes import Node, call_args
from hf_cache_lint.engine.syntax.raising_calls import raising_calls
from hf_cache_lint.engine.syntax.use_scope import scope_at
from hf_cache_lint.engine.text.text import line_starts, offset
from hf_cache_lint.rules.base import Rule
from hf_cache_lint.rules.hfc007_removed_cache_api import raising_uses
from hf_cache_lint.rules.hfc009_legacy_cache_access.examples import INVALID
from hf_cache_lint.rules.hfc009_legacy_cache_access.valid import VALID

READS = frozenset({"subscript", "unpack", "unpack4"})
# "items": each item of a layer the loop yields used as a tensor (`[t.clone() for t in layer]`): from 5.0.0 an item
# is the layer's sliding-window tensor, None for a full-attention layer.
# "iterate": any loop over a cache class that no longer iterates at all (a StaticCache from 5.0.0).
# The error each read raises, by the exception's name (a `try` that catches it handles it).
_ERRORS = {"subscript": "TypeError", "unpack": "ValueError", "unpack4": "ValueError", "iterate": "TypeError",
           "items": "AttributeError", "unpack3": "ValueError"}
_PART = re.compile(r"\[\s*([0-3])\s*\]")
# The condition of a read that raises nothing (the silent flattening): it stops nothing it dominates.
_SILENT = "\x00silent"


@dataclass(frozen=True)
class LegacyRead:
    """One legacy-tuple read of a transformers cache, from either source (engine/removed_api.py's walk, or the
    interpreter's `cache_use` facts, which follow the cache into parameters, attributes and helpers).

    `name`: "subscript", "unpack" (two names per item) or "unpack4" (four); `receiver`: its source text; `removed`:
    the first release with the error; `span`: the receiver through the read; `call_span`: what a fix replaces (the
    subscript through a `[0]`-`[3]` part that follows it); `cls`: the cache class the code says (None: a model
    output's cache, DynamicCache by default); `layered`: it has `.layers` (not a seq2seq model's); `index`, `part`:
    `i` and the part of `cache[i][part]`."""

    name: str
    receiver: str
    removed: str
    span: Span
    call_span: Span | None
    condition: str | None
    cls: str | None
    layered: bool
    index: str | None = None
    part: int | None = None
    item: str | None = None  # the loop variable the body unpacks (`for layer in cache: k, v = layer`)
    subclass: str | None = None  # the project's own subclass of `cls` the receiver is (its name is the error's)
    part_of: bool = False  # an `EncoderDecoderCache`'s part (`cache.self_attention_cache`), class unsaid
    passed: bool = False  # the cache generate passes a `prepare_inputs_for_generation` override, class unsaid
    element: tuple[str, str] | None = None  # "items": the name each layer item is bound to, the attribute read on it
    asserted: str | None = None  # the `assert len(<item>) == N` before the unpacking, which raises first
    listed: bool = False  # the loop runs over `list(cache)` (the receiver holds it), not over the cache itself
    beam: bool = False  # the cache generate's beam search passes a `_reorder_cache` override, class unsaid

    @property
    def shown_class(self) -> str:
        return self.subclass or self.cls or "DynamicCache"
# An EncoderDecoderCache's legacy 4-tuple, part by part: the sub-cache and the layer's attribute that replace it
# (`cache.self_attention_cache.layers[i].keys`, ...; both sub-caches have `.layers` wherever a cache has them).
_SEQ2SEQ_PARTS = (("self_attention_cache", "keys"), ("self_attention_cache", "values"),
                  ("cross_attention_cache", "keys"), ("cross_attention_cache", "values"))


class LegacyCacheAccess(Rule):
    code = "HFC009"
    name = "legacy-cache-access"
    summary = "A transformers cache read as the legacy tuples (`cache[i]`, `for k, v in cache:`): 5.0+ raise."
    default_severity = Severity.ERROR
    reads = frozenset({REMOVED_API_USE, CACHE_USE})
    valid = VALID
    invalid = INVALID

    def check(self, analysis: Analysis) -> Iterable[Finding]:
        seen: set[tuple[int, int]] = set()
        findings: list[Finding] = []
        conditions: list[str | None] = []
        for read in self.reads_of(analysis):
            key = (read.span.start.line, read.span.start.column)
            if key not in seen:
                seen.add(key)
                findings.append(self.finding(analysis, read))
                conditions.append(read.condition if read.name != "flatten" else _SILENT)
        # A read that raises wherever it runs (an Error: no condition, not the silent flattening) stops its function
        # there, as HFC007's removed uses do: a later read it dominates (engine/syntax/dominance.py) is never reached
        # on the target (StreamingLLM's `past_key_values[0][0]` length then `for k, v in past_key_values`; two
        # caches cut one after the other), nor one a call of its function dominates (engine/syntax/raising_calls.py).
        dominates = Dominance(analysis.tree) if analysis.tree is not None else (lambda first, later: False)
        # A read that raises under a condition (a Warning: `if "past_key_values" in out:` around both) stops as
        # surely what it dominates under the same condition: the dominated read runs only after it, where the same
        # test held (exporters' `out["past_key_values"][i][0]` then `[i][1]` on the next line, heldout17).
        # HFC007's removed uses that raise wherever they run stop what they dominate as well (LCKV's
        # `dynamic_cache._seen_tokens`, then `dynamic_cache[i]` in the loop after it, heldout16).
        raising: list[Position] = raising_uses(analysis)
        raising_under: list[tuple[Position, str]] = []
        unreached: set[int] = set()
        for i, found in sorted(enumerate(findings), key=lambda f: (f[1].span.start.line, f[1].span.start.column)):
            condition = conditions[i]
            if any(dominates(first, found.span.start) for first in raising) or \
                    any(c == condition and dominates(first, found.span.start) for first, c in raising_under):
                unreached.add(i)
            elif found.severity is Severity.ERROR:
                raising.append(found.span.start)
            elif condition is not None and condition is not _SILENT:
                raising_under.append((found.span.start, condition))
        calls = raising_calls(analysis.tree, raising)
        unreached |= {i for i, found in enumerate(findings) if any(dominates(call, found.span.start) for call in calls)}
        yield from (found for i, found in enumerate(findings) if i not in unreached)

    def reads_of(self, analysis: Analysis) -> Iterator[LegacyRead]:
        """Each read where it raises: `for kv in cache:` with `k, v = kv` in the body raises at the unpacking
        statement, not at the loop (Ouroboros: the header and the unpack on two lines)."""
        for read in self._reads_of(analysis):
            at = _unpacked_at(analysis.tree, read) if analysis.tree is not None else None
            yield read if at is None else replace(read, span=at[0], asserted=at[1])

    def _reads_of(self, analysis: Analysis) -> Iterator[LegacyRead]:
        """The module walk's reads first (they carry their conditions), then the interpreter's, in order."""
        for use in analysis.removed_api:
            # The walk's try/hasattr/condition scope, and compat code returning early after a test of the object.
            guard = use.cache.guard if use.cache is not None else None
            if use.kind == "read" and use.name in READS and not scope_at(analysis.tree, use.span, guard).duck_typed:
                yield _from_removed(use)
        target = analysis.context.target
        reads = {r: target.removed_cache_read(r) for r in READS}
        reads["unpack3"] = _pairs_until(target)
        for u in analysis.of(CACHE_USE):
            read = _from_use(analysis, u, reads)
            if read is not None:
                yield read

    def finding(self, analysis: Analysis, use: LegacyRead) -> Finding:
        target = analysis.context.target
        if use.name == "flatten":
            # No exception: the flat sequence silently changes shape (a Warning, never an Error).
            layer = use.element[0] if use.element else "layer"
            spread = _source(analysis, use.call_span) if use.call_span is not None else "..."
            message = (f"`for {layer} in {use.receiver}` with `{spread}`: from {use.removed} each layer of a "
                       f"`{use.shown_class}` is `(keys, values, sliding_window_tensor)`, so transformers {target} "
                       "adds three items per layer (the third None for a full-attention layer) where "
                       "4.x added two, silently. Instead, spread `(layer.keys, layer.values)` for each layer of "
                       f"`{use.receiver}.layers` (4.54+ have them)")
            if use.condition:
                message += f" This happens only if `{use.condition}` holds."
            return self.report(use.span, message, severity=Severity.WARNING, fixes=(),
                               story=partial(self.story, analysis, use, ""))
        error = _error(use)
        message = f"{_what(use)}; transformers {target} raises {error}. Instead, {_instead(use)}"
        if use.beam:
            message += (f" (`{use.receiver}` is the cache generate's beam search passes to `_reorder_cache` at every "
                        "step: this module runs generate with `num_beams`)")
        severity = Severity.ERROR
        if use.condition:
            severity = Severity.WARNING
            message += f" This happens only if `{use.condition}` holds."
        return self.report(use.span, message, severity=severity, fixes=self.fixes(analysis, use),
                           story=partial(self.story, analysis, use, error))

    def fixes(self, analysis: Analysis, use: LegacyRead) -> Iterator[Fix]:
        fix = _fix(use)
        if fix is not None:
            if not _layers_everywhere(analysis):
                # The admitted range reaches back before `.layers` (4.54.0): there the fixed line raises.
                fix = Fix(fix.title, fix.edits, preferred=fix.preferred, applicability=UNSAFE)
            yield fix
            yield self.ignore_fix(analysis, use.span)
        # Without a mechanical replacement: none (the editor still offers the ignore comment).

    def story(self, analysis: Analysis, use: LegacyRead, error: str) -> str:
        target = analysis.context.target
        if use.name == "unpack3":
            return "\n".join([
                f"**{self.code} {self.name}**: {_shape(use)} reads {_holder(use)} as 5.x's triples.", "",
                f"- **Until**: {use.removed} (before, a `DynamicCache` yields `(keys, values)` per layer).",
                f"- **Instead**: {_instead(use)}.",
                *([f"- **When**: only if `{use.condition}` holds."] if use.condition else []), "",
                f"It raises when this line runs (transformers {target}):", "", f"```\n{error}\n```"])
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
            *([f"It raises when this line runs (transformers {target}):", "", f"```\n{error}\n```"] if error else
              [f"Nothing raises (transformers {target}): each layer adds a third item, None for a full-attention "
               "layer, so what reads the flat sequence by position gets other tensors."]),
        ])


def _pairs_until(target: Target) -> str | None:
    """Where the target's `DynamicCache` iterates as `(keys, values)` pairs: the release its triples start (the
    release table's `cache_iterates_triples`, 5.0.0), for a target before it that has `__iter__` (4.41+)."""
    b = table.behaviour("cache_iterates_triples")
    if table.holds(b.id, target.version) or \
            table.member("transformers.cache_utils", "DynamicCache", "__iter__", target.version) is None:
        return None
    return str(b.first)


def _seq2seq(use: LegacyRead) -> bool:
    return use.name == "unpack4" or use.cls == "EncoderDecoderCache"


def _error(use: LegacyRead) -> str:
    """The exception the read raises, as Python words it (docs/facts.md, the release table's behaviours)."""
    if use.asserted is not None:
        items = 3 if use.name == "unpack" and not _seq2seq(use) else 6
        return f"AssertionError (`{use.asserted}` fails: each layer is {items} items)"
    if use.name == "items" and use.element is not None:
        return f"AttributeError: 'NoneType' object has no attribute '{use.element[1]}'"
    if use.name == "unpack":
        return "ValueError: too many values to unpack (expected 2)"
    if use.name == "unpack4":
        return "ValueError: too many values to unpack (expected 4)"
    if use.name == "unpack3":
        return "ValueError: not enough values to unpack (expected 3, got 2)"
    if use.name == "iterate":
        return f"TypeError: '{use.shown_class}' object is not iterable"
    error = f"TypeError: '{use.shown_class}' object is not subscriptable"
    if use.part_of:
        error += " (with the class of that part: DynamicCache unless the code built it from another cache)"
    elif use.cls is None and use.passed:
        error += " (with the class of the cache generate passes: DynamicCache by default)"
    elif use.cls is None and use.layered:
        error += " (with the class of the cache generate returned: DynamicCache by default)"
    elif use.cls is None:
        # A model not known to be decoder-only: an encoder-decoder returns an EncoderDecoderCache (checked on
        # 5.24.0 with T5), which has no `.layers` of its own.
        error += " (or 'EncoderDecoderCache', the cache an encoder-decoder model returns)"
    return error


def _shape(use: LegacyRead) -> str:
    if use.name == "items" and use.element is not None:
        return f"`{use.element[0]}.{use.element[1]}` for each `{use.element[0]}` in a layer of `{use.receiver}`"
    if use.item is not None and use.name in ("unpack", "unpack4"):
        names = "k, v" if use.name == "unpack" else "sk, sv, ck, cv"
        return f"`for {use.item} in {use.receiver}:` with `{names} = {use.item}`"
    if use.name == "unpack":
        return f"`for k, v in {use.receiver}`"
    if use.name == "unpack4":
        return f"`for sk, sv, ck, cv in {use.receiver}`"
    if use.name == "unpack3":
        return f"`for keys, values, sliding_window in {use.receiver}`"
    if use.name == "iterate":
        return f"`for ... in {use.receiver}`"
    return f"`{use.receiver}[{use.index or '...'}]`"


def _holder(use: LegacyRead) -> str:
    """What the code says the cache is."""
    if use.subclass is not None:
        return f"`{use.subclass}` (a subclass of `{use.cls}`)"
    if use.cls is not None:
        return f"a `{use.cls}`"
    if use.part_of:
        return SUB_CACHE
    if use.passed:
        return "the cache generate passes to `prepare_inputs_for_generation`"
    if use.beam:
        return "the cache generate's beam search passes to `_reorder_cache`"
    return "the cache of a `generate(..., return_dict_in_generate=True)` result"


def _what(use: LegacyRead) -> str:
    shape = _shape(use)
    if use.name == "items":
        six = _seq2seq(use) or (use.cls is None and not use.layered)
        return (f"{shape}: from {use.removed} each layer of "
                f"{'an `EncoderDecoderCache` is a six-tuple' if six else 'a `DynamicCache` is a triple'} whose sliding-window "
                "tensor is None for a layer without a sliding window, so the tensors' attribute is read off None")
    if use.name == "unpack" and use.listed:
        held = f"a `{use.shown_class}`" if use.cls is not None else "a transformers cache (a `DynamicCache` by default)"
        return (f"{shape}: `{use.receiver}` holds `list(...)` of {held}, and from {use.removed} a `DynamicCache` "
                "iterates as `(keys, values, sliding_window_tensor)`, so two names no longer unpack the list's items")
    if use.name == "unpack":
        return (f"{shape}: from {use.removed} a `DynamicCache` iterates as `(keys, values, sliding_window_tensor)`, "
                "so two names no longer unpack it")
    if use.name == "unpack3":
        return (f"{shape}: before {use.removed} a `DynamicCache` iterates as `(keys, values)` pairs (the third item, "
                "the sliding-window tensor, is 5.x's), so three names do not unpack it")
    if use.name == "unpack4":
        return (f"{shape}: from {use.removed} an `EncoderDecoderCache` iterates as six-tuples (self keys, values, "
                "sliding tensor, then the cross-attention's), so four names no longer unpack it")
    if use.name == "iterate":
        return (f"{shape}: a `{use.shown_class}` no longer iterates from {use.removed} (4.x yielded each layer's "
                "`(keys, values)`)")
    return (f"{shape}: a transformers cache is not subscriptable from {use.removed} (the legacy `(keys, values)` "
            "indexing is gone)")


def _instead(use: LegacyRead) -> str:
    """The replacement, with the code's own receiver and index where the read has them."""
    r = use.receiver
    if use.name == "items":
        return (f"read the tensors by name: `for layer in {r}.layers:` with `layer.keys`, `layer.values` (4.54+ have "
                "them; an encoder-decoder's cache: its `self_attention_cache` and `cross_attention_cache`)")
    if use.listed:
        return ("build the list from the cache's layers where it is made: `[(layer.keys, layer.values) for layer in "
                "cache.layers]` in place of `list(cache)` (4.54+ have them)")
    if use.name in ("unpack", "iterate", "unpack3"):
        return f"iterate the layers: `for layer in {r}.layers:` with `layer.keys`, `layer.values` (4.54+ have them)"
    if use.name == "unpack4" or _seq2seq(use):
        i = use.index if use.index is not None and ":" not in use.index else "i"
        return (f"read the sub-caches' layers: `{r}.self_attention_cache.layers[{i}].keys` / `.values` and "
                f"`{r}.cross_attention_cache.layers[{i}].keys` / `.values` (4.54+ have them)")
    i = use.index if use.index is not None and ":" not in use.index else "i"
    if not use.layered:  # the class is not said: the replacement depends on it
        return (f"read the layer: `{r}.layers[{i}].keys` / `.values` for a decoder-only model's cache, "
                f"`{r}.self_attention_cache.layers[{i}]` / `{r}.cross_attention_cache.layers[{i}]` for an "
                "encoder-decoder's (4.54+ have them)")
    return f"read the layer: `{r}.layers[{i}].keys` / `{r}.layers[{i}].values` (4.54+ have them)"


def _fix(use: LegacyRead) -> Fix | None:
    """The mechanical replacement, where one exists (each run on 4.57.6 and 5.x by the oracle)."""
    span = use.call_span
    if span is None or use.listed:
        return None  # `list(cache)`: the list is made elsewhere, the loop's receiver has no `.layers`
    if use.name in ("unpack4", "items", "unpack3"):
        return None  # the loop's body reads four (three) names, or each item: no one-expression replacement keeps it
    if use.name in ("unpack", "iterate"):
        if not use.layered:
            return None
        return Fix("Iterate `.layers`", (Edit(span, f"((layer.keys, layer.values) for layer in {use.receiver}.layers)"),),
                   preferred=True)
    index = use.index
    if index is None or ":" in index:
        return None  # a slice or several indices: no single layer to read
    if use.cls == "EncoderDecoderCache":
        if use.part is None:
            return None
        sub, part = _SEQ2SEQ_PARTS[use.part]
        return Fix(f"Use `.{sub}.layers[{index}].{part}`",
                   (Edit(span, f"{use.receiver}.{sub}.layers[{index}].{part}"),), preferred=True)
    if not use.layered or (use.part is not None and use.part > 1):
        return None  # the cache of a model not known to be decoder-only: its tuples may be 4 long
    layer = f"{use.receiver}.layers[{index}]"
    if use.part is not None:
        return Fix(f"Use `.layers[{index}].{('keys', 'values')[use.part]}`",
                   (Edit(span, f"{layer}.{('keys', 'values')[use.part]}"),), preferred=True)
    if "(" in use.receiver:
        return None  # the pair would evaluate the receiver (a call) twice
    return Fix(f"Use `.layers[{index}]`", (Edit(span, f"({layer}.keys, {layer}.values)"),), preferred=True)


def _layers_everywhere(analysis: Analysis) -> bool:
    """Whether every release the code is checked for has `.layers` (a range reaching below 4.54 does not)."""
    plan = analysis.context.plan
    releases = plan.releases if plan is not None else (analysis.context.target,)
    return all(t.cache_layers for t in releases)


def _from_removed(use: RemovedApiUse) -> LegacyRead:
    cache = use.cache
    item = cache.index if cache is not None and cache.op == "iterate" else None
    return LegacyRead(use.name, use.module, use.removed, use.span, use.call_span, use.condition,
                      cache.cls if cache is not None else None, cache.layered if cache is not None else False,
                      use.index, use.part, item, cache.subclass if cache is not None else None,
                      cache is not None and cache.description == SUB_CACHE,
                      cache is not None and cache.description == GENERATE_CACHE,
                      listed=cache is not None and cache.listed)


def _from_use(analysis: Analysis, u: CacheUse, removed: dict[str, str | None]) -> LegacyRead | None:
    """A subscript or a two- or four-name loop over a cache the interpreter followed, where the target raises on it
    and no `try`, `hasattr` test or compat branch around it says the code expects that."""
    if u.what != "cache" or u.whole is None or (u.listed and (u.op != "iterate" or u.targets != 2)):
        return None  # over `list(cache)`: only two names unpacking each item (the claim the oracle proved)
    not_iterable = analysis.context.target.cache_not_iterable(u.receiver_class or "")
    if u.op == "subscript":
        name = "subscript"
    elif u.op == "iterate" and not_iterable is not None and not u.listed:
        name = "iterate"
        removed = {**removed, name: not_iterable}
    elif u.op == "iterate" and u.targets == 3 and not u.listed and \
            (u.receiver_class == "DynamicCache" or (u.receiver_class is None and u.layered)):
        # 5.x's triples unpacked on a release whose DynamicCache still yields pairs (lerobot's PI0 clone of the
        # prefix cache, written for 5.x, run on 4.57.6): not enough values. A cache that may be an encoder-
        # decoder's (4 tensors per layer) would fail otherwise: not claimed.
        name = "unpack3"
    elif u.op == "iterate" and u.targets in (2, 4):
        name = "unpack" if u.targets == 2 else "unpack4"
        # A DynamicCache yields three, an EncoderDecoderCache six: either way two or four names fail. Other
        # classes say otherwise (a StaticCache does not iterate at all on 5.x): not this rule's claim.
        if u.receiver_class not in (None, "DynamicCache", "EncoderDecoderCache"):
            return None
    elif u.op == "iterate" and u.targets is None and u.receiver_class in (None, "DynamicCache", "EncoderDecoderCache") \
            and analysis.tree is not None and (found := _element_read(analysis.tree, u.whole)) is not None:
        # the same behaviours (a DynamicCache's triples, an EncoderDecoderCache's six-tuples: 5.0.0) hold a None
        scope = scope_at(analysis.tree, u.whole, u.guard)
        if removed["unpack"] is None or scope.duck_typed or scope.handles("AttributeError"):
            return None
        # Reported where the error raises: the attribute read off an item (`past_state.index_select`), not the loop.
        element, at = found[:2], found[2]
        return LegacyRead("items", u.receiver, removed["unpack"] or "", at, None, scope.condition,
                          u.receiver_class, u.layered, subclass=u.subclass, part_of=u.description == SUB_CACHE,
                          passed=u.description == GENERATE_CACHE, element=element, beam=u.description == BEAM_CACHE)
    elif u.op == "iterate" and u.targets is None and u.receiver_class in (None, "DynamicCache") and u.layered \
            and analysis.tree is not None and (spread := _flattened(analysis.tree, u.whole)) is not None:
        # `flat.extend(list(layer))` per layer: 5.0.0's triples (the sliding tensor last) add a third item, no error.
        scope = scope_at(analysis.tree, u.whole, u.guard)
        if removed["unpack"] is None or scope.duck_typed:
            return None
        # Reported at the loop over the cache (what changed is the cache's items), naming the spread.
        return LegacyRead("flatten", u.receiver, removed["unpack"] or "", u.whole, spread[1], scope.condition,
                          u.receiver_class, u.layered, subclass=u.subclass, passed=u.description == GENERATE_CACHE,
                          element=(spread[0], ""))
    else:
        return None
    if u.receiver_class not in (None, "DynamicCache", "StaticCache", "EncoderDecoderCache", "QuantizedCache",
                                "Cache") or removed[name] is None:
        return None
    scope = scope_at(analysis.tree, u.whole, u.guard)
    if scope.duck_typed or scope.handles(_ERRORS[name]):
        return None
    index = u.index if name == "subscript" and u.index and ":" not in u.index and "," not in u.index else None
    part, end = None, u.whole.end
    if name == "subscript":
        starts = line_starts(analysis.text)
        after = offset(starts, u.whole.end)
        m = _PART.match(analysis.text, after)
        if m is not None:
            part = int(m.group(1))
            end = Position(u.whole.end.line, u.whole.end.column + (m.end() - after))  # `[0]` on the same line
    call_span = Span(u.whole.start, end) if name == "subscript" else u.whole
    item = u.index if u.op == "iterate" else None
    return LegacyRead(name, u.receiver, removed[name] or "", u.whole, call_span, scope.condition,
                      u.receiver_class, u.layered, index, part, item, u.subclass, u.description == SUB_CACHE,
                      u.description == GENERATE_CACHE, listed=u.listed, beam=u.description == BEAM_CACHE)


def _unpacked_at(tree: Node, read: LegacyRead) -> tuple[Span, str | None] | None:
    """For an unpacking read of a loop `for <item> in <receiver>:` (or `for i, <item> in enumerate(<receiver>):`)
    whose body unpacks the item (`k, v = <item>`): that statement's span, where Python raises; None where the loop
    unpacks in its header. An `assert len(<item>) == N` before it raises first (ONNX Runtime's Whisper export:
    `assert len(present_layer_i) == 4`, then the four names): that statement's span and its test."""
    if read.name not in ("unpack", "unpack4") or read.item is None:
        return None
    at = read.span
    node: Node | None = tree.get_leaf_for_position((at.start.line, at.start.column))
    while node is not None and node.type != "for_stmt":
        node = node.parent
    if node is None or len(node.children) < 6 or not _loops_over(node, read.item, (at.start.line, at.start.column)):
        return None
    for n in _walk(node.children[5]):
        kids = getattr(n, "children", [])
        if n.type in ("funcdef", "classdef", "lambdef"):
            continue
        if n.type == "assert_stmt" and len(kids) >= 2 and \
                re.search(rf"\blen\s*\(\s*{re.escape(read.item)}\s*\)", kids[1].get_code(include_prefix=False)):
            return Span(Position(*n.start_pos), Position(*n.end_pos)), kids[1].get_code(include_prefix=False).strip()
        if n.type == "expr_stmt" and len(kids) == 3 and kids[1].type == "operator" and kids[1].value == "=" \
                and kids[2].type == "name" and kids[2].value == read.item \
                and kids[0].type in ("testlist_star_expr", "exprlist", "atom"):
            return Span(Position(*n.start_pos), Position(*n.end_pos)), None
    return None


def _loops_over(loop: Node, item: str, receiver: tuple[int, int]) -> bool:
    """`for <item> in <receiver>`, or `for i, <item> in enumerate(<receiver>)`."""
    target, iterable = loop.children[1], loop.children[3]
    if target.type == "name":
        return bool(target.value == item and iterable.start_pos == receiver)
    names = [k for k in getattr(target, "children", []) if k.type != "operator"]
    kids = getattr(iterable, "children", [])
    return bool(target.type == "exprlist" and len(names) == 2 and names[1].type == "name" and names[1].value == item
                and iterable.type in ("power", "atom_expr") and len(kids) == 2 and kids[0].type == "name"
                and kids[0].value == "enumerate" and kids[1].type == "trailer"
                and kids[1].children[1].start_pos == receiver)


def _element_read(tree: Node, at: Span) -> tuple[str, str, Span] | None:
    """For a loop (or comprehension) `for layer in <at>` whose body iterates `layer` itself (`for t in layer`, or
    `[t.clone() for t in layer]`) and reads an attribute of each item: that item's name, the attribute and the read's
    span (`t.clone`)."""
    node: Node | None = tree.get_leaf_for_position((at.start.line, at.start.column))
    while node is not None and node.type not in ("for_stmt", "sync_comp_for"):
        node = node.parent
    if node is None or len(node.children) < 4 or node.children[1].type != "name" \
            or node.children[3].start_pos != (at.start.line, at.start.column):
        return None
    layer = node.children[1].value
    region = node.children[5] if node.type == "for_stmt" and len(node.children) > 5 else node.parent
    found = _item_read(region, layer, node)
    if found is None and node.type == "for_stmt":
        # The layer handed to a function of the module that walks it (LMOps' LLMA: `kv = make_kv_tupe(kv, ...)`, whose
        # `for kv in input_kv: kv.shape[2]` reads the None third item on 5.x), by position or by keyword.
        for param, helper in _helpers_given(tree, region, layer):
            found = _item_read(helper.children[-1], param, None)
            if found is not None:
                break
    return found


def _item_read(region: Node, layer: str, skip: Node | None) -> tuple[str, str, Span] | None:
    """In `region`, a loop over the name `layer` (`for t in layer`) whose body reads an attribute of an item."""
    for inner in _walk(region):
        if inner is skip or inner.type not in ("for_stmt", "sync_comp_for") or len(inner.children) < 4:
            continue
        target, iterable = inner.children[1], inner.children[3]
        if target.type != "name" or iterable.type != "name" or iterable.value != layer:
            continue
        body = inner.children[5] if inner.type == "for_stmt" and len(inner.children) > 5 else inner.parent
        for n in _walk(body):
            kids = getattr(n, "children", [])
            if n.type in ("power", "atom_expr") and kids[0].type == "name" and kids[0].value == target.value \
                    and kids[1].type == "trailer" and kids[1].children[0].value == ".":
                return target.value, kids[1].children[1].value, Span(Position(*kids[0].start_pos),
                                                                     Position(*kids[1].end_pos))
    return None


def _helpers_given(tree: Node, region: Node, layer: str) -> Iterator[tuple[str, Node]]:
    """The module-level functions a call in `region` hands the name `layer` to, with the parameter that takes it."""
    defs = {f.name.value: f for f in getattr(tree, "iter_funcdefs", lambda: ())()}
    for n in _walk(region):
        kids = getattr(n, "children", [])
        if n.type not in ("power", "atom_expr") or len(kids) != 2 or kids[0].type != "name" \
                or kids[0].value not in defs or kids[1].type != "trailer" or kids[1].children[0].value != "(":
            continue
        helper = defs[kids[0].value]
        params = [p for p in helper.get_params() if p.star_count == 0]
        for i, arg in enumerate(call_args(kids[1])):
            if arg.star or arg.value.type != "name" or arg.value.value != layer:
                continue
            if arg.name is not None:
                param = next((p.name.value for p in params if p.name.value == arg.name), None)
            else:
                param = params[i].name.value if i < len(params) else None
            if param is not None:
                yield param, helper


def _source(analysis: Analysis, span: Span) -> str:
    starts = line_starts(analysis.text)
    return analysis.text[offset(starts, span.start):offset(starts, span.end)]


def _flattened(tree: Node, at: Span) -> tuple[str, Span] | None:
    """For a loop `for layer in <at>` whose body spreads `layer` into a flat sequence (`list(layer)`,
    `tuple(layer)`, `flat.extend(layer)`, `*layer`): the loop variable and the spread's span."""
    node: Node | None = tree.get_leaf_for_position((at.start.line, at.start.column))
    while node is not None and node.type != "for_stmt":
        node = node.parent
    if node is None or len(node.children) < 6 or node.children[1].type != "name" \
            or node.children[3].start_pos != (at.start.line, at.start.column):
        return None
    layer = node.children[1].value
    for n in _walk(node.children[5]):
        kids = getattr(n, "children", [])
        if n.type == "star_expr" and kids[1].type == "name" and kids[1].value == layer:
            return layer, Span(Position(*n.start_pos), Position(*n.end_pos))
        if n.type not in ("power", "atom_expr") or len(kids) < 2:
            continue
        for i, t in enumerate(kids[1:], 1):
            if t.type == "trailer" and t.children[0].value == "(" and len(t.children) == 3 \
                    and t.children[1].type == "name" and t.children[1].value == layer and \
                    ((i == 1 and kids[0].type == "name" and kids[0].value in ("list", "tuple")) or
                     (i > 1 and kids[i - 1].type == "trailer" and kids[i - 1].children[-1].value == "extend")):
                return layer, Span(Position(*kids[0].start_pos), Position(*t.end_pos))
    return None


def _walk(node: Node | None) -> Iterator[Node]:
    stack = [node] if node is not None else []
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(getattr(n, "children", ())))
