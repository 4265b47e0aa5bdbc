"""HFC002 legacy-tuple-cache: a tuple (the legacy cache format) passed to `generate()` or to a model's forward as
the cache."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from functools import partial

from hf_cache_lint.engine.base.findings import Edit, Finding, Fix, Severity
from hf_cache_lint.engine.environment import releases
from hf_cache_lint.engine.environment.families import is_mamba_family
from hf_cache_lint.engine.environment.release_version import Version
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.engine.facts.forward_cache import KIND as FORWARD_CACHE
from hf_cache_lint.engine.facts.forward_cache import NONE_LAYERS, ForwardCache
from hf_cache_lint.engine.facts.generate_call import KIND as GENERATE_CALL
from hf_cache_lint.engine.facts.generate_call import ModelInfo
from hf_cache_lint.engine.interpreter.hook_classes import method_def
from hf_cache_lint.engine.output.analysis import Analysis, CacheArg, GenerateCall, Keyword
from hf_cache_lint.engine.output.edits import transformers_name
from hf_cache_lint.engine.output.keywords import written_cache_keyword
from hf_cache_lint.engine.syntax.nodes import span
from hf_cache_lint.rules.base import Rule
from hf_cache_lint.rules.hfc001_cache_conflict import conflicts
from hf_cache_lint.rules.hfc002_legacy_tuple_cache.census import (
    CAUSAL_HEADS,
    loads_only_converters,
    unknown_model_census,
)
from hf_cache_lint.rules.hfc002_legacy_tuple_cache.examples import INVALID
from hf_cache_lint.rules.hfc002_legacy_tuple_cache.own_forward import (
    hands_cache,
    legacy_forward_finding,
    legacy_forwards,
)
from hf_cache_lint.rules.hfc002_legacy_tuple_cache.valid import VALID
from hf_cache_lint.rules.order import ci_rejected, is_encoder_decoder, keyword_rejected, kwargs_rejected

_TO_LEGACY = ".to_legacy_cache()"


class LegacyTupleCache(Rule):
    code = "HFC002"
    name = "legacy-tuple-cache"
    summary = "A tuple (the legacy cache format) is passed to `generate()` or to a model's forward as the cache."
    default_severity = Severity.ERROR
    reads = frozenset({GENERATE_CALL, FORWARD_CACHE})
    valid = VALID
    invalid = INVALID

    def check(self, analysis: Analysis) -> Iterable[Finding]:
        target = analysis.context.target
        seen = set()
        defs = set()  # where findings stand: an override's `def` is one place for every call reaching it
        for call in analysis.calls:
            # generate raises an earlier error for these (HFC004, HFC003/HFC005): the tuple is never looked at.
            if ci_rejected(target, call) or kwargs_rejected(target, call):
                continue
            for arg in call.cache_args:
                if arg.own is not None and (found := self.own_generate_finding(analysis, call, arg)) is not None:
                    seen.add(arg.span)
                    if found.span not in defs:  # an override's `def` is reported once
                        defs.add(found.span)
                        yield found
                if arg.kind != "tuple" or keyword_rejected(target, call, arg.keyword) or arg.span in seen:
                    continue
                # 4.x converts a tuple only for attention caches; Mamba's own cache is not built from one.
                if not target.tuple_cache_is_error and is_mamba_family(call.model.class_name):
                    continue
                ci = call.cache_implementation
                if ci is not None and conflicts(target, call, arg, ci):
                    continue  # the conflict check runs first (HFC001)
                if _from_removed_to_legacy(target, call, arg):
                    continue  # `to_legacy_cache()` itself raises first on this version (HFC007)
                seen.add(arg.span)
                yield self.finding(analysis, call, arg)
        if hands_cache(target):
            for own in legacy_forwards(analysis.tree, analysis.text):
                yield legacy_forward_finding(self, analysis, own)
        for fwd in analysis.of(FORWARD_CACHE):
            if fwd.span not in seen and (found := self.forward_finding(analysis, fwd)) is not None:
                seen.add(fwd.span)
                if found.span not in defs:
                    defs.add(found.span)
                    yield found

    def forward_finding(self, analysis: Analysis, fwd: ForwardCache) -> Finding | None:
        """A tuple into a forward: every model raises from 5.0.0 (the release table, `tuple_cache_to_forward`);
        before, model by model: the release table's `tuple_forward:<class>` says what the forward of the class the
        code names does with one at the target (read from its modeling file: "raises" where it asks the tuple its
        length, "rejects" where it raises its own ValueError; "converts" or "delegates": it may run, not reported).
        A model known only by an Auto class and a checkpoint name is not judged (its class is not known)."""
        target = analysis.context.target
        if fwd.container == "object":
            return self.own_object_finding(analysis, fwd)
        kind = fwd.container
        error = f"AttributeError: '{kind}' object has no attribute '{_first_read(fwd, target)}'"
        judged = _tuple_verdict(fwd, target)
        verdict, cls = judged if judged is not None else (None, "")
        unknown = False
        named = f"`{cls}`" if cls == fwd.model_class else f"`{cls}` (the model `{fwd.checkpoint}` names)"
        if target.tuple_cache_to_forward_raises:
            why = f"no model's forward converts a legacy {kind} any more"
        elif verdict == "raises":
            why = f"{named}'s forward does not convert a legacy {kind} in {target} (the release table)"
        elif verdict == "rejects":
            error = "ValueError: The `past_key_values` should be either a `Cache` object or `None`."
            why = f"{named}'s forward takes only a `Cache` or None in {target} (the release table)"
        elif target.version.major == 4 and target.version.minor == 57 and kind == "list" and not fwd.encoder_decoder:
            # 4.57's GPT-2-era forwards convert only a tuple (`isinstance(past_key_values, tuple)`): a list is taken
            # for a Cache there too (checked on 4.57.6: GPT-2 and Llama raise alike; 4.53.0 GPT-2 still ran).
            why = "4.57's forwards convert only a tuple, a list is taken for a `Cache` (checked on 4.57.6)"
        elif verdict is None and not fwd.encoder_decoder and (census := unknown_model_census(target)) is not None \
                and not loads_only_converters(analysis.text, target, partial(_loaded_verdict, target)):
            # The code does not say which decoder it runs (a checkpoint path or argument, a submodule such as
            # `language_model.model`) and most of the target's causal-LM heads raise: a Warning naming the others.
            raising, total, examples, others = census
            model = f"loaded from `{fwd.checkpoint}`" if fwd.checkpoint else "not named in the code"
            why = (f"the model is {model}, and in {target} the forward of every decoder except {others} (the "
                   f"release table's `tuple_forward:`: {raising} of its {total} causal-LM heads, {examples}, ...) "
                   f"asks the cache its length")
            unknown = True
        else:
            return None
        given = "a tuple (the legacy cache format)" if kind == "tuple" else "a list (legacy `(key, value)` pairs)"
        through = f" through `**{fwd.spread}`" if fwd.spread else ""
        if fwd.entry is not None:  # set by a caller or a helper: the finding stands at the forward's `**dict`
            through += f" (its `\"{fwd.keyword}\"` entry set on line {fwd.entry.start.line})"
        message = (f"`{fwd.keyword}=` of a forward call gets {given}{through}; transformers {target} raises "
                   f"{error}: {why}")
        # Through a `**dict` there is nothing safe to apply (the entry may feed other calls); the editor still
        # offers the ignore comment.
        fixes = () if fwd.spread else (*self.forward_fixes(analysis, fwd), self.ignore_fix(analysis, fwd.span))
        severity = Severity.WARNING if unknown else Severity.ERROR
        if fwd.maybe_none:  # None on some paths: it raises on the others only
            message += f". This happens only if `{fwd.value_text}` is not None."
            severity = Severity.WARNING
        elif fwd.condition:  # a `**dict` entry set under a branch: it raises where the branch runs
            message += f". This happens only if `{fwd.condition}` holds."
            severity = Severity.WARNING
        return self.report(fwd.span, message, severity=severity, fixes=fixes,
                           story=f"**{self.code} {self.name}**: the cache passed to a model's forward is a {kind} "
                                 f"of `(key, value)` pairs per layer.\n\n{why}; " + (
                                     "the forward checks that it is given a `Cache`" if verdict == "rejects" and
                                     not target.tuple_cache_to_forward_raises else
                                     f"the forward calls `{fwd.keyword}.get_seq_length()` on it") +
                                 f" (transformers {target}):\n\n"
                                 f"```\n{error}\n```\n\n**Fix**: wrap the tuple, `{_forward_wrapper(fwd)}(legacy)` "
                                 "(4.57 and 5.x build the cache from it), or pass the `Cache` it came from.")

    def own_generate_finding(self, analysis: Analysis, call: GenerateCall, arg: CacheArg) -> Finding | None:
        """The project's cache subclass given to `generate()` (kind "other" with `own`): generate runs the forward,
        which fails as it does when called directly (oracle, Llama: no `layers` on 4.57.6, 5.0.0, 5.24.0; no
        `layer_idx` from 5.14.0). A plain class fails there on other members by release: not claimed. Nor where
        the call sets a `cache_implementation` (the conflict check comes first) or the keyword is rejected."""
        target = analysis.context.target
        assert arg.own is not None
        cls, missing, subclass, narrow = arg.own
        if not subclass or arg.keyword != "past_key_values" or arg.condition is not None or arg.via_kwargs or \
                call.cache_implementation is not None or keyword_rejected(target, call, arg.keyword):
            return None
        kw = written_cache_keyword(call, arg)
        fwd = ForwardCache(arg.keyword, arg.span, arg.span, kw.value_text if kw is not None else cls, arg.span,
                           call.model.class_name, call.model.checkpoint, is_encoder_decoder(call.model), "object",
                           own_class=cls, missing=missing, cache_subclass=subclass, narrow_length=narrow)
        return self.own_object_finding(analysis, fwd, "`generate()`")

    def own_object_finding(self, analysis: Analysis, fwd: ForwardCache, where: str = "a forward call") \
            -> Finding | None:
        """An instance of the project's own class as the cache of a forward, lacking what the forward reads first
        (engine/interpreter/own_caches.py). Run on the oracle with Llama, Qwen2 and GPT-2: no `layers` and no
        `get_seq_length` at 4.57.6, 5.0.0, 5.23.0-5.25.0 (claimed from 4.57: 4.53.0 fails otherwise, 4.54-4.56
        not run); a `get_seq_length` without `layer_idx` raises from 5.14.0 (5.13.1 runs it). A class with both
        is claimed only where the order of the two was run (before 5.14). An encoder-decoder's and Mamba's caches
        were not run."""
        target = analysis.context.target
        if (target.version.major, target.version.minor) < (4, 57) or fwd.encoder_decoder or \
                is_mamba_family(fwd.model_class or fwd.checkpoint or ""):
            return None
        cls, missing = fwd.own_class, fwd.missing
        asks_layer = target.version >= _LENGTH_OF_LAYER
        if fwd.narrow_length and asks_layer and missing in ("", NONE_LAYERS):
            error = f"TypeError: {cls}.get_seq_length() got an unexpected keyword argument 'layer_idx'"
            what = ("the project's subclass of a transformers cache whose own `get_seq_length` takes no "
                    "`layer_idx`")
            why = f"from {_LENGTH_OF_LAYER} the forward asks for one layer's length; checked on 5.13.1 (runs), " \
                  "5.14.0, 5.15.0, 5.19.0 and 5.23.0-5.25.0"
            instead = "give the override a `layer_idx=0` parameter (4.x and 5.x pass it or not)"
        elif not missing or (fwd.narrow_length and asks_layer):
            return None
        elif missing == NONE_LAYERS:
            if target.version.major != 4:
                return None  # run on 4.57.6 only (from 5.14 a `get_seq_length` without `layer_idx` fails first)
            error = "AttributeError: 'NoneType' object has no attribute 'get_mask_sizes'"
            what = "the project's subclass of a transformers cache whose `layers` it sets to a list of None"
            why = ("the forward's mask asks the cache's layer for its sizes (`self.layers[i].get_mask_sizes(...)`); "
                   "checked on 4.57.6")
            instead = ("keep transformers' layers (`super().__init__()`, no `self.layers = ...`), or define "
                       "`get_mask_sizes` on the class")
        elif fwd.cache_subclass:
            error = f"AttributeError: '{cls}' object has no attribute '{missing}'"
            what = ("the project's subclass of a transformers cache whose `__init__` never runs the base "
                    "`__init__`, so it has no `layers`")
            why = "the forward's mask and length calls read the cache's `layers`; checked on 4.57.6, 5.0.0 and 5.24.0"
            instead = "call `super().__init__()` in its `__init__` (or subclass `DynamicCache` and let it hold the layers)"
        else:
            error = f"AttributeError: '{cls}' object has no attribute '{missing}'"
            what = f"the project's own class, not a transformers `Cache`, without `{missing}`"
            why = f"the forward calls `past_key_values.{missing}()` on the cache it is given; checked on 4.57.6, " \
                  "5.0.0 and 5.24.0"
            instead = "pass a transformers `Cache` (a `DynamicCache`, or a subclass of it that keeps your own data)"
        message = (f"`{fwd.keyword}=` of {where} gets `{fwd.value_text}`, a `{cls}`: {what}; transformers "
                   f"{target} raises {error} ({why})")
        at = fwd.span
        if error.startswith("TypeError") and not missing:
            # The override is what breaks, and where the fix goes: where the module defines it, the finding stands on
            # its `def` (once, whichever calls reach it), naming the call (the Huginn cache, heldout11). A class that
            # breaks otherwise on other releases (`layers` of None) keeps it on the call, the one place for both.
            length = method_def(analysis.tree, cls, "get_seq_length")
            if length is not None:
                at = span(length)
                message = (f"`{cls}.get_seq_length` takes no `layer_idx`: `{fwd.keyword}=` of {where} on line "
                           f"{fwd.span.start.line} gets `{fwd.value_text}`, a `{cls}`: {what}; transformers {target} "
                           f"raises {error} ({why})")
        # No mechanical fix (what the class keeps is the project's); the editor still offers the ignore comment.
        return self.report(at, message, severity=Severity.ERROR, fixes=(),
                           story=f"**{self.code} {self.name}**: the cache passed to a model's forward is a `{cls}`, "
                                 f"{what}.\n\n{why} (transformers {target}):\n\n```\n{error}\n```\n\n"
                                 f"**Fix**: {instead}.")

    def forward_fixes(self, analysis: Analysis, fwd: ForwardCache) -> Iterator[Fix]:
        if not _wraps_legacy(_forward_wrapper(fwd), analysis.context.target):
            return  # the target's constructor takes no legacy pairs (DynamicCache before 4.50): nothing to offer
        name, imp = transformers_name(analysis.tree, _forward_wrapper(fwd))
        edits = (Edit(fwd.value_span, f"{name}({fwd.value_text})"),) + ((imp,) if imp is not None else ())
        yield Fix(f"Wrap in `{name}(...)`", edits, preferred=True)

    def finding(self, analysis: Analysis, call: GenerateCall, arg: CacheArg) -> Finding:
        target = analysis.context.target
        kw = written_cache_keyword(call, arg)
        from_legacy = kw is not None and kw.value_text.endswith(_TO_LEGACY)
        if target.tuple_cache_is_error:
            message = f"`{arg.keyword}=` gets a tuple (the legacy cache format); transformers {target} raises " \
                      f"{target.tuple_cache_message}"
            if from_legacy:
                message += f" (and `to_legacy_cache()` no longer exists in {target}: an AttributeError comes first)"
            severity = Severity.ERROR
        else:
            message = (f"`{arg.keyword}=` gets a tuple (the legacy cache format); transformers {target} still "
                       "converts it with a deprecation warning, and 5.0+ raise "
                       f"{Target.of('5.23.0').tuple_cache_message}")
            # It runs here (a deprecation only): a notice, not a warning of a break (as HFC006's deprecations).
            severity = Severity.INFO
        if arg.condition:
            message += f" This happens only if {arg.condition} is not None."
            severity = Severity.WARNING if severity == Severity.ERROR else severity
        return self.report(arg.span, message, severity=severity, fixes=self.fixes(analysis, call, arg, kw),
                           story=partial(self.story, analysis, call, arg, kw))

    def fixes(self, analysis: Analysis, call: GenerateCall, arg: CacheArg, kw: Keyword | None) -> Iterator[Fix]:
        if kw is not None and kw.value_text.endswith(_TO_LEGACY):
            cache = kw.value_text[: -len(_TO_LEGACY)]
            yield Fix("Pass the `Cache` object instead of its legacy tuple", (Edit(kw.value_span, cache),),
                      preferred=True)
        elif kw is not None:
            name, imp = transformers_name(analysis.tree, _wrapper(call))
            edits = (Edit(kw.value_span, f"{name}({kw.value_text})"),) + ((imp,) if imp is not None else ())
            yield Fix(f"Wrap in `{name}(...)`", edits, preferred=True)
        if kw is not None:  # through a ** dict there is nothing safe to apply; the editor still offers ignore
            yield self.ignore_fix(analysis, arg.span)

    def story(self, analysis: Analysis, call: GenerateCall, arg: CacheArg, kw: Keyword | None) -> str:
        target = analysis.context.target
        model = call.model.class_name or "a transformers model"
        if target.tuple_cache_is_error:
            runtime = (f"`generate()` raises while preparing the cache (transformers {target}):\n\n"
                       f"```\n{target.tuple_cache_message}\n```")
        else:
            runtime = (f"transformers {target} converts the tuple with `DynamicCache.from_legacy_cache` and logs a "
                       "deprecation warning; from 5.0 `generate()` raises:\n\n"
                       f"```\n{Target.of('5.23.0').tuple_cache_message}\n```")
        return "\n".join([
            f"**{self.code} {self.name}**: the cache passed to `generate()` is a tuple.",
            "",
            f"- **The cache**: `{arg.keyword}=` receives "
            f"{'`' + kw.value_text + '`, ' if kw is not None and len(kw.value_text) < 60 else ''}"
            "a tuple of `(key, value)` pairs per layer (the legacy format).",
            f"- **The model**: {model}.",
            "",
            runtime,
            "",
            "**Fixes**: pass the `Cache` object the tuple came from, or wrap the tuple: "
            f"`{_wrapper(call)}(legacy)` (works in 4.x and 5.x; `from_legacy_cache` and `to_legacy_cache` are gone "
            "in 5.x)." + (" An encoder-decoder's tuple holds 4 tensors per layer (self- and cross-attention): "
                          "`DynamicCache(legacy)` raises on 4.57.6 and on 5.x generates otherwise than that cache."
                          if _wrapper(call) == "EncoderDecoderCache" else ""),
        ])


def _wrapper(call: GenerateCall) -> str:
    """The class that builds this model's cache from its legacy tuple: an encoder-decoder's 4-tensor layers
    need `EncoderDecoderCache` (docs/facts.md: `DynamicCache(legacy)` raises on 4.57.6 and generates differently
    on 5.x), a decoder's 2-tensor layers `DynamicCache`."""
    return "EncoderDecoderCache" if is_encoder_decoder(call.model) else "DynamicCache"


