"""HFC010 hook-loses-cache: an overridden or patched generation hook that reads the cache under a name the target
release no longer passes it (or calls transformers' hook in a way the target's signature no longer binds)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from functools import partial

from hf_cache_lint.engine.base.findings import UNSAFE, Edit, Finding, Fix, Position, Related, Severity, Span
from hf_cache_lint.engine.environment import releases
from hf_cache_lint.engine.environment.release_version import Version
from hf_cache_lint.engine.environment.releases_models import removed_model_name
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.engine.facts.cache_use import KIND as CACHE_USE
from hf_cache_lint.engine.facts.cache_use import CacheUse
from hf_cache_lint.engine.facts.decoding_override import KIND as DECODING_OVERRIDE
from hf_cache_lint.engine.facts.fixed_forward import KIND as FIXED_FORWARD
from hf_cache_lint.engine.facts.hook_override import CACHE_NAMES, HookOverride, HookRead
from hf_cache_lint.engine.facts.hook_override import KIND as HOOK_OVERRIDE
from hf_cache_lint.engine.facts.patched_attention import KIND as PATCHED_ATTENTION
from hf_cache_lint.engine.facts.patched_self_read import KIND as PATCHED_SELF_READ
from hf_cache_lint.engine.output.analysis import Analysis
from hf_cache_lint.engine.text.text import line_starts, offset
from hf_cache_lint.rules.base import Rule
from hf_cache_lint.rules.common import cache_moved, fails_first, since
from hf_cache_lint.rules.hfc010_hook_loses_cache import (
    attention_attrs,
    attention_returns,
    cache_off,
    decoding_examples,
    forward_examples,
    forward_keywords,
    full_positions,
    hand_loop,
    loop_examples,
    none_examples,
    override_calls,
    own_carry,
    position_examples,
    renamed_carry,
    swap_examples,
)
from hf_cache_lint.rules.hfc010_hook_loses_cache.examples import (
    DEFAULT_TITLE,
    FED_TITLE,
    INVALID,
    KWARGS_TITLE,
    LENGTH_TITLE,
    NOT_NONE_TITLE,
    PATCH_TITLE,
    READ_TITLE,
    RETURNED_TITLE,
    STORE_TITLE,
    TAKE_TITLE,
    TRUTH_TITLE,
)
from hf_cache_lint.rules.hfc010_hook_loses_cache.valid import VALID


class HookLosesCache(Rule):
    code = "HFC010"
    name = "hook-loses-cache"
    summary = ("A generation hook the code overrides or patches reads the cache under a name transformers no longer "
               "passes it (5.24's `cache=`, 4.56's `past_key_values=`), or binds transformers' hook by position.")
    default_severity = Severity.ERROR
    reads = frozenset({HOOK_OVERRIDE, CACHE_USE, FIXED_FORWARD, PATCHED_ATTENTION, PATCHED_SELF_READ,
                       DECODING_OVERRIDE})
    valid = VALID + forward_examples.VALID + decoding_examples.VALID + loop_examples.VALID + \
        position_examples.VALID + none_examples.VALID + swap_examples.VALID
    invalid = INVALID + forward_examples.INVALID + decoding_examples.INVALID + loop_examples.INVALID + \
        position_examples.INVALID + none_examples.INVALID + \
        swap_examples.INVALID

    def check(self, analysis: Analysis) -> Iterable[Finding]:
        target = analysis.context.target
        for fixed in analysis.of(FIXED_FORWARD):  # a model subclass's forward without a keyword generate hands it
            unexpected = forward_keywords.finding(self, analysis, fixed)
            if unexpected is not None:
                yield unexpected
        unpacking: set[str] = set()  # the patched-in forwards whose return every layer fails to unpack
        miscounted: set[str] = set()  # those whose call raises TypeError first: their return would fail next
        for patched in analysis.of(PATCHED_ATTENTION):  # a patched attention returning another count
            unpacks = attention_returns.finding(self, analysis, patched)
            if unpacks is not None:
                unpacking.add(patched.function)
                yield unpacks
            elif attention_returns.miscounted(analysis, patched):
                miscounted.add(patched.function)
        raising: set[str] = set()  # the patched-in forwards reading a name their class no longer has
        reported: set[Span] = set()  # one function patched onto several classes reads at one place
        unbound = _unbound_forwards(self, analysis) if analysis.of(PATCHED_SELF_READ) else set()
        for read in analysis.of(PATCHED_SELF_READ):
            if read.function in unbound:
                continue  # the layer's call of it raises TypeError before its body reads anything (below)
            lacks = attention_attrs.finding(self, analysis, read)
            if lacks is not None:
                raising.add(read.function)
                if lacks.span not in reported:
                    reported.add(lacks.span)
                    yield lacks
        for override in analysis.of(DECODING_OVERRIDE):  # a decoding method generate's call cannot bind
            binds = override_calls.finding(self, analysis, override)
            if binds is not None:
                yield binds
        yield from hand_loop.findings(self, analysis)  # a decode loop of the code's own calling transformers' hook
        yield from hand_loop.direct_findings(self, analysis)  # transformers' hook called with a cache and no positions
        yield from own_carry.findings(self, analysis)  # a loop carrying the cache into the hook's dict itself
        yield from renamed_carry.findings(self, analysis)  # transformers' update carrying it to a hook of the module's
        for hook in analysis.of(HOOK_OVERRIDE):
            if hook.kind == "model_kwargs" and not _generate_calls(hook, target):
                continue  # no method of the target's generate: only the project's own code calls it, with its keys
            if _patch_raises(hook, target):
                continue  # its block raises AttributeError at the target first (HFC007's read): the hook never runs
            # The hook's signature bound to how the release calls it first: where that raises TypeError the hook
            # never runs, so what it would read (the branches below) is not what breaks.
            binds = override_calls.hook_finding(self, analysis, hook)
            if binds is not None:
                yield binds
                continue
            if hook.kind == "forward" and (hook.qualname in unpacking or hook.qualname in raising):
                # Each call of it returns a count the layer cannot unpack (ValueError, reported above): what it
                # would have read of the cache is never used (the oracle: `recall:heldout7/duo_attention_patch.py`
                # raises ValueError at every release, its `past_key_value` None or not).
                continue
            if hook.kind == "forward" and hook.qualname in miscounted:
                # Taking the keyword would only reach the return the layers cannot unpack (ValueError): no fix of
                # the keyword alone makes it run (the oracle: this rule's PAI-shaped example).
                yield from (replace(f, fixes=()) for f in self._hook(analysis, hook, target))
                continue
            yield from self._hook(analysis, hook, target)

    def _hook(self, analysis: Analysis, hook: HookOverride, target: Target) -> Iterator[Finding]:
        stopped = False
        for finding in self._positional_super(analysis, hook, target):
            stopped = stopped or finding.severity == Severity.ERROR
            yield finding
        yield from self._update_signature(analysis, hook, target)
        if not stopped:
            positions = full_positions.finding(self, analysis, hook)
            if positions is not None:
                yield positions
            yield from self._empty_layer(analysis, hook, target)
            if positions is None:
                yield from self._truthy_cuts(analysis, hook, target)
        if hook.compat or stopped:
            return  # reads the cache as `cache` too; or the super() call raises before the cache matters
        yield from self._never_fed(analysis, hook, target)
        for read in hook.reads:
            if read.key in CACHE_NAMES and not read.returned:
                yield from self._lost(analysis, hook, read, target)
        returned = [r for r in hook.reads if r.returned and r.key == "past_key_values"]
        if returned:
            yield from self._returned(analysis, hook, returned, target)

    # -- the cache read under its old name ------------------------------------------------------------------------

    def _lost(self, analysis: Analysis, hook: HookOverride, read: HookRead, target: Target) -> Iterator[Finding]:
        moved = cache_moved(hook, read.key, target)
        if moved is None:
            return
        now, first = moved
        where = f"transformers {target}"
        gone = f" (`{read.key}` no longer since {first})" if first != str(target) else ""
        call = hook.positional_super
        if read.how == "parameter" and hook.kind == "forward" and call is not None and call.spreads and \
                read.key in call.arguments:
            slots = _positional(target.hook_signature(hook.reference))
            at = call.arguments.index(read.key)
            if at < len(slots) and slots[at] == now:
                # Handed on by position into the slot now named `cache`, which `**kwargs` also holds.
                yield self.report(
                    call.span,
                    f"{hook.target} takes the cache as `{read.key}` and passes it on by position, where {where} "
                    f"takes `{now}`{gone}, which the layer also passes in `**kwargs`: this raises TypeError: "
                    f"{hook.base or 'the'}.forward() got multiple values for argument '{now}'",
                    fixes=(*_take_fixes(hook, read), self.ignore_fix(analysis, call.span)),
                    story=f"transformers {first} renamed the keyword the layers receive the cache under to `{now}`.")
                return
        if read.how == "parameter" and hook.none_read is not None and hook.none_read[0] == read.key and \
                not _binds_no_cache_keyword(hook, now):
            # The body's first use of the parameter dereferences it before any test: with the parameter None it
            # raises there, at the hook's first call (the traceback's last line of the project's own code), whatever
            # it would have read later (a member gone from the release's caches included).
            _, place, text, error = hook.none_read
            yield self.report(
                place,
                f"`{text}` in {hook.target}: {where} passes the cache as `{now}=`{gone}, so `{read.key}` is None "
                f"here and this raises {error} at the hook's first call",
                fixes=(*_take_fixes(hook, read), self.ignore_fix(analysis, place)),
                story=f"transformers {first} renamed the keyword its generation hooks receive the cache under to "
                      f"`{now}`. A hook taking only the old name gets its default, None, and a body that uses it "
                      "before testing it raises. Reading both names works on every release.")
            return
        if read.how == "parameter" and hook.kind == "prepare_inputs" and _reads_gone_member(hook, target):
            return  # it raises wherever it gets the cache (HFC007's read); here it runs its no-cache path
        if hook.kind == "prepare_inputs" and cache_off.forward_turns_cache_off(analysis, hook.qualname):
            return  # the model's own forward never keeps a cache: the no-cache path is the one it always needs
        place = read.span
        related: tuple[Related, ...] = ()
        if read.how == "parameter" and hook.kind == "prepare_inputs" and hook.guarded_read is not None and \
                read.key == "past_key_values":
            # Reported on the parameter, as every finding on what a hook takes (docs.md, "Where a hook finding
            # stands"): the branch its test of the parameter opens, which never runs once the parameter is None, is
            # where the effect shows, named in the message and attached as related information.
            branch, text, test = hook.guarded_read
            message = (f"{hook.target} takes the cache as `{read.key}`, but {where} passes it as `{now}=`{gone}: "
                       f"`{read.key}` is None there, so the branch under `{test}` never runs (its first read of the "
                       f"cache, `{text}`, line {branch.start.line}): the hook takes its no-cache path at every step "
                       "(it feeds the whole sequence again, silently or until the model's shapes disagree)")
            related = (Related(branch, f"never runs on transformers {target}: `{read.key}` is None there"),)
            severity = Severity.WARNING
        elif read.how == "parameter" and _binds_no_cache_keyword(hook, now):
            # transformers' decoder layer calls its attention by keyword (`hidden_states=`, `attention_mask=`,
            # `position_ids=`, then the cache, on 4.52.4-5.25.0): the cache's keyword is the first the hook lacks.
            message = (f"{hook.target} takes the cache as `{read.key}` and no `**kwargs`, but {where} passes it as "
                       f"`{now}=`{gone}: this raises TypeError: {hook.target.split('`')[1]}() got an unexpected "
                       f"keyword argument '{now}'")
            severity = Severity.ERROR
        elif read.how == "parameter":
            message = (f"{hook.target} takes the cache as `{read.key}`, but {where} "
                       f"passes it as `{now}=`{gone}: `{read.key}` is None there, so the hook runs without the cache "
                       "(silently)")
            if hook.kind == "prepare_inputs":
                message += ("; an override that feeds only the new token once it has a cache re-runs the whole "
                            "sequence every step")
            severity = Severity.WARNING
        elif read.how == "write":
            # A pre-hook handing the layer a cache of its own under a name the layer no longer takes: the layer is
            # called with its own keyword as well (`{now}=`, None without a cache), which it uses; the stored one
            # goes into its `**kwargs` (or, where it is the deprecated alias, is dropped with a warning).
            message = (f"`{read.text} = ...` in {hook.target}: {where} passes the layer the cache as `{now}=`"
                       f"{gone}, and uses that one (None where the caller passes no cache), so the cache stored here "
                       f"under `{read.key}` is ignored: the layer never reads or updates it (silently)")
            severity = Severity.WARNING
        elif read.how == "subscript":
            message = (f"`{read.text}` in {hook.target}: {where} passes the cache as `{now}`{gone}, so this raises "
                       f"KeyError: '{read.key}'")
            severity = Severity.ERROR
        else:
            message = (f"`{read.text}` in {hook.target}: {where} passes the cache as `{now}`{gone}, so this returns None "
                       "and the hook runs without the cache (silently)")
            severity = Severity.WARNING
        fixes = [*_take_fixes(hook, read), self.ignore_fix(analysis, place)]
        story = (f"transformers {first} renamed the keyword its generation hooks receive the cache under to `{now}`. "
                 "A hook written for the old name still runs, but finds no cache where it looks. Reading both names "
                 "works on every release.")
        if read.how == "write":
            story = (f"transformers {first} renamed the keyword its layers pass the cache under to `{now}`. A "
                     "pre-hook that stores a cache under the old name still runs, but the layer uses the one passed "
                     "under the new name. Storing under the name the layer was called with works on every release.")
        yield self.report(place, message, severity=severity, fixes=tuple(fixes), related=related, story=story)

    # -- `past_key_values[0][0].shape` on the empty cache generate builds before the first step --------------------

    def _empty_layer(self, analysis: Analysis, hook: HookOverride, target: Target) -> Iterator[Finding]:
        """A 4.x override whose first read of its cache, under a test that lets a cache through (`if past_key_values
        is not None:`, `if past_key_values:`), takes a tensor's shape off the legacy pair (`past_key_values[0][0]
        .shape[2]`). From 4.56.0 to 4.57.x generate hands the hook, at the first step, the cache it has just built
        with one layer per decoder layer and nothing in them: the pair is `(None, None)` and the shape read raises
        (the oracle: `AttributeError: 'NoneType' object has no attribute 'shape'` on 4.57.6; 4.52.4 and 4.53.0 build
        no layers and raise KeyError on the subscript; 5.x have no subscript at all, HFC009's finding)."""
        if hook.kind != "prepare_inputs" or hook.guarded_read is None or not target.version >= _EMPTY_LAYERS_FIRST \
                or target.version >= _EMPTY_LAYERS_GONE:
            return
        place, text, test = hook.guarded_read
        if test not in ("past_key_values is not None", "past_key_values") or \
                not re.fullmatch(r"\w+\[\s*\d+\s*\]", text):
            return
        if _in_def(analysis, place, hook.function) and not _directly_under(analysis, place, test):
            return  # a further test between (`if isinstance(past_key_values, tuple):`, VibeVoice's): not claimed
        # (A read in a helper the hook calls under the test is that helper's first statement, hook_signatures.py.)
        starts = line_starts(analysis.text)
        rest = analysis.text[offset(starts, place.end):]
        tensor = _TENSOR_READ.match(rest)
        if tensor is None:
            return
        attr = tensor.group(2)
        read = text + tensor.group(0)
        where = f"in {hook.target}" if _in_def(analysis, place, hook.function) else \
            f"in `{_def_name(analysis, place)}`, which {hook.target} calls under `{test}`"
        message = (f"`{read}` {where}: transformers {target}'s generate hands the hook, at the first step, the "
                   "cache it has just built with one layer per decoder layer and nothing in them yet, so "
                   f"`{text}[{tensor.group(1)}]` is None there and this raises AttributeError: 'NoneType' object has "
                   f"no attribute '{attr}' before any token is decoded")
        fixes: list[Fix] = []
        if _LENGTH_READ.fullmatch(read):
            span = Span(place.start, Position(place.end.line, place.end.column + len(tensor.group(0))))
            fixes.append(Fix(LENGTH_TITLE, (Edit(span, "past_key_values.get_seq_length()"),), preferred=True))
        yield self.report(place, message, severity=Severity.ERROR,
                          fixes=(*fixes, self.ignore_fix(analysis, place)),
                          story="From 4.56 generate builds its cache with its layers before the first step: a "
                                "4.x hook that reads the cached length off the legacy pair finds no tensor "
                                "there. `get_seq_length()` answers 0 on that cache, and works on every release.")
    # -- `if past_key_values:` on the empty cache generate builds before the first step ---------------------------

    def _truthy_cuts(self, analysis: Analysis, hook: HookOverride, target: Target) -> Iterator[Finding]:
        """A 4.x override cutting its input to the new tokens `if past_key_values:` (the legacy tuple, None before
        the first step, was falsy until it held something). Where generate builds its cache before the first step
        with one (empty) layer per decoder layer and hands it to the hook as `past_key_values`, that cache's truth
        value is its layer count: the test is True at the first step and the prompt is cut before anything is
        cached (`_FIRST_STEP_CACHE_BUILT`; the oracle: a tiny Llama, 5 prompt tokens, 3 new ones: input lengths 1, 1,
        1 on 4.57.6, 5.3.0, 5.4.0, 5.13.1, 5.19.0 and 5.23.0; 5, 1, 1 on 4.52.4, 4.53.0 and 5.0.0). Silent on a model
        that takes any input length; one whose first step needs the whole prompt raises instead (the oracle:
        `recall:heldout22/minicpmo_omnilmm_session.py` om_prepare_past, `RuntimeError: cannot reshape tensor of 0
        elements` on 4.57.6 and 5.23.0), which the message says."""
        if hook.kind != "prepare_inputs" or not hook.truthy_cuts or \
                target.behaviour_since("cache_reaches_hooks_as_cache") is not None:
            return  # from 5.24 `past_key_values` is None in such a hook: the rename (`_lost`) is what breaks it
        for place, text in hook.truthy_cuts:
            if text == "past_key_values is not None":
                if _first_step_cache_not_none(target):
                    yield self._not_none_cut(analysis, hook, target, place)
                continue
            if not _first_step_cache_built(target):
                continue
            message = (f"`if {text}:` in {hook.target}: transformers {target}'s generate hands the hook, at the "
                       "first step, the empty cache it has just built with one layer per decoder layer, and a "
                       "cache's truth value is its layer count, not the tokens it holds: the test is True there, so "
                       "the branch cuts the prompt before any of it is cached and the model never sees the rest of "
                       "it (silently where the model takes any input: the answer is decoded from the cut prompt; a "
                       "model whose own first step needs the whole prompt, its images or a prefix, raises there "
                       "instead)")
            fix = Fix(TRUTH_TITLE, (Edit(place, "past_key_values is not None and "
                                                "past_key_values.get_seq_length() > 0"),), preferred=True)
            yield self.report(place, message, severity=Severity.WARNING,
                              fixes=(fix, self.ignore_fix(analysis, place)),
                              story="transformers' caches are objects, not the legacy tuples: an empty one generate "
                                    "builds before the first step still counts its layers, so `if "
                                    "past_key_values:` no longer tells the first step from the later ones. "
                                    "`get_seq_length() > 0` does on every release.")

    def _not_none_cut(self, analysis: Analysis, hook: HookOverride, target: Target, place: Span) -> Finding:
        """`if past_key_values is not None:` cutting the input to the last tokens: the legacy hook's idiom (None
        before the first step). Where generate builds its cache before the first step and hands it to the hook as
        `past_key_values` (`_FIRST_STEP_CACHE_BUILT`), that empty cache is not None: the prompt is cut before
        anything is cached (the oracle: this rule's example, 1, 1, 1 tokens instead of 5, 1, 1 on 4.52.4, 4.53.0,
        4.57.6 and 5.23.0, 5, 1, 1 on 5.0.0; `recall:heldout24/openvla_action_tokens.py` ov_empty_first_step). On
        4.52-4.55 that cache has no layers yet (its truth value is False: `if past_key_values:` cuts nothing there),
        but it is not None all the same (`_FIRST_STEP_CACHE_NOT_NONE`)."""
        message = (f"`if past_key_values is not None:` in {hook.target}: transformers {target}'s generate hands the "
                   "hook, at the first step, the empty cache it has just built, which is not None: the branch cuts "
                   "the prompt before any of it is cached and the model never sees the rest of it (silently where "
                   "the model takes any input: the answer is decoded from the cut prompt; a model whose own first "
                   "step needs the whole prompt, its images or a prefix, raises there instead)")
        fix = Fix(NOT_NONE_TITLE, (Edit(place, "past_key_values is not None and "
                                               "past_key_values.get_seq_length() > 0"),), preferred=True)
        return self.report(place, message, severity=Severity.WARNING, fixes=(fix, self.ignore_fix(analysis, place)),
                           story="transformers' generate builds its cache before the first step, where the legacy "
                                 "tuple was None until the model returned one, so `is not None` no longer tells the "
                                 "first step from the later ones. `get_seq_length() > 0` does on every release.")

    # -- the cache handed on from a parameter no release fills ----------------------------------------------------

    def _never_fed(self, analysis: Analysis, hook: HookOverride, target: Target) -> Iterator[Finding]:
        """A `prepare_inputs_for_generation` override returning `"past_key_values": past` where `past` is a
        parameter generate never fills: every release of the table passes the cache by keyword, as
        `past_key_values=` (`cache=` from 5.24.0), into the hook's `**kwargs`, which the body only reads other keys
        from. The forward gets None at every step (ContrastiveDecoding's pre-4.x `past=None` hook; the oracle:
        4.57.6, 5.23.0, 5.24.0, 5.25.0)."""
        handed = hook.handed
        if hook.kind != "prepare_inputs" or handed is None or hook.var_keyword is None or \
                handed[2] in ("past_key_values", "cache") or any(r.key == "past_key_values" for r in hook.reads):
            return
        place, text, name = handed
        first = target.behaviour_since("cache_reaches_hooks_as_cache")
        now = "cache" if first is not None else "past_key_values"
        later = "" if first is not None else " (`cache=` from 5.24.0)"
        message = (f"`{text}` in {hook.target}: transformers {target} passes the cache to the hook as `{now}=`"
                   f"{later}, into `**{hook.var_keyword}`, never as `{name}`, so `{name}` keeps its default and "
                   "the hook hands the model no cache: each step runs without its past (silently; a hook that "
                   "feeds only the new token decodes it without its context)")
        related: tuple[Related, ...] = ()
        if hook.handed_parameter is not None:
            # The body also reads the parameter (tests it, slices by it): a finding on what the hook takes, on the
            # parameter (docs.md, "Where a hook finding stands"), the entry that hands the None on named as related.
            related = (Related(place, f"hands the model `{name}`, None on transformers {target}"),)
            place = hook.handed_parameter
            message = (f"{hook.target} takes the cache as `{name}`, but transformers {target} passes it to the hook "
                       f"as `{now}=`{later}, into `**{hook.var_keyword}`, never as `{name}`: `{name}` keeps its "
                       f"default, so the hook's uses of it see None and `{text}` (line {related[0].span.start.line})"
                       " hands the model no cache: each step runs without its past (silently; a hook that feeds "
                       "only the new token decodes it without its context)")
        fixes: list[Fix] = []
        if hook.insert_at is not None:
            kw = hook.var_keyword
            line = f'{name} = {kw}.pop("cache", {kw}.pop("past_key_values", {name}))\n{hook.indent}'
            # Unsafe: the hook then gets the cache on every release, and what it feeds the model with it (the
            # whole sequence again, where it never slices the prompt) is its own code's.
            fixes.append(Fix(FED_TITLE.format(name=name), (Edit(hook.insert_at, line),), preferred=True,
                             applicability=UNSAFE))
        yield self.report(place, message, severity=Severity.WARNING,
                          fixes=(*fixes, self.ignore_fix(analysis, place)), related=related,
                          story="Generate passes `prepare_inputs_for_generation` the cache by keyword: as "
                                "`past_key_values=` up to 5.23, as `cache=` from 5.24.0. A hook written for an older "
                                "name (`past=`) finds only its default there.")

    # -- the model inputs transformers' own `prepare_inputs_for_generation` returned, read by the old key ----------

    def _returned(self, analysis: Analysis, hook: HookOverride, reads: list[HookRead],
                  target: Target) -> Iterator[Finding]:
        """One finding for the hook's uses of the old key (finding the cache and swapping it are one mechanism, and
        one fix must change them together), at the first, the others named."""
        first = target.behaviour_since("model_inputs_hold_cache")
        if first is None:
            return
        read = reads[0]
        inputs = f"the model inputs transformers' own `prepare_inputs_for_generation` returns to {hook.target}"
        where = f"in transformers {target}" + (f" (since {first})" if first != str(target) else "")
        held = f"{inputs} hold the cache under `\"cache\"` {where}"
        if read.how == "subscript":
            message = f"`{read.text}`: {held}, so this raises KeyError: 'past_key_values'"
        elif read.how == "get":
            message = f"`{read.text}`: {held}, so this returns None: the hook no longer finds the cache (silently)"
        elif read.how == "in":
            answer = "True" if " not in " in read.text else "False"
            message = f"`{read.text}`: {held}, so this is {answer}: the hook takes its no-cache path (silently)"
        else:
            message = f"`{read.text} = ...`: {held}, and the forward uses that one"
        if any(r.how == "write" for r in reads):
            message += ("; a cache stored under `\"past_key_values\"` is ignored (FutureWarning: Both "
                        "`past_key_values` and `cache` are set ... ignoring deprecated `past_key_values=...`), so "
                        "the swap has no effect")
        others = [f"`{r.text}`" for r in reads[1:] if r.how != "write"]
        if others:
            message += f" (also {', '.join(others)})"
        severity = Severity.ERROR if any(r.how == "subscript" for r in reads) else Severity.WARNING
        yield self.report(read.span, message, severity=severity,
                          fixes=(*_returned_fixes(reads), self.ignore_fix(analysis, read.span)),
                          story=f"transformers {first} renamed the key under which `prepare_inputs_for_generation` "
                                "returns the cache to `cache` (the forward's new keyword). Code that wraps the hook "
                                "and finds or swaps the cache by the old key silently stops doing it. Looking under "
                                "both keys works on every release.")

    # -- `super().prepare_inputs_for_generation(input_ids, past_key_values, ...)` ---------------------------------

    def _positional_super(self, analysis: Analysis, hook: HookOverride, target: Target) -> Iterator[Finding]:
        call = hook.positional_super
        if call is None or hook.kind != "prepare_inputs":
            return
        slots = _positional(target.hook_signature("prepare_inputs"))
        for i, argument in enumerate(call.arguments[1:len(slots)], start=1):
            if argument == slots[i] or argument not in hook.parameters:
                continue
            first = _since(target, partial(_binds, index=i, argument=argument))
            if call.spreads and "next_sequence_length" in slots[:len(call.arguments)] and \
                    "next_sequence_length" not in hook.parameters and "next_sequence_length" not in call.arguments:
                message = (f"`super().prepare_inputs_for_generation(...)` passes `{argument}` by position, where "
                           f"{since(target, first)} takes `{slots[i]}`, which generate also passes in "
                           "`**kwargs`: this raises TypeError: GenerationMixin.prepare_inputs_for_generation() got "
                           "multiple values for argument 'next_sequence_length'")
                severity = Severity.ERROR
            else:
                message = (f"`super().prepare_inputs_for_generation(...)` passes `{argument}` by position, where "
                           f"{since(target, first)} takes `{slots[i]}`: the arguments bind to other "
                           "parameters")
                severity = Severity.WARNING
            yield self.report(call.span, message, severity=severity,
                              story="5.3 inserted `next_sequence_length` as the second parameter of "
                                    "`GenerationMixin.prepare_inputs_for_generation`; pass the arguments after "
                                    "`input_ids` by keyword.")
            return

    # -- `Cache.update` overrides without `**kwargs` ---------------------------------------------------------------

    def _update_signature(self, analysis: Analysis, hook: HookOverride, target: Target) -> Iterator[Finding]:
        if hook.kind != "cache_update" or hook.updated_by_patch:
            return  # the module's own patched attention is what calls it
        takes_kwargs = hook.var_keyword is not None or "kwargs" in hook.parameters
        first = target.behaviour_since("update_called_with_kwargs")
        # From 5.4.0 the layers call `update(key_states, value_states, layer_idx)` (no fourth argument; 5.24 adds
        # `kwargs=`): an override requiring a fourth positional raises TypeError ... missing 1 required positional
        # argument (LightCompress's `update(self, key_states, value_states, layer_idx, cache_kwargs)`; the oracle:
        # `recall:heldout14/lightcompress_kv_quant.py` lt_update_signature on 5.23.0).
        missing = hook.required[3] if len(hook.required) > 3 and len(hook.parameters) > 3 and \
            hook.required[3] == hook.parameters[3] else None
        missing_first = target.behaviour_since("update_gets_no_cache_kwargs") if missing is not None else None
        if first is not None and not takes_kwargs:
            missing_first = None  # Python reports the unexpected keyword first (the oracle: 5.24.0, 5.25.0)
        elif missing_first is None:
            return  # takes `kwargs` (or the target passes none) and needs no fourth argument the target omits
        else:
            first = missing_first
        if first is None or not target.cache_class_exists(hook.base):
            return  # a base the target no longer has: that code path cannot run there
        owner = hook.target.split("`")[1]
        if hook.reached_by is None:
            if fails_first(hook.fails_first, target):
                return  # the class cannot be built, or the forward raises in its own `get_seq_length`, first
            call = _only_forward(analysis, {owner.rsplit(".", 1)[0]})
        else:
            # Only transformers' forward calls `update` with the release's arguments: a class whose instances never
            # reach one (the project calls `update` itself, with its own) is not claimed (flash-linear-attention's
            # FLACache, heldout11), nor one that fails first there; a subclass inheriting the override (its own
            # `get_seq_length` mending the owner's) is (the Huginn cache's, heldout11).
            live = {cls for cls, fails in hook.reached_by if not fails_first(fails, target)}
            if not live:
                return
            call = _only_forward(analysis, live)
        fixes: list[Fix] = []
        at_default = dict(hook.default_at).get(missing) if missing is not None else None
        if missing is not None and at_default is not None:
            # Both changes at once (5.4.0 drops the fourth argument, 5.24.0 adds `kwargs=`). Unsafe: the body then
            # gets None there, which it may read (`cache_kwargs["cache_position"]`).
            edits = [Edit(at_default, "=None")]
            if not takes_kwargs and hook.signature_end == at_default:
                edits = [Edit(at_default, "=None, **kwargs")]  # the last parameter: one insertion
            elif not takes_kwargs and hook.signature_end is not None:
                edits.append(Edit(hook.signature_end, ", **kwargs"))
            fixes.append(Fix(DEFAULT_TITLE.format(name=missing), tuple(edits), preferred=True, applicability=UNSAFE))
        elif not takes_kwargs and hook.signature_end is not None:
            fixes.append(Fix(KWARGS_TITLE, (Edit(hook.signature_end, ", **kwargs"),), preferred=True))
        if missing_first is not None and missing is not None:
            message = (f"{hook.target} requires a fourth argument `{missing}`, but {since(target, first)} calls it "
                       "as `update(key_states, value_states, layer_idx)`: this raises TypeError: "
                       f"{owner}() missing 1 required positional argument: '{missing}'")
        else:
            message = (f"{hook.target} takes no `**kwargs`, but {since(target, first)} calls it as "
                       f"`update(key_states, value_states, layer_idx, kwargs=kwargs)`: this raises TypeError: {owner}() "
                       "got an unexpected keyword argument 'kwargs'")
        at = hook.span
        if call is not None:
            # Where the code hands one forward call an instance of the class, the error is raised there (the
            # forward's layers call `update`): the finding goes on that call, naming the override's line.
            at = call.span
            message = (f"`{call.receiver}` (a `{call.subclass}`) given to the forward here: {message} (`update` "
                       f"at line {hook.span.start.line}, called by the forward's attention layers)")
        story = ("The attention layers of 5.24 pass their keyword arguments on to `Cache.update` as `kwargs=`. An "
                 "override that also accepts `**kwargs` runs on every release.")
        if missing_first is not None:
            story = ("From 5.4.0 the attention layers call `Cache.update` with three arguments (no `cache_kwargs`). An "
                     "override whose fourth parameter has a default (and that accepts `**kwargs`) runs on every "
                     "release.")
        yield self.report(at, message, fixes=(*fixes, self.ignore_fix(analysis, at)), story=story)


