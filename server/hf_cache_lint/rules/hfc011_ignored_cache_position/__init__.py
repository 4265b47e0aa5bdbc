"""HFC011 ignored-cache-position: positions transformers no longer passes or takes: a `Cache.update` override or an
attention hook reading `cache_position`, and `cache_position` sent to a forward or to `Cache.update` (5.4+)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from hf_cache_lint.engine.base.findings import UNSAFE, Edit, Finding, Fix, Severity
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.engine.facts.cache_position_sent import KIND as CACHE_POSITION_SENT
from hf_cache_lint.engine.facts.cache_position_sent import CachePositionSent
from hf_cache_lint.engine.facts.hook_override import KIND as HOOK_OVERRIDE
from hf_cache_lint.engine.facts.hook_override import HookOverride, HookRead
from hf_cache_lint.engine.output.analysis import Analysis
from hf_cache_lint.rules.base import Rule
from hf_cache_lint.rules.common import fails_first, raised_before, since
from hf_cache_lint.rules.hfc011_ignored_cache_position.examples import INVALID, REMOVE_TITLE
from hf_cache_lint.rules.hfc011_ignored_cache_position.valid import VALID

_KEY = "cache_position"


class IgnoredCachePosition(Rule):
    code = "HFC011"
    name = "ignored-cache-position"
    summary = ("`cache_position` read in a `Cache.update` override or an attention hook (or any key of the "
               "override's `cache_kwargs`), or sent to a forward or `Cache.update`: transformers 5.4+ neither pass "
               "nor use it.")
    default_severity = Severity.ERROR
    reads = frozenset({HOOK_OVERRIDE, CACHE_POSITION_SENT})
    valid = VALID
    invalid = INVALID

    # A read gets no fix, not even the ignore comment (tests/rules: a finding's first fix is its preferred one):
    # the replacement position changes what the code computes. Dropping `cache_position=` from a forward is offered
    # as unsafe: a sequential loop gets the same tokens on every release, a rollback does not.

    def check(self, analysis: Analysis) -> Iterable[Finding]:
        target = analysis.context.target
        for hook in analysis.of(HOOK_OVERRIDE):
            if hook.guarded:
                continue
            for read in hook.reads:
                if raised_before(hook, read.span, target):
                    continue  # the hook raises at its first use of the cache, before this read (HFC010, HFC007)
                # A `Cache.update` override's `cache_kwargs` read fails on any key (5.4+ pass no dict at all).
                update_kwargs = hook.kind == "cache_update" and hook.parameters[3:4] == (read.container,)
                if read.key == _KEY and not read.container:
                    yield from self._parameter(analysis, hook, read, target)
                elif read.how != "parameter" and (read.key == _KEY or update_kwargs):
                    yield from self._read(analysis, hook, read, target)
        first = target.behaviour_since("static_cache_ignores_cache_position")
        if first is not None:
            for sent in analysis.of(CACHE_POSITION_SENT):
                yield self._sent(analysis, sent, target, first)

    def _read(self, analysis: Analysis, hook: HookOverride, read: HookRead, target: Target) -> Iterator[Finding]:
        if hook.kind == "cache_update":
            if hook.parameters[3:4] != (read.container,):
                return  # only the fourth argument, `cache_kwargs`, held the positions
            first = target.behaviour_since("update_gets_no_cache_kwargs")
            if first is None:
                return
            if _never_runs(hook, target):
                return
            if hook.reached_by is not None and not hook.reached_by:
                return  # no instance reaches transformers' forward or generate: only the project calls `update`
            if fails_first(hook.fails_first, target) if hook.reached_by is None else \
                    all(fails_first(fails, target) for _, fails in hook.reached_by):
                # The class cannot be built there (a bare `super().__init__()` of `Cache`, llama-to-coreml's), or the
                # forward raises before any layer calls `update` (HFC007's, HFC010's findings): no read runs.
                return
            if hook.dict_default:
                if read.how != "subscript":
                    return  # `.get` on the default dict: None, as a guarded read answers
                error = f"KeyError: '{read.key}'"
                defaulted = ": the override falls back on an empty dict, and"
            else:
                error = ("TypeError: 'NoneType' object is not subscriptable" if read.how == "subscript" else
                         "AttributeError: 'NoneType' object has no attribute 'get'")
                defaulted = ""
            yield self.report(
                read.span,
                f"`{read.text}` in {hook.target}: {since(target, first)} calls `update(key_states, "
                f"value_states, layer_idx)` without `{read.container}`{defaulted or ', so'} this raises {error}",
                story="5.4 stopped passing `{\"sin\", \"cos\", \"cache_position\"}` to `Cache.update`; a layer's "
                      "next position is `self.get_seq_length(layer_idx)` before the update, on every release.")
            return
        reference = "prepare_inputs" if hook.kind == "prepare_inputs" else hook.reference
        if not reference or hook.kind == "model_kwargs":
            return
        gone = target.hook_parameter_gone(reference, _KEY)
        if gone is None:
            return
        if read.entry_none:
            # The hook handed its own (None) `cache_position` on by name: the returned inputs hold that None.
            error = "TypeError: 'NoneType' object is not subscriptable" if read.how == "subscript" else \
                f"AttributeError: 'NoneType' object has no attribute '{read.text.rsplit('.', 1)[-1]}'"
            message = (f"`{read.text}` in {hook.target}: {since(target, gone)} no longer passes "
                       f"`cache_position`, so the parameter handed on is None, transformers' hook returns it under "
                       f"'{_KEY}', and this raises {error}")
            severity = Severity.ERROR
        elif read.how == "subscript":
            message = (f"`{read.text}` in {hook.target}: {since(target, gone)} no longer passes "
                       f"`cache_position`, so this raises KeyError: '{_KEY}'")
            severity = Severity.ERROR
        else:
            message = (f"`{read.text}` in {hook.target}: {since(target, gone)} no longer passes "
                       "`cache_position`, so this is None (silently)")
            severity = Severity.WARNING
        yield self.report(read.span, message, severity=severity,
                          story="5.4 removed `cache_position` from every forward and from the hooks generate calls; "
                                "the position of the new tokens is the cache's length before them "
                                "(`cache.get_seq_length()`).")

    def _parameter(self, analysis: Analysis, hook: HookOverride, read: HookRead, target: Target) -> Iterator[Finding]:
        """A `cache_position` parameter of a layer `forward` or a `prepare_inputs_for_generation` override, used
        and never tested against None (engine/interpreter/hooks.py): from 5.4 nothing passes it, so it is None."""
        reference = "prepare_inputs" if hook.kind == "prepare_inputs" else hook.reference
        if not reference:
            return
        gone = target.hook_parameter_gone(reference, _KEY)
        if gone is None:
            return
        passes = f"{since(target, gone)} no longer passes `cache_position` to {hook.target}"
        if read.how == "subscript":
            message = f"`{read.text}`: {passes}, so the parameter is None and this raises TypeError: 'NoneType' " \
                      "object is not subscriptable"
            severity = Severity.ERROR
        elif read.how == "get":
            attribute = read.text.split(".", 1)[1]
            message = f"`{read.text}`: {passes}, so the parameter is None and this raises AttributeError: " \
                      f"'NoneType' object has no attribute '{attribute}'"
            severity = Severity.ERROR
        else:
            message = f"`{read.text}`: {passes}, so the parameter is None there and what the body computes from " \
                      "it is lost (silently)"
            severity = Severity.WARNING
        yield self.report(read.span, message, severity=severity,
                          story="5.4 removed `cache_position` from every forward and from the hooks generate calls; "
                                "an override that takes it as a parameter gets its default, None. The position of "
                                "the new tokens is the cache's length before them (`cache.get_seq_length()`), on "
                                "every release.")

    def _sent(self, analysis: Analysis, sent: CachePositionSent, target: Target, first: str) -> Finding:
        severity = Severity.WARNING
        if sent.via == "forward":
            message = (f"`{sent.text}` given to `{sent.receiver}`: {since(target, first)} ignores "
                       "it: the model writes the new keys at the cache's own length. Where these positions are not "
                       "that length (a rollback or a branch re-sending positions), the keys land after the old ones "
                       "instead of over them, and the output differs (silently)")
            if _from_zero(sent.text) or sent.continues:
                # A prefill's positions (`torch.arange(n)`): what the cache computes itself while it is empty, the
                # only state such positions are right for; nothing the code says shows a rollback. Literal
                # positions right after such a prefill's on the same cache, beginning where it ended (`arange(5)`
                # then `tensor([5])`), are that cache's length too.
                severity = Severity.INFO
        else:
            message = (f"`{sent.text}` given to `{sent.receiver}.update`: {since(target, first)} "
                       "ignores it: a StaticCache writes at its own running length, not at these positions "
                       "(silently)")
        fixes: tuple[Fix, ...] = ()
        if sent.removal is not None:
            fixes = (Fix(REMOVE_TITLE, (Edit(sent.removal, ""),), preferred=True, applicability=UNSAFE),
                     self.ignore_fix(analysis, sent.span))
        return self.report(sent.span, message, severity=severity, fixes=fixes,
                           story="From 5.4 no forward takes `cache_position`, and `Cache.update` takes no "
                                 "positions: the static layers write at their own running length. A sequential "
                                 "loop may drop it (the same tokens on every release); a rollback has no "
                                 "equivalent before 5.24 (`StaticCache.crop(-n)` exists from 5.24.0).")


def _never_runs(hook: HookOverride, target: Target) -> bool:
    """A `Cache.update` override that takes no `**kwargs` (nor a `kwargs` parameter), where the target's attention
    layers call `update(key_states, value_states, layer_idx, kwargs=kwargs)` (5.24.0+): the call raises TypeError
    (HFC010's finding) before the body reads anything, so no read in it is what breaks. Not where the module's own
    patched attention calls `update` itself (`updated_by_patch`): that call passes what it passes. The oracle:
    `update(self, key_states, value_states, layer_idx, cache_kwargs=None)` reading `cache_kwargs.get(...)` raises
    AttributeError on 5.23.0 and `TypeError: ... got an unexpected keyword argument 'kwargs'` on 5.24.0 and 5.25.0
    (HFC011's examples)."""
    return hook.var_keyword is None and "kwargs" not in hook.parameters and not hook.updated_by_patch and \
        target.behaviour_since("update_called_with_kwargs") is not None


# `cache_position=torch.arange(n)` / `arange(0, n, ...)`: positions from 0, a prefill's.
_ARANGE_FROM_ZERO = re.compile(r"^cache_position\s*=\s*(?:torch\.)?arange\(\s*(?:0\s*,\s*)?[^,()]+(?:\([^()]*\))?[^,()]*"
                               r"(?:,\s*(?:device|dtype)\s*=[^()]*)*\)$")


def _from_zero(text: str) -> bool:
    return _ARANGE_FROM_ZERO.match(text.strip()) is not None