def _from_removed_to_legacy(target: Target, call: GenerateCall, arg: CacheArg) -> bool:
    """The tuple comes from `to_legacy_cache()`, which the target no longer has: that call fails first."""
    if target.removed_cache_method("to_legacy_cache") is None:
        return False
    kw = written_cache_keyword(call, arg)
    if kw is not None and kw.value_text.endswith(_TO_LEGACY):
        return True
    return arg.origin is not None and arg.origin.description == "to_legacy_cache()"



# The first release whose forwards call `past_key_values.get_seq_length(layer_idx=...)` (oracle: 5.13.1 runs an
# override without it, 5.14.0 raises; docs/facts.md §8).
_LENGTH_OF_LAYER = Version.parse("5.14.0")

def _tuple_verdict(fwd: ForwardCache, target: Target) -> tuple[str, str] | None:
    """What the forward of the model class the code names does with a legacy tuple at the target, and that class
    (the release table's `tuple_forward:`, 4.x; scripts/release_table.py reads it from each modeling file,
    tests/oracle/test_releases.py runs it on tiny models). An Auto class is judged only where the checkpoint's
    repository name names one of the table's classes (`_class_of_checkpoint`); otherwise None."""
    cls = fwd.model_class
    if not cls or cls.startswith("Auto"):
        # Loaded by an Auto class (the fact keeps no class then, only whether it was a seq2seq one): the heads it
        # loads anchor the checkpoint's name; every class of a modeling file shares its verdict.
        heads = _AUTO_HEADS.get(cls or "", _SEQ2SEQ_HEADS if fwd.encoder_decoder else CAUSAL_HEADS)
        cls = _class_of_checkpoint(fwd.checkpoint, heads)
    verdict = releases.value(f"tuple_forward:{cls}", target.version) if cls else None
    return (verdict, cls) if verdict is not None and cls is not None else None


