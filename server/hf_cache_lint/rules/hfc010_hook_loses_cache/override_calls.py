"""HFC010's overrides bound to how the target release calls them: a decoding method a class defines in place of
`GenerationMixin`'s (engine/facts/decoding_override.py) to `generate`'s call (the release table's
`call:...GenerationMixin.generate-><method>`), and a `prepare_inputs_for_generation` override or a Llama attention
or decoder-layer `forward` (engine/facts/hook_override.py) to the decoding loop's, the decoder layer's or the
model's call (`call:..._sample->prepare_inputs_for_generation`, `..LlamaDecoderLayer.forward->self_attn`,
`..LlamaModel.forward->decoder_layer`), where HFC010's other branches say nothing of that hook. The `call:` facts
(read from each wheel: the positional count, the keywords every call passes, those passed only when the generate
call was given them, `streamer=` from 4.57.1 (4.57.0 is not in the table), and whether a `**model_kwargs` may carry
more). Reported, as Python reports them: more positional arguments than the override takes; a keyword generate
always passes that it does not take (no `**`); a parameter without a default that generate passes only when given
(MOSS-TTSD's `_sample(..., synced_gpus, streamer, **model_kwargs)`: `missing 1 required positional argument:
'streamer'` from 4.57.1) or that an earlier release passed and the target no longer does (4.4x's `logits_warper`).
The oracle: this module's examples and `recall:heldout15/moss_ttsd_sample.py`. No mechanical fix: the body may use
the value (a default of None runs only where it tests for it)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from hf_cache_lint.engine.base.findings import Finding, Span
from hf_cache_lint.engine.environment import releases
from hf_cache_lint.engine.environment.release_version import Version
from hf_cache_lint.engine.facts.decoding_override import DecodingOverride, Param
from hf_cache_lint.engine.facts.hook_override import HookOverride
from hf_cache_lint.engine.output.analysis import Analysis

if TYPE_CHECKING:
    from hf_cache_lint.rules.base import Rule

_CALL = "call:transformers.generation.utils.GenerationMixin.generate->"
_PREPARE = "call:transformers.generation.utils.GenerationMixin._sample->prepare_inputs_for_generation"
_LLAMA = "call:transformers.models.llama.modeling_llama."
_CALLERS = {"attention": _LLAMA + "LlamaDecoderLayer.forward->self_attn",
            "decoder_layer": _LLAMA + "LlamaModel.forward->decoder_layer"}
# The hooks the Llama call facts speak for: a subclass of, or a function patched onto, a Llama layer class.
_CACHE_WORDS = frozenset({"past_key_value", "past_key_values", "cache", "cache_position"})
# `cache_position` the decoding loop passes in `model_kwargs` on every call (4.43-4.57): no other branch reports an
# override that cannot take it, so its TypeError is this module's (`cache_position` a forward is sent is HFC011's).
_PREPARE_OWN = frozenset({"cache_position"})
_LLAMA_LAYER = re.compile(r"\bLlama\w*(Attention\w*|DecoderLayer)\b")


@dataclass(frozen=True)
class Shape:
    """One `call:` fact's value: `args=N kw=a,b opt=c spread`."""

    args: int
    kw: tuple[str, ...]  # in the call's order: CPython names the first keyword a signature cannot take
    opt: tuple[str, ...]
    spread: bool
    star: bool
    # `spread=a,b`: keys the `**` spread carries on every call (4.43-4.57's `model_kwargs["cache_position"]`), after
    # the model's other generation inputs, which the table does not know (the first one a signature cannot take
    # may be another: Llama's `logits_to_keep`)
    carried: tuple[str, ...] = ()


def shape(value: str) -> Shape:
    parts = {p.partition("=")[0]: p.partition("=")[2] for p in value.split()}
    args = parts.get("args", "0")
    return Shape(int(args.rstrip("+")), tuple(filter(None, parts.get("kw", "").split(","))),
                 tuple(filter(None, parts.get("opt", "").split(","))), "spread" in parts, args.endswith("+"),
                 tuple(filter(None, parts.get("spread", "").split(","))))