def _only_forward(analysis: Analysis, classes: set[str]) -> CacheUse | None:
    """The forward call of the module given an instance of one of the project's cache classes `classes` as its
    cache, where there is one call (several: the override itself is the one place to report)."""
    calls = {(u.span.start, u.span.end): u for u in analysis.of(CACHE_USE)
             if u.op == "forward" and u.what == "cache" and u.subclass in classes}
    return next(iter(calls.values())) if len(calls) == 1 else None


def _take_fixes(hook: HookOverride, read: HookRead) -> Iterator[Fix]:
    """Read the cache under 5.24's `cache` first, then under the old name: the same object on every release."""
    if read.how == "parameter":
        if hook.insert_at is None:
            return
        accept: tuple[Edit, ...] = ()
        kw = hook.var_keyword
        if kw is None:
            # An attention hook the layer's call raises on: it accepts the layer's keywords, and takes the cache
            # out of them (the same unsafe patch fix).
            if hook.kind != "forward" or hook.signature_end is None or "kwargs" in hook.parameters:
                return
            kw, accept = "kwargs", (Edit(hook.signature_end, ", **kwargs"),)
        # Popped where the hook hands the cache on by its own name (prepare_inputs returns it in its dict), so it
        # does not go on twice; only read where `**kwargs` goes on as it came.
        handed_on = hook.passes_on or (hook.positional_super is not None and read.key in hook.positional_super.arguments)
        how = "pop" if hook.kind == "prepare_inputs" or handed_on else "get"
        fallback = read.key if read.key == "past_key_values" else f'{kw}.{how}("past_key_values", {read.key})'
        line = f'{read.key} = {kw}.{how}("cache", {fallback})\n{hook.indent}'
        if accept:
            yield Fix(PATCH_TITLE.format(name=read.key), (*accept, Edit(hook.insert_at, line)), preferred=True,
                      applicability=UNSAFE)
            return
        # Run on 4.57.6, 5.23.0 and 5.24.0 for a prepare_inputs override (the same inputs, the same tokens); what a
        # patched layer does with the cache it now gets is its own code's: unsafe there.
        if hook.kind == "prepare_inputs":
            yield Fix(TAKE_TITLE.format(name=read.key), (Edit(hook.insert_at, line),), preferred=True)
        else:
            yield Fix(PATCH_TITLE.format(name=read.key), (Edit(hook.insert_at, line),), preferred=True,
                      applicability=UNSAFE)
        return
    c = read.container
    if read.how == "write":
        # The name the layer was called with, whichever release: 5.24's `cache`, 4.56's `past_key_values`, else the
        # older `past_key_value` (the oracle: the fixed example on 4.57.6, 5.23.0, 5.24.0, 5.25.0).
        new = (f'{c}["cache" if "cache" in {c} else "past_key_values" if "past_key_values" in {c} '
               f'else "past_key_value"]')
        # Unsafe: the layer then reads and updates the stored cache, whose own `update` may not take what the
        # release passes it (LightCompress's, without `**kwargs`, raises on 5.24).
        yield Fix(STORE_TITLE, (Edit(read.span, new),), preferred=True, applicability=UNSAFE)
        return
    if read.how == "subscript":
        new = f'{c}.get("cache", {c}.get("{read.key}"))'
    else:
        method = read.text[len(c) + 1:read.text.index("(")]
        new = f'{c}.{method}("cache", {read.text})'
    yield Fix(READ_TITLE, (Edit(read.span, new),), preferred=True)