# The head an Auto class loads (the classes of the table it may be): a decoder's `...ForCausalLM`, a seq2seq model's
# `...ForConditionalGeneration`.
_SEQ2SEQ_HEADS = ("ForConditionalGeneration",)
_AUTO_HEADS = {"AutoModelForCausalLM": CAUSAL_HEADS, "AutoModelForSeq2SeqLM": _SEQ2SEQ_HEADS,
               "AutoModelForSpeechSeq2Seq": _SEQ2SEQ_HEADS}


def _loaded_verdict(target: Target, cls: str, checkpoint: str) -> str | None:
    """The table's `tuple_forward:` verdict at the target for a model the module loads by a literal name: the
    class it names, else (an Auto class) the class its checkpoint names; a Hub id without an organisation
    (`gpt2`) is read as its repository name."""
    if not cls.startswith("Auto"):
        return releases.value(f"tuple_forward:{cls}", target.version)
    heads = _AUTO_HEADS.get(cls, CAUSAL_HEADS)
    named = _class_of_checkpoint(checkpoint if "/" in checkpoint else f"_/{checkpoint}", heads)
    return releases.value(f"tuple_forward:{named}", target.version) if named else None


def _class_of_checkpoint(checkpoint: str | None, heads: tuple[str, ...] | None) -> str | None:
    """The table's model class a checkpoint's repository name names (`meta-llama/Llama-3.2-1B`: Llama's; `Qwen/
    Qwen2.5-0.5B`: Qwen2's; `google/gemma-2-2b`: Gemma 2's): a run of the name's words that is a class's model name
    (the class name without the head, lower case; the words joined: `gpt-neox` is GPTNeoX), optionally followed by
    digits (`llama3`), and followed by the end of the name or a word starting with a digit (a version or a size:
    `falcon-mamba-7b` is not Falcon), unless it ends in a digit itself (`phi-3-mini` is Phi-3). The longest such name wins. Only the table's classes (those that raise on a
    tuple on some 4.x release, and every head an Auto class loads, whatever it does) are candidates, so the name of
    a model that converts (`gpt2`) or defers (`gemma-3-1b`: Gemma 3's, not Gemma's) is that model's; an
    organisation name is not read (`mistralai/Pixtral-12B` is not Mistral)."""
    if not checkpoint or not heads or "/" not in checkpoint:
        return None
    names: dict[str, str] = {}
    for key in releases.table().facts:
        cls = key[len("tuple_forward:"):]
        head = next((h for h in heads if cls.endswith(h)), None) if key.startswith("tuple_forward:") else None
        if head is not None:
            names[cls[:-len(head)].lower()] = cls
    words = [w for w in re.split(r"[-_.\s]+", checkpoint.rsplit("/", 1)[1].lower()) if w]
    best: str | None = None
    for i in range(len(words)):
        for j in range(i + 1, len(words) + 1):
            run = "".join(words[i:j])
            if j < len(words) and not words[j][:1].isdigit() and not run[-1:].isdigit():
                continue  # `falcon` in `falcon-mamba-7b`; a name ending in its version may go on (`phi-3-mini`)
            for name in names:
                if (run == name or (run.startswith(name) and run[len(name):].isdigit())) and \
                        (best is None or len(name) > len(best)):
                    best = name
    return names[best] if best is not None else None