@dataclass(frozen=True)
class Problem:
    """What binding the call raises: the error as Python words it, the span it stands on, and the words of the cause."""

    error: str
    span: Span
    cause: str
    names: tuple[str, ...] = ()  # the keywords or parameters it names


def _quote(names: list[str]) -> str:
    quoted = [f"'{n}'" for n in names]
    return quoted[0] if len(quoted) == 1 else f"{quoted[0]} and {quoted[1]}" if len(quoted) == 2 else \
        ", ".join(quoted[:-1]) + f", and {quoted[-1]}"


def _ever_passed(fact: str, name: str) -> bool:
    return any(name in shape(r.value).kw for r in releases.table().facts.get(fact, ()))


def bind(function: str, params: tuple[Param, ...], span: Span, call: Shape, fact: str,
         ever: bool, caller: str = "the caller") -> Problem | None:
    """The first TypeError binding `call` to the signature `params` raises, in CPython's order (the keywords in the
    call's order: one it cannot take, or one a positional argument filled already; then too many positional
    arguments; then every missing argument); None where it binds, or where a `**` spread of the call
    may fill what is missing (`ever`: unless an earlier release passed it by name, generate's `model_kwargs` being
    checked against the model's forward)."""
    positional = [p for p in params if p.kind == "positional"]
    names = {p.name for p in params if p.kind in ("positional", "keyword_only")}
    var_positional = any(p.kind == "var_positional" for p in params)
    var_keyword = any(p.kind == "var_keyword" for p in params)
    if call.star:
        return None
    filled = {p.name for p in positional[:call.args]}
    for k in call.kw:
        if k in filled:
            return Problem(f"TypeError: {function}() got multiple values for argument '{k}'", span,
                           f"{caller} passes `{k}=` on every call, and `{function}` takes one of the "
                           f"{call.args} positional argument{'s' if call.args != 1 else ''} before it as `{k}`", (k,))
        if k not in names and not var_keyword:
            return Problem(f"TypeError: {function}() got an unexpected keyword argument '{k}'", span,
                           f"{caller} passes `{k}=` on every call and `{function}` takes no `**kwargs`", (k,))
    for k in call.carried:
        if k not in names and not var_keyword and k not in filled:
            return Problem(f"TypeError: {function}() got an unexpected keyword argument", span,
                           f"{caller} passes `{k}=` in its `**model_kwargs` on every call (with the model's other "
                           f"generation inputs, one of which Python may name first) and `{function}` takes no "
                           "`**kwargs`", (k,))
    if call.args > len(positional) and not var_positional:
        return Problem(f"TypeError: {function}() takes {len(positional) + 1} positional arguments but "
                       f"{call.args + 1} were given", span,
                       f"{caller} passes {call.args} positional argument{'s' if call.args != 1 else ''} besides "
                       "`self`")
    missing = [p for p in params if p.kind in ("positional", "keyword_only") and not p.default and
               p.name not in filled and p.name not in call.kw and
               (p.name in call.opt or not call.spread or (ever and _ever_passed(fact, p.name)))]
    if not missing:
        return None
    # CPython names the missing positional parameters first; the keyword-only ones only where none is.
    kind = "keyword-only" if all(p.kind == "keyword_only" for p in missing) else "positional"
    missing = [p for p in missing if p.kind == kind.replace("-", "_")]
    plural = "s" if len(missing) > 1 else ""
    when = [p.name for p in missing if p.name in call.opt]
    gone = [p.name for p in missing if p.name not in call.opt]
    causes = []
    if when:
        causes.append(f"{caller} passes {', '.join(f'`{n}=`' for n in when)} only where the `generate(...)` call is "
                      f"given {'it' if len(when) == 1 else 'them'} (it drops a None value)")
    if gone:
        causes.append(f"{caller} does not pass {', '.join(f'`{n}`' for n in gone)}")
    return Problem(f"TypeError: {function}() missing {len(missing)} required {kind} argument{plural}: "
                   f"{_quote([p.name for p in missing])}", missing[0].span, " and ".join(causes),
                   tuple(p.name for p in missing))