def _returned_fixes(reads: list[HookRead]) -> Iterator[Fix]:
    """Each use of the old key, to the key the release holds the cache under, else the old one: the same dict entry
    on every release (run on 4.57.6, 5.23.0, 5.24.0 and 5.25.0: tests/oracle)."""
    edits = []
    for read in reads:
        c, key = read.container, read.key
        if read.how in ("subscript", "get"):
            method = "get" if read.how == "subscript" else read.text[len(c) + 1:read.text.index("(")]
            old = f'{c}.get("{key}")' if read.how == "subscript" else read.text
            new = f'{c}.{method}("cache", {old})'
        elif read.how == "write":
            new = f'{c}["cache" if "cache" in {c} else "{key}"]'
        elif " not in " in read.text:
            new = f'("cache" not in {c} and "{key}" not in {c})'
        else:
            new = f'("cache" in {c} or "{key}" in {c})'
        edits.append(Edit(read.span, new))
    yield Fix(RETURNED_TITLE, tuple(edits), preferred=True)


def _positional(signature: tuple[str, ...]) -> tuple[str, ...]:
    """The parameters a positional argument can fill, in order (up to the first `*`/`**` one)."""
    out = []
    for name in signature:
        if name.startswith("*"):
            break
        out.append(name)
    return tuple(out)


