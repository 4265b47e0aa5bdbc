"""HFC007 removed-cache-api: a cache class or Cache method the target transformers no longer has."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace
from functools import partial

from hf_cache_lint.engine.base.findings import UNSAFE, Edit, Finding, Fix, Position, Related, Severity, Span
from hf_cache_lint.engine.environment import releases
from hf_cache_lint.engine.environment.api_changes import GENERATION_IMPORT_MODULES, REMOVED_CACHE_METHODS
from hf_cache_lint.engine.environment.release_version import Version
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.engine.facts.backbone_generate import KIND as BACKBONE_GENERATE
from hf_cache_lint.engine.facts.cache_use import KIND as CACHE_USE
from hf_cache_lint.engine.facts.cache_use import SUB_CACHE, CacheUse
from hf_cache_lint.engine.facts.hook_override import KIND as HOOK_OVERRIDE
from hf_cache_lint.engine.facts.removed_api_use import KIND as REMOVED_API_USE
from hf_cache_lint.engine.facts.removed_api_use import RemovedApiUse
from hf_cache_lint.engine.interpreter.hook_names import is_trailer
from hf_cache_lint.engine.interpreter.hook_trees import walk
from hf_cache_lint.engine.output.analysis import Analysis
from hf_cache_lint.engine.syntax.dominance import Dominance, branch_of
from hf_cache_lint.engine.syntax.nodes import Node, call_args
from hf_cache_lint.engine.syntax.raising_calls import callers_of, raising_calls
from hf_cache_lint.engine.text.text import line_starts, offset
from hf_cache_lint.rules.base import Rule
from hf_cache_lint.rules.hfc007_removed_cache_api import (
    backbone,
    constructors,
    helper_reads,
    max_length,
    member_examples,
    model_names,
    patched_helpers,
    property_writes,
)
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
    # Both checked in the wheels: 4.57.6's and 5.24.0's `QuantizedCache.__init__(backend, config, nbits, ...)`,
    # 5.24.0's Jamba modeling builds a `DynamicCache(config=self.config)` when given none.
    "QuantizedCacheConfig": '`QuantizedCache(backend="quanto", config=model.config, nbits=4)` (the settings are '
                            "the constructor's keywords from 4.56)",
    # 4.56.0's cache classes take their settings as constructor keywords; `QuantizedCache(backend, config, nbits,
    # ...)` on 4.57.6 and 5.24.0 (the wheels).
    "CacheConfig": "nothing to import: from 4.56 a cache takes its settings as its constructor's keywords "
                   '(`QuantizedCache(backend="quanto", config=model.config, nbits=4)`); keep a plain class of your own',
    "HybridMambaAttentionDynamicCache": "nothing to import: from 5.5 a Jamba model builds its own cache "
                                        "(`DynamicCache(config=model.config)`); pass the previous output's cache back",
}
# The legacy-tuple reads (`cache[i]`, `for k, v in cache`): HFC009 legacy-cache-access reports them.
LEGACY_READS = frozenset({"subscript", "unpack", "unpack4"})
_CACHE_CLASSES = ("DynamicCache", "StaticCache", "QuantizedCache", "EncoderDecoderCache", "Cache")
# What replaces each removed way of reading a cache (api_changes.REMOVED_CACHE_READS), on 5.x (and 4.57: `.layers`).
READ_REPLACEMENTS: dict[str, str] = {
    "get_max_cache_shape": "`get_max_length()` (5.13 deprecated `get_max_cache_shape` for it)",
    "max_cache_len": "`get_max_length()` (5.13 deprecated `max_cache_len` for it)",
    # 4.57.6's `DynamicCache.get_max_cache_shape()` answers -1 (run on the oracle); 4.46-4.48's answered None.
    "get_max_length": "`get_max_cache_shape()` (4.46-5.19; -1, not None, for a DynamicCache on 4.57.6), or "
                      "`get_max_length()` again from 5.13.0 (-1 for a DynamicCache): none answers None for \"no "
                      "maximum\" any more",
    "key_cache": "read the layer: `cache.layers[i].keys` (4.57 and 5.x have it)",
    "value_cache": "read the layer: `cache.layers[i].values` (4.57 and 5.x have it)",
    # 4.53.3's `get_usable_length` returned `get_seq_length(layer_idx)` for a cache without a maximum length
    # (cache_utils.py), and `seen_tokens` the tokens the cache had taken in.
    "seen_tokens": "`get_seq_length()` (4.57 and 5.x have it)",
    "get_usable_length": "`get_seq_length(layer_idx)` (what it returned for a cache without a maximum length; "
                         "4.57 and 5.x have it)",
    # The model flags gone from 4.54 (every model takes the Cache classes since): `getattr` with the answer the
    # flag gave runs on both sides.
    "_supports_cache_class": "drop the check (every model takes the Cache classes from 4.54), or "
                             '`getattr(model, "_supports_cache_class", True)`, which runs on both sides',
    "_supports_static_cache": "drop the check, or `getattr(model, \"_supports_static_cache\", True)`, which runs on "
                              "both sides",
    "_supports_quantized_cache": "drop the check, or `getattr(model, \"_supports_quantized_cache\", True)`, which "
                                 "runs on both sides",
    # StaticCache(config=..., max_cache_len=...) runs on 4.57.6 and 5.x (HFC007's and HFC008's examples).
    "_get_cache": "build the cache yourself: `StaticCache(config=model.config, max_cache_len=...)` (or "
                  "`DynamicCache(config=model.config)`), which 4.57 and 5.x both take",
    # 5.23.0's Mamba layer (run on the oracle): `recurrent_states` and `conv_states`, per layer.
    "ssm_states": "no drop-in replacement: from 5.5 the model's `cache_params` is a `DynamicCache` whose layers "
                  "hold the states (`cache_params.layers[i].recurrent_states` on 5.23)",
    # 5.23.0's StaticLayer has `batch_size`, 4.57.6's `max_batch_size` (run on the oracle): none runs on both.
    "max_batch_size": "no attribute of both sides: the batch size the code built the cache with, or "
                      "`cache.layers[0].batch_size` on 5.23",
}
# What a use the release table knows but this table does not is told instead.
_NO_REPLACEMENT = "no drop-in replacement (the release table shows the name gone from that release on)"
_OLD_PART = {"key_cache": "keys", "value_cache": "values"}
# The reads `_read_fix` may have a fix for (where it has none, the ignore comment is still the last fix offered).
_READ_FIXES = frozenset({"get_max_cache_shape", "max_cache_len"})
# A model flag whose `getattr` with a default gives what the flag gave on every release: 4.53.3's
# PreTrainedModel default is False (a model class that took Cache classes set True), and every model takes them
# from 4.54, where the flag is gone.
_FLAG_DEFAULT = {"_supports_cache_class": "True"}
_GONE_BEFORE_457 = frozenset({"key_cache", "value_cache", "seen_tokens", "get_usable_length"})
# `cache.update` takes (keys, values, layer_idx) on 4.57.6, 5.0.0 and 5.24.0 (run by the oracle).
SILENT_INSTEAD = "fill the cache through its layers: `cache.update(keys, values, layer_idx)`"
DEFAULTED_INSTEAD = ("read the layers (4.54+): `[layer.keys for layer in cache.layers]`; an empty cache is "
                     "`cache.get_seq_length() == 0` on every release")


def _first_layer_tests(analysis: Analysis) -> list[tuple[tuple[int, int], frozenset[str]]]:
    """Each `Cache.update` override that transformers' forward or generate reaches here (HFC010's `reached_by`),
    with the tests of its layer index that hold on its first call: the layers call `update` in order from layer 0
    (4.57.6 and 5.x). Read only to narrow (a module without hook facts has no such override), so the screen does not
    need the kind."""
    out: list[tuple[tuple[int, int], frozenset[str]]] = []
    hooks = [h for h in analysis.of(HOOK_OVERRIDE) if h.kind == "cache_update" and h.reached_by]
    if not hooks or analysis.tree is None or _calls_update(analysis.tree):
        return out  # the project's own call may pass any layer first (LogQuant's, KVzip's: heldout6, heldout4)
    for hook in hooks:
        if len(hook.parameters) >= 3:
            p = hook.parameters[2]
            out.append(((hook.span.start.line, hook.span.start.column),
                        frozenset({f"{p} == 0", f"0 == {p}", f"not {p}"})))
    return out


def _calls_update(tree: Node) -> bool:
    """The module calls some `.update(...)` itself, other than its base's (`super().update(...)`,
    `DynamicCache.update(self, ...)`): any receiver may be the cache (a dict's counts too, which only keeps the
    findings)."""
    for node in walk(tree):
        if node.type not in ("power", "atom_expr"):
            continue
        kids = node.children
        for i in range(1, len(kids) - 1):
            if is_trailer(kids[i], ".", "update") and is_trailer(kids[i + 1], "("):
                head = kids[0]
                base = head.type == "name" and (head.value == "super" or head.value[:1].isupper())
                if not base and not _first_layer_call(kids[i + 1]):
                    return True
    return False


def _paired_stores(analysis: Analysis) -> dict[int, RemovedApiUse]:
    """The silent stores `cache.key_cache = ...` and `cache.value_cache = ...` on one receiver, the second of which
    always runs right after the first (it dominates it, under the same condition): one mechanism, the cache's
    tensors replaced by two plain attributes, so one finding, at the first, naming the second (ModelOpt's
    `tuple_to_dynamic_cache`, LLMBox's `to_legacy_cache`). By `id` of the first use: the second. Stores in two
    functions (KVPress's `keep_last_keys`, `keep_last_values`) run apart and stay two findings."""
    if analysis.tree is None:
        return {}
    stores = [u for u in analysis.removed_api if u.silent and u.kind == "read" and u.default is None and
              u.name in ("key_cache", "value_cache")]
    if len(stores) < 2:
        return {}
    dominates = Dominance(analysis.tree)
    paired: dict[int, RemovedApiUse] = {}
    taken: set[int] = set()
    for first in stores:
        if id(first) in taken:
            continue
        for second in stores:
            if second.name != first.name and second.module == first.module and id(second) not in taken and \
                    second.condition == first.condition and dominates(first.span.start, second.span.start):
                paired[id(first)] = second
                taken |= {id(first), id(second)}
                break
    return paired


def _bound_members(analysis: Analysis) -> frozenset[Position]:
    """The removed uses whose member the module binds somewhere with a plain `=` (`kv._seen_tokens = 0` before the
    forward, KVzip's, heldout4): on such an instance the first-layer read does not raise, so it stops nothing."""
    if analysis.tree is None:
        return frozenset()
    stored = set()
    for node in walk(analysis.tree):
        if node.type == "expr_stmt" and len(node.children) >= 3 and node.children[1].type == "operator" and \
                node.children[1].value == "=":
            for target in node.children[:-1:2]:
                if target.type in ("power", "atom_expr") and is_trailer(target.children[-1], "."):
                    stored.add(target.children[-1].children[1].value)
    return frozenset(use.span.start for use in analysis.removed_api if use.name in stored)


def _first_layer_call(call: Node) -> bool:
    """`cache.update(k, v, 0)` / `update(k, v, layer_idx=0)`: the project's own call passes layer 0, so the tests of
    the layer index that hold on transformers' first call hold on it too (KVQ's `kvq.update(keys, values, 0)`)."""
    args = call_args(call)
    index = next((a.value for a in args if a.name == "layer_idx"), None)
    if index is None and len(args) >= 3 and not any(a.name or a.star for a in args[:3]):
        index = args[2].value
    return index is not None and index.type == "number" and index.value == "0"


def raising_uses(analysis: Analysis) -> list[Position]:
    """Where a removed use this rule reports raises wherever it runs (no condition on the way, not a silent store, a
    defaulted `getattr` nor an idle handler; imports left out, an `except ImportError` may catch them): another
    rule's finding such a use dominates is never reached (HFC009's `dynamic_cache[i]` after LCKV's
    `dynamic_cache._seen_tokens`)."""
    target = analysis.context.target.version
    return [use.span.start for use in analysis.removed_api
            if use.kind != "import" and not (use.kind == "read" and use.name in LEGACY_READS)
            and use.condition is None and not use.silent and use.default is None
            and not (use.kind in ("method", "read") and use.cache is not None
                     and max_length.fallback_idle(use.cache, target))]


class RemovedCacheApi(Rule):
    code = "HFC007"
    name = "removed-cache-api"
    summary = "A cache class or `Cache` method the target transformers no longer has (`HybridCache`, " \
              "`MambaCache`, `to_legacy_cache()`, ... in 5.x): the import or call raises."
    default_severity = Severity.ERROR
    reads = frozenset({REMOVED_API_USE, CACHE_USE, BACKBONE_GENERATE})  # the removed uses of a cache come from its cache_use facts
    valid = VALID + member_examples.VALID
    invalid = INVALID + member_examples.INVALID

    def check(self, analysis: Analysis) -> Iterable[Finding]:
        # A use that raises wherever it runs stops its function there: what it dominates (engine/syntax/dominance.py:
        # the rest of its block, the body of the statement whose header holds it) is never reached on the target,
        # nor what a call of its function dominates where the use stands unconditionally in that function's block
        # (engine/syntax/raising_calls.py: a helper reading a removed member stops its caller).
        findings = list(self._check(analysis))
        dominates = Dominance(analysis.tree) if analysis.tree is not None else (lambda first, later: False)
        raising: list[Position] = []
        unreached: set[int] = set()
        first_layer = _first_layer_tests(analysis)
        bound = _bound_members(analysis) if first_layer else frozenset()
        for i, (found, raises, at, condition) in sorted(enumerate(findings), key=lambda f: (f[1][0].span.start.line,
                                                                                             f[1][0].span.start.column)):
            if any(dominates(first, at) for first in raising):
                unreached.add(i)
            elif raises:
                raising.append(found.span.start)
                for function_at, tests in first_layer:
                    if condition in tests and analysis.tree is not None and found.span.start not in bound and \
                            (branch := branch_of(analysis.tree, found.span.start, tests, function_at)) is not None:
                        # transformers' layers call `update` from layer 0: the branch runs on the first call, and
                        # its raise ends the forward there; what follows the `if` never runs (ipex-llm, heldout9).
                        raising.append(branch)
        # A call site stops what it dominates in its own function, wherever that stands in the file.
        calls = raising_calls(analysis.tree, raising)
        unreached |= {i for i, (_, _, at, _) in enumerate(findings)
                      if any(dominates(call, at) for call in calls)}
        # A function the module calls only where an earlier raise has stopped the caller never runs here (surya's
        # `set_full_cache`, called in `merge` after `self.get_full_cache(...)`, whose `key_cache` read raises).
        stops = raising + calls
        for i, (_, _, at, _) in enumerate(findings):
            callers = callers_of(analysis.tree, at) if i not in unreached else []
            if callers and all(any(dominates(stop, call) for stop in stops) for call in callers):
                unreached.add(i)
        yield from (found for i, (found, _, _, _) in enumerate(findings) if i not in unreached)

    def _check(self, analysis: Analysis) -> Iterator[tuple[Finding, bool, Position, str | None]]:
        """Each finding, whether its use raises where it runs (not a silent store, a defaulted `getattr`, a
        changed answer), where it must be reached to hold (its span; a None test's finding: the test), and the
        undecided condition it holds under (as written), if any."""
        paired = _paired_stores(analysis)
        for use in analysis.removed_api:
            if use.kind == "read" and use.name in LEGACY_READS:
                continue  # reading a cache as the legacy tuples is HFC009's
            if use.kind in ("method", "read") and use.cache is not None and \
                    max_length.fallback_idle(use.cache, analysis.context.target.version):
                continue  # an `except` handler's call: the try's method exists there, so the handler does not run
            if any(use is second for second in paired.values()):
                continue  # the second store of a pair: the first's finding names it
            found = self.finding(analysis, use)
            second = paired.get(id(use))
            if second is not None:
                found = replace(found, message=f"{found.message} (also `{second.module}.{second.name} = ...`, line "
                                               f"{second.span.start.line}: the pair's other half, stored as idly)",
                                related=(*found.related, Related(second.span, f"`{second.module}.{second.name} = "
                                                                               "...`: stored as idly")))
            yield found, not use.silent and use.default is None, found.span.start, use.condition
        for fact in analysis.of(BACKBONE_GENERATE):
            generate_gone = backbone.finding(self, analysis, fact)
            if generate_gone is not None:
                yield generate_gone, True, generate_gone.span.start, None
        for patched in patched_helpers.findings(self, analysis):
            yield patched, False, patched.span.start, None  # silent: the patch is never called
        for loop in patched_helpers.instance_loops(self, analysis):
            yield loop, False, loop.span.start, None  # silent: generate never calls the loop
        for cache_use in analysis.of(CACHE_USE):
            unprepared = helper_reads.finding(self, analysis, cache_use)
            if unprepared is not None:
                # A config handed in may have been prepared by a caller: its later lines are not taken for dead.
                yield unprepared, cache_use.name != "_get_stopping_criteria", unprepared.span.start, None
            written = property_writes.finding(self, analysis, cache_use)
            if written is not None:
                yield written, written.severity is Severity.ERROR, written.span.start, None
            tested = max_length.finding(self, analysis, cache_use)
            if tested is not None:
                # The answer changed silently: it matters only where the tested value is made (the call, or the call
                # of the helper that returned it, in the function holding the None test) is reached.
                yield tested, False, cache_use.none_test_at or tested.span.start, None

    def finding(self, analysis: Analysis, use: RemovedApiUse) -> Finding:
        target = analysis.context.target
        if use.kind == "constructor":
            return self.constructor(analysis, use)
        error = _error(use)
        if use.kind == "method":
            instead = _method_instead(use)
            message = (f"`{use.name}()` no longer exists in transformers {target} (removed in {use.removed}); "
                       f"this call raises {error}. Instead, {instead}")
        elif use.default is not None:
            message = (f"`getattr({use.module}, \"{use.name}\", {use.default})`: transformers {target} caches have no "
                       f"`{use.name}` (removed in {use.removed}); {error}. Instead, {DEFAULTED_INSTEAD}")
        elif use.silent:
            message = (f"`{use.module}.{use.name} = ...`: transformers {target} caches have no `{use.name}` (removed in "
                       f"{use.removed}); {error}. Instead, {SILENT_INSTEAD}")
        elif use.kind == "read" and use.error is not None and use.cache is not None and \
                use.cache.what in ("config", "layer"):
            message = (f"`{use.module}.{use.name}(...)`: transformers {target}'s `{use.shown_class}.{use.name}` takes "
                       f"`({_signature(use, target)})` (since {use.removed}), not these arguments; this call raises "
                       f"{error}. Instead, call it as the target's signature says")
        elif use.kind == "read" and use.error is not None:
            message = (f"`{use.module}.{use.name}(...)`: transformers {target}'s `GenerationMixin.{use.name}` takes "
                       f"`({_signature(use, target)})` (since {use.removed}), not these arguments; this call raises "
                       f"{error}. Instead, {_CALL_INSTEAD}")
        elif use.kind == "read":
            message = f"{_read_what(use, target)}; this raises {error}. 5.x replacement: {_read_instead(use)}"
        else:
            where = "importing" if use.kind == "import" else "reading"
            message = (f"{model_names.owner(use, target)} no longer has `{use.name}` (gone since {use.removed}); {where} it "
                       f"raises {error}. {_replacement(use, target)}")
        severity = Severity.WARNING if use.silent or use.default is not None else Severity.ERROR  # it raises nothing
        if use.condition:
            severity = Severity.WARNING
            message += f" This happens only if `{use.condition}` holds."
        return self.report(use.span, message, severity=severity, fixes=self.fixes(analysis, use),
                           story=partial(self.story, analysis, use, error))

    def constructor(self, analysis: Analysis, use: RemovedApiUse) -> Finding:
        """A constructor call the target rejects (constructors.py): an Error, a Warning under an undecided
        condition; no mechanical fix (a renamed keyword's meaning is the user's to check)."""
        target = analysis.context.target
        text = constructors.message(use, target)
        severity = Severity.ERROR
        if use.condition:
            severity = Severity.WARNING
            text += f" This happens only if `{use.condition}` holds."
        return self.report(use.span, text, severity=severity,
                           story=partial(constructors.story, use, target))

    def fixes(self, analysis: Analysis, use: RemovedApiUse) -> Iterator[Fix]:
        ignore = self.ignore_fix(analysis, use.span)
        if use.default is not None:
            # No fix (and so no ignore comment either: a finding's first fix is its preferred one): what the code
            # wants from the layers (their count, the tensors) is the user's to say.
            return
        if use.kind == "read":
            fix = _read_fix(analysis.text, use)
            if fix is not None:
                yield fix
            # A read without a mechanical fix (a store, `seen_tokens`, a member only the release table names): none,
            # as for imports (the editor still offers the ignore comment).
            if fix is not None or use.name in _READ_FIXES:
                yield ignore
            return
        if use.kind == "method" and use.name == "from_legacy_cache" and use.module == "DynamicCache" \
                and use.call_span is not None and use.argument_span is not None:
            argument = _text(analysis.text, use.argument_span)
            yield Fix("Use `DynamicCache(...)`", (Edit(use.call_span, f"DynamicCache({argument})"),), preferred=True)
            yield ignore
        # Other removals have no mechanical replacement (a class's constructor changed, a tuple the code goes on
        # to read): the editor still offers the ignore comment.

    def story(self, analysis: Analysis, use: RemovedApiUse, error: str) -> str:
        target = analysis.context.target
        if use.default is not None:
            what = f"`getattr({use.module}, \"{use.name}\", {use.default})`"
            instead = DEFAULTED_INSTEAD
        elif use.silent:
            what = f"`{use.module}.{use.name} = ...`"
            instead = SILENT_INSTEAD
        elif use.kind == "method":
            what = f"`{use.module}.{use.name}(...)`"
            instead = _method_instead(use)
        elif use.kind == "read" and use.error is not None:
            what = f"`{use.module}.{use.name}(...)` with these arguments"
            instead = _CALL_INSTEAD
        elif use.kind == "read":
            what = f"{_read_shape(use)} on {_holder(use)}"
            instead = _read_instead(use)
        else:
            what = f"`{use.name}` ({'imported from' if use.kind == 'import' else 'read from'} `{use.module}`)"
            instead = _replacement(use, target).removeprefix("5.x replacement: ").removeprefix("Instead, ")
        lines = [
            f"**{self.code} {self.name}**: {what} does not work in transformers {target}." if use.kind == "read" else
            f"**{self.code} {self.name}**: {what} does not exist in transformers {target}.",
            "",
            f"- **Removed in**: {use.removed} ({_still_in(use.removed)}).",
            f"- **Instead**: {instead}.",
        ]
        if use.condition:
            lines.append(f"- **When**: only if `{use.condition}` holds.")
        said = "What this line does" if use.silent or use.default is not None else "It raises when this line runs"
        return "\n".join([*lines, "", f"{said} (transformers {target}):", "", f"```\n{error}\n```"])


def _error(use: RemovedApiUse) -> str:
    """The exception the use raises, as transformers and Python word it."""
    if use.kind == "read" and use.error is not None:
        return use.error
    if use.default is not None:
        return (f"`getattr` raises nothing: it returns the default `{use.default}` every time, so the code sees an "
                "empty cache whatever it holds (silent)")
    if use.silent:
        return ("the assignment raises nothing: it binds a plain attribute the cache's layers never read, so the "
                "model attends without that past (silent; `get_seq_length()` stays 0)")
    if use.kind == "read":
        if use.cache is not None and use.cache.what == "model":
            if use.shown_class:
                return f"AttributeError: '{use.shown_class}' object has no attribute '{use.name}'"
            return (f"AttributeError: '<model class>' object has no attribute '{use.name}' (with the model's class, "
                    "e.g. 'LlamaForCausalLM')")
        cls = use.shown_class
        if use.cache is not None and _on_class(use.cache):  # `DynamicCache.from_batch_splits(...)`
            return f"AttributeError: type object '{cls}' has no attribute '{use.name}'"
        error = f"AttributeError: '{cls}' object has no attribute '{use.name}'"
        if use.cache is not None and use.cache.cls is None and use.cache.description == SUB_CACHE:
            error += " (with the class of that part: DynamicCache unless the code built it from another cache)"
        elif use.cache is not None and use.cache.cls is None:
            error += " (with the class of the cache the model returned: DynamicCache by default)"
        elif use.cache is not None and use.cache.cls == "Cache" and use.cache.subclass is None:
            error += " (with the class of the cache it is given, a `Cache` subclass)"
        return error
    if (model_error := model_names.error(use)) is not None:
        return model_error
    if use.kind == "import" and use.module in GENERATION_IMPORT_MODULES:
        # Python names the module's file after the module (checked on the oracle's 4.57.6 and 5.0.0)
        file = "__init__" if use.module == "transformers.generation" else use.module.rpartition(".")[2]
        return (f"ImportError: cannot import name '{use.name}' from '{use.module}' "
                f"(.../transformers/generation/{file}.py)")
    if use.kind == "import":
        return f"ImportError: cannot import name '{use.name}' from '{use.module}'"
    if use.kind == "attribute":
        return f"AttributeError: module transformers has no attribute {use.name}"
    if use.name == "from_legacy_cache" and use.module in _CACHE_CLASSES:
        return f"AttributeError: type object '{use.module}' has no attribute '{use.name}'"
    if use.cache is not None and use.cache.what == "cache" and use.cache.cls not in (None, "Cache"):
        # The class the code says the receiver is (an EncoderDecoderCache's error names it: checked on 5.0.0, 5.24.0)
        if _on_class(use.cache):
            return f"AttributeError: type object '{use.shown_class}' has no attribute '{use.name}'"
        return f"AttributeError: '{use.shown_class}' object has no attribute '{use.name}'"
    return f"AttributeError: 'DynamicCache' object has no attribute '{use.name}'" \
        " (with the class of whichever cache it is)"


def _on_class(cache: CacheUse) -> bool:
    """A method called on the cache class itself (cache_uses.py `class_call`), not on an instance."""
    return cache.description.startswith("the class ")


def _replacement(use: RemovedApiUse, target: Target) -> str:
    """What to use instead of a removed class (REPLACEMENTS), or of a generation module's name: what it aliased,
    when the target has that (the release table), else nothing to import."""
    if use.name in REPLACEMENTS:
        return f"5.x replacement: {REPLACEMENTS[use.name]}"
    if (model_instead := model_names.replacement(use, target)) is not None:
        return model_instead
    alias = target.generation_alias(use.module, use.name, use.removed)
    if alias is not None:
        module, _, name = alias.rpartition(".")
        return f"Instead, `from {module} import {name}` (what `{use.name}` was an alias of; transformers {target} has it)"
    return (f"Instead, nothing to import: transformers {target} has no `{use.name}` in `{use.module}` (the release "
            "table shows it gone from that release on); the code needs its own copy of what it did")


# A private generate helper whose parameters changed (the release table's `member:` signatures).
_CALL_INSTEAD = ("call it as the target's signature says, or do not call generate's private helpers (their "
                 "parameters change between releases without notice)")


def _signature(use: RemovedApiUse, target: Target) -> str:
    """The target's parameters of the GenerationMixin method the use calls (the release table)."""
    if use.cache is not None and use.cache.what in ("config", "layer"):
        found = releases.member(use.cache.module, use.shown_class, use.name, target.version) or ""
        return ", ".join(releases.parameters(found))
    found = releases.member("transformers.generation.utils", "GenerationMixin", use.name, target.version) or ""
    return ", ".join(releases.parameters(found))


def _still_in(removed: str) -> str:
    if Version.parse(removed) < Version.parse("4.57"):
        return "code written for 4.4x breaks there; 4.57 and 5.x do not have it either"
    return "4.57 still has it"


def _method_instead(use: RemovedApiUse) -> str:
    """What replaces a removed Cache method, with the code's own class where it names one."""
    cls = use.module if use.module in _CACHE_CLASSES and use.module != "Cache" else "DynamicCache"
    return REMOVED_CACHE_METHODS[use.name][1].format(cls=cls)


def _text(text: str, span: Span) -> str:
    starts = line_starts(text)
    return text[offset(starts, span.start):offset(starts, span.end)]


def _read_instead(use: RemovedApiUse) -> str:
    """READ_REPLACEMENTS' text, with the code's own receiver and index where the read has them."""
    if use.cache is not None and use.cache.what == "config" and use.cache.op == "read":
        # A field the releases before had (`return_legacy_cache`: None by default on 4.45-4.57): read with a default,
        # it is None where the target has no such field, as it was where the code left it unset.
        return (f"`getattr({use.module}, \"{use.name}\", None)` (None on releases without the field, the default "
                "it had where the code did not set it)")
    if use.name in _OLD_PART:
        index = use.index or "i"
        return f"read the layer: `{use.module}.layers[{index}].{_OLD_PART[use.name]}` (4.57 and 5.x have it)"
    return READ_REPLACEMENTS.get(use.name, _NO_REPLACEMENT)


def _read_shape(use: RemovedApiUse) -> str:
    if use.cache is not None and use.cache.op == "call":
        return f"`{use.module}.{use.name}()`"
    if use.name in _OLD_PART:
        return f"`{use.module}.{use.name}[{use.index or '...'}]`"
    return f"`{use.module}.{use.name}`"


def _holder(use: RemovedApiUse) -> str:
    """What the code says the cache (or model) is."""
    if use.cache is not None and use.cache.what == "model":
        return f"a `{use.cache.cls}`" if use.cache.cls else "a transformers model"
    if use.cache is not None and use.cache.cls is not None:
        return f"a `{use.cache.cls}`"
    if use.cache is not None:
        return use.cache.description
    return "the cache of a `generate(..., return_dict_in_generate=True)` result"


def _read_what(use: RemovedApiUse, target: object) -> str:
    shape = _read_shape(use)
    return f"{shape}: transformers {target} no longer has `{use.name}` (removed in {use.removed})"


def _read_fix(text: str, use: RemovedApiUse) -> Fix | None:
    """The mechanical replacement, where one exists (each checked on 4.57.6 and 5.x by the oracle)."""
    cache, span = use.cache, use.call_span
    if cache is not None and cache.what == "model" and cache.op == "read" and use.name in _FLAG_DEFAULT \
            and cache.whole is not None:
        default = _FLAG_DEFAULT[use.name]
        return Fix(f"Use `getattr(..., {default})`", (Edit(cache.whole, f'getattr({use.module}, "{use.name}", {default})'),),
                   preferred=True)
    if cache is None or span is None:
        return None
    # `get_max_length()` exists from 5.13 only (4.49-5.12, 4.57 and 5.0 among them, lack it): the fix does not run on every release the
    # code may support, so it is unsafe.
    if use.name == "get_max_cache_shape":  # the method's name only; the call's arguments stay
        return Fix("Use `get_max_length()`", (Edit(span, "get_max_length"),), preferred=True, applicability=UNSAFE)
    if use.name == "max_cache_len":
        return Fix("Use `get_max_length()`", (Edit(span, "get_max_length()"),), preferred=True,
                   applicability=UNSAFE)
    if not cache.layered:
        return None  # an EncoderDecoderCache, or the cache of a model not known to be decoder-only
    if use.name in _OLD_PART:  # `cache.key_cache[i]` read (not stored into): the span holds it all
        if use.index is None:
            return None
        part = _OLD_PART[use.name]
        return Fix(f"Use `.layers[{use.index}].{part}`", (Edit(span, f"{use.module}.layers[{use.index}].{part}"),),
                   preferred=True)
    return None  # `seen_tokens`, `get_usable_length()`: the replacement's number is not always the same