def _since(function: str, params: tuple[Param, ...], span: Span, fact: str, version: Version,
           ever: bool) -> Version | None:
    """The first release of the unbroken stretch of releases up to `version` at which binding fails the same way."""
    problem = bind(function, params, span, shape(releases.value(fact, version) or ""), fact, ever)
    first: Version | None = None
    for run in releases.table().facts.get(fact, ()):
        if run.first > version:
            break
        got = bind(function, params, span, shape(run.value), fact, ever)
        if got is not None and problem is not None and got.error == problem.error:
            first = run.first if first is None else first
        else:
            first = None
    return first


def finding(rule: Rule, analysis: Analysis, o: DecodingOverride) -> Finding | None:
    target = analysis.context.target
    fact = _CALL + o.method
    value = releases.value(fact, target.version)
    if value is None:
        return None  # generate never calls it at the target (HFC007's decoding-loop reader)
    problem = bind(o.function, o.params, o.span, shape(value), fact, True, "`generate`")
    if problem is None:
        return None
    since = _since(o.function, o.params, o.span, fact, target.version, True)
    return _report(rule, f"`{o.function}` stands in for `GenerationMixin.{o.method}`, which transformers "
                   f"{target}'s `generate` calls itself", "`generate(...)`", problem, since, value, str(target),
                   o.function, f"`GenerationMixin.{o.method}`")


def hook_finding(rule: Rule, analysis: Analysis, hook: HookOverride) -> Finding | None:
    """A `prepare_inputs_for_generation` override, or a Llama attention / decoder-layer `forward`, bound to how the
    target's decoding loop, decoder layer or model calls it."""
    if not hook.signature or not hook.qualname:
        return None
    if hook.kind == "prepare_inputs":
        fact, caller, what = _PREPARE, "`generate`'s decoding loop", "`prepare_inputs_for_generation`"
    elif hook.kind == "forward" and hook.reference in _CALLERS and _LLAMA_LAYER.search(f"{hook.base} {hook.target}"):
        fact = _CALLERS[hook.reference]
        caller = "the decoder layer" if hook.reference == "attention" else "the model"
        what = "the attention's `forward`" if hook.reference == "attention" else "the decoder layer's `forward`"
    else:
        return None
    target = analysis.context.target
    value = releases.value(fact, target.version)
    if value is None:
        return None
    problem = bind(hook.qualname, hook.signature, hook.span, shape(value), fact, False, caller)
    own = _PREPARE_OWN if hook.kind == "prepare_inputs" and "unexpected keyword" in (problem.error if problem else "") \
        else frozenset()
    if problem is None or any(n in _CACHE_WORDS - own for n in problem.names):
        return None  # the cache's own keywords are the other branches' (their findings carry the fixes)
    since = _since(hook.qualname, hook.signature, hook.span, fact, target.version, False)
    return _report(rule, f"{hook.target} stands in for {what}, which {caller} of transformers {target} calls",
                   "the call", problem, since, value, str(target), hook.qualname, what)


def _report(rule: Rule, subject: str, raised_by: str, problem: Problem, since: Version | None, value: str,
            target: str, function: str, what: str) -> Finding:
    from_ = f" (from {since})" if since is not None else ""
    message = (f"{subject}: {problem.cause}{from_}, so {raised_by} raises `{problem.error}`. Instead, take what the "
               "release passes (a default of None for a value passed only when given, `**kwargs` for the rest)")
    return rule.report(problem.span, message, story=partial(_story, function, what, target, problem, value, from_))


def _story(function: str, what: str, target: str, problem: Problem, value: str, from_: str) -> str:
    return (f"**`{function}` cannot take what transformers {target} passes {what}**\n\nThe release calls the method "
            f"a project defines in place of its own with the release's arguments. The release table's `call:` fact, "
            f"read from the wheel, says how: `{value}` (`args`: the positional arguments besides `self`; `kw`: the "
            "keywords of every call, in order; `opt`: those passed only where the `generate(...)` call was given a "
            f"value; `spread`: a `**` that may carry more). {problem.cause[0].upper()}{problem.cause[1:]}{from_}, "
            f"so the call raises `{problem.error}`.\n\nTake what the release passes: give a parameter passed only "
            "when given a default of None (and test it before use), and accept `**kwargs` for keywords a release "
            "adds.")