def _binds(target: Target, index: int, argument: str) -> bool:
    slots = _positional(target.hook_signature("prepare_inputs"))
    return index < len(slots) and slots[index] != argument


def _since(target: Target, holds: Callable[[Target], bool]) -> str:
    """The first release r <= target such that `holds(Target(r))` for every release from r to the target."""
    first = target.version
    for release in reversed([r for r in releases.table().releases if r <= target.version]):
        if not holds(Target(release)):
            break
        first = release
    return str(first)


__all__ = ["HookLosesCache"]


def _reads_gone_member(hook: HookOverride, target: Target) -> bool:
    """A `prepare_inputs_for_generation` override that reads, off the cache it takes, a member the target's caches
    lack (`past_key_values.seen_tokens`, gone in 4.54.0): given the cache it raises AttributeError (HFC007 reports
    the read), so it only ever ran on releases before the member went; where transformers passes the cache as
    `cache=` it takes its no-cache path and runs (the oracle: `recall:heldout5/cdkey_hijack_437.py`'s override
    raises on 4.57.6 and 5.23.0 and runs on 5.24.0 and 5.25.0). Losing the cache is not what breaks it."""
    return any(target.removed_member("transformers.cache_utils", "DynamicCache", m) is not None for m in hook.members)


# The keywords transformers' decoder layer passes its attention before the cache (Llama's, on 4.52.4, 4.57.6, 5.0.0,
# 5.23.0, 5.24.0 and 5.25.0: `self.self_attn(hidden_states=..., attention_mask=..., position_ids=..., <cache>=...`).
_BEFORE_CACHE = ("hidden_states", "attention_mask", "position_ids")