def _wraps_legacy(wrapper: str, target: Target) -> bool:
    """The target's `wrapper(legacy)` builds the cache from legacy pairs (the release table's constructor:
    `DynamicCache(_distributed_cache_data)` from 4.50.0, `ddp_cache_data` from 4.54.0; `EncoderDecoderCache(*caches)`
    from 4.56.0); before, it raises a TypeError."""
    init = releases.value(f"init:transformers.cache_utils.{wrapper}", target.version) or ""
    return any(p in init for p in ("_distributed_cache_data", "ddp_cache_data", "*caches"))


def _forward_wrapper(fwd: ForwardCache) -> str:
    """As `_wrapper` for generate: an encoder-decoder's (an Auto seq2seq class, or a class the code names: T5's,
    Whisper's) legacy layers hold 4 tensors."""
    model = ModelInfo(class_name=fwd.model_class, checkpoint=fwd.checkpoint, encoder_decoder=fwd.encoder_decoder)
    return "EncoderDecoderCache" if is_encoder_decoder(model) else "DynamicCache"


def _first_read(fwd: ForwardCache, target: Target) -> str:
    """The cache member a Llama-style forward reads first: `get_seq_length` (for the positions), or, where the call
    gives `position_ids` and the release has `Cache.get_query_offset` (5.14.0+), that one, asked while building the
    mask (checked on 4.57.6, 5.0.0, 5.3.0, 5.13.1, 5.14.0, 5.20.0, 5.23.0, 5.24.0, 5.25.0)."""
    has = releases.member("transformers.cache_utils", "Cache", "get_query_offset", target.version) is not None
    return "get_query_offset" if fwd.positions and has else "get_seq_length"