def _unbound_forwards(rule: Rule, analysis: Analysis) -> set[str]:
    """The layer `forward` hooks (their `__qualname__`) whose call by the target's layer raises TypeError before the
    body runs, where this rule reports that TypeError: a signature the call cannot bind (`override_calls.
    hook_finding`), or a cache parameter the body uses, no `**kwargs` and not the keyword the layer passes the cache
    under (`_binds_no_cache_keyword`, reported by `_lost`). What their body would read off `self` is never
    read (the oracle: ToolBench's `forward_2(self, hidden_states, attention_mask=None, position_ids=None,
    past_key_value=None, ...)` patched onto `LlamaAttention` raises `TypeError: forward_2() got an unexpected keyword
    argument 'past_key_values'` on 4.57.6 and 5.23.0, `'cache'` on 5.24.0 and 5.25.0, whatever it reads after)."""
    target = analysis.context.target
    out: set[str] = set()
    for hook in analysis.of(HOOK_OVERRIDE):
        if hook.kind != "forward" or not hook.qualname:
            continue
        if override_calls.hook_finding(rule, analysis, hook) is not None:
            out.add(hook.qualname)
            continue
        for read in hook.reads:
            moved = cache_moved(hook, read.key, target) if read.how == "parameter" and read.key in CACHE_NAMES \
                else None
            if moved is not None and _binds_no_cache_keyword(hook, moved[0]) and not hook.compat:
                out.add(hook.qualname)  # `_lost` reports that TypeError on the parameter
    return out


def _binds_no_cache_keyword(hook: HookOverride, now: str) -> bool:
    """An attention `forward` hook without `**kwargs` that takes the keywords the layer passes before the cache but
    not the cache's name at the target: the layer's call raises TypeError there (the oracle: `recall:heldout9/
    h2o_heavy_hitter_llama.py` h2_attention_forward, `longlora_stream_infer.py` ll_noflash_forward, on 4.57.6-5.25.0:
    `unexpected keyword argument 'past_key_values'`, from 5.24.0 `'cache'`)."""
    return hook.kind == "forward" and hook.reference == "attention" and hook.var_keyword is None and \
        now not in hook.parameters and all(p in hook.parameters for p in _BEFORE_CACHE)


def _generate_calls(hook: HookOverride, target: Target) -> bool:
    """A model method taking `model_kwargs` overrides one of the target's `GenerationMixin` methods that takes them
    (`_update_model_kwargs_for_generation`, `_prepare_cache_for_generation`): generate calls only those, with its own
    dict. One of the project's own (`_init_cache_for_generation`, in no release 4.41.0-5.25.0) is called by the project
    alone, with the keys the project put there (the oracle: `recall:heldout13/vibevoice_windowed_cfg.py`'s, which
    gets the cache it stored as `past_key_values` on 4.57.6-5.25.0)."""
    signature = releases.member("transformers.generation.utils", "GenerationMixin", hook.function, target.version)
    return signature is not None and "model_kwargs" in releases.parameters(signature)


def _patch_raises(hook: HookOverride, target: Target) -> bool:
    """A patched-in hook whose block patches a model-module class the target lacks (`modeling_llama.
    LlamaSdpaAttention.forward = f`, gone in 4.48.0): that statement raises AttributeError (HFC007 reports it), so
    the block stops there and the program with it, before any forward runs the hook (the oracle:
    `recall:heldout9/quest_longbench_decode.py` raises at the Sdpa patch on 4.57.6-5.25.0; its `LlamaAttention`
    patch, a statement earlier, never serves a forward)."""
    for path in hook.patched_classes:
        module, _, cls = path.rpartition(".")
        if removed_model_name(module, cls, target.version) is not None:
            return True
    return False


# From 4.56.0 to 4.57.x generate builds the cache it hands `prepare_inputs_for_generation` at the first step with
# its (empty) layers, and the legacy subscript still answers: `(layer.keys, layer.values)`, None before the first
# update (the wheels: `dynamic_cache_kwargs = {"config": self.config}` in `_prepare_cache_for_generation` and
# `self.keys, self.values = None, None` in the layers from 4.56.0; 4.52-4.55 build `DynamicCache()`, no layers, and
# the subscript raises KeyError; 5.0.0 has no subscript). Run on the oracle at 4.57.6.
_EMPTY_LAYERS_FIRST = Version.parse("4.56.0")
_EMPTY_LAYERS_GONE = Version.parse("5.0.0")
# What follows `past_key_values[i]`: a part, then a tensor attribute (`[0].shape`, `[1].size(...)`).
_TENSOR_READ = re.compile(r"\[\s*([01])\s*\]\s*\.\s*(shape|size|dtype|device)\b(\s*\[\s*-?2\s*\]|\s*\(\s*-?2\s*\))?")
# The cached length read off layer 0's keys: the whole of it `get_seq_length()` answers.
_LENGTH_READ = re.compile(r"past_key_values\[0\]\[0\]\.(shape\[(2|-2)\]|size\((2|-2)\))")


def _in_def(analysis: Analysis, place: Span, name: str) -> bool:
    """The code at `place` is in a `def` called `name` (not in a helper it calls)."""
    return _def_name(analysis, place) == name


def _def_name(analysis: Analysis, place: Span) -> str | None:
    node = analysis.tree.get_leaf_for_position((place.start.line, place.start.column)) if analysis.tree else None
    while node is not None and node.type != "funcdef":
        node = node.parent
    return str(node.children[1].value) if node is not None else None


def _directly_under(analysis: Analysis, place: Span, test: str) -> bool:
    """The read at `place` sits in the branch `test` opens with no other test between them (no nested `if`,
    conditional expression, loop or `try`): it runs whenever that test holds."""
    tree = analysis.tree
    if tree is None:
        return False
    node = tree.get_leaf_for_position((place.start.line, place.start.column))
    while node is not None:
        parent = node.parent
        if parent is None or parent.type in ("funcdef", "classdef"):
            return False
        if parent.type == "if_stmt":
            kids = parent.children
            at = kids.index(node)
            return bool(at >= 3 and kids[at - 3].type == "keyword" and kids[at - 3].value == "if" and
                        str(kids[at - 2].get_code()).strip() == test)
        if parent.type in ("ternary", "test", "while_stmt", "for_stmt", "try_stmt", "with_stmt", "lambdef",
                           "comp_for", "sync_comp_for"):
            return False
        node = parent
    return False
# Where generate builds the cache it hands `prepare_inputs_for_generation` at the first step with one empty layer
# per decoder layer (`DynamicCache(config=...)` in `_prepare_cache_for_generation`): 4.56.0 to 4.57.x (the
# wheels: `dynamic_cache_kwargs = {"config": self.config}` from 4.56.0; 4.52-4.55 build `DynamicCache()`, whose
# layers come with the first update: len 0) and from 5.1.0 (5.0.0 builds it only for an explicit
# `cache_implementation`, leaving the default to the model: None at the first step). Run on the oracle: truthy at
# the first step on 4.57.6, 5.3.0, 5.4.0, 5.13.1, 5.19.0, 5.23.0; falsy on 4.52.4, 4.53.0 (len 0), 5.0.0 (None);
# 4.56.x and 5.1.0-5.2.0 read from the wheels.
_FIRST_STEP_CACHE_BUILT = ((Version.parse("4.56.0"), Version.parse("5.0.0")), (Version.parse("5.1.0"), None))


# The releases whose generate hands `prepare_inputs_for_generation`, at the first step, a cache it has built (not
# None), with or without its layers: 4.52.0 (the oracle's oldest, 4.52.4, and 4.53.0 build one without layers) to
# 4.57.x, and from 5.1.0; 5.0.0 leaves it to the model (None at the first step). Earlier releases are not claimed.
_FIRST_STEP_CACHE_NOT_NONE = ((Version.parse("4.52.0"), Version.parse("5.0.0")), (Version.parse("5.1.0"), None))


def _first_step_cache_not_none(target: Target) -> bool:
    return any(first <= target.version and (gone is None or target.version < gone)
               for first, gone in _FIRST_STEP_CACHE_NOT_NONE)


def _first_step_cache_built(target: Target) -> bool:
    return any(first <= target.version and (gone is None or target.version < gone)
               for first, gone in _FIRST_STEP_CACHE_BUILT)
