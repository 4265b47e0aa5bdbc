"""HFC010's decoding methods a class defines in place of `GenerationMixin`'s (engine/facts/decoding_override.py),
bound to how the target's `generate` calls them: the release table's `call:...GenerationMixin.generate-><method>`
facts (read from each wheel: the positional count, the keywords every call passes, those passed only when the
generate call was given them, `streamer=` from 4.57.0, and whether a `**model_kwargs` may carry more). Reported, as
Python reports them: more positional arguments than the override takes; a keyword generate always passes that it
does not take (no `**`); a parameter without a default that generate passes only when given (MOSS-TTSD's
`_sample(..., synced_gpus, streamer, **model_kwargs)`: `missing 1 required positional argument: 'streamer'` from
4.57.0) or that an earlier release passed and the target no longer does (4.4x's `logits_warper`). The oracle: this
module's examples and `recall:heldout15/moss_ttsd_sample.py`. No mechanical fix: the body may use the value (a
default of None runs only where it tests for it)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from hf_cache_lint.engine.base.findings import Finding, Span
from hf_cache_lint.engine.environment import releases
from hf_cache_lint.engine.environment.release_version import Version
from hf_cache_lint.engine.facts.decoding_override import DecodingOverride
from hf_cache_lint.engine.output.analysis import Analysis

if TYPE_CHECKING:
    from hf_cache_lint.rules.base import Rule

_CALL = "call:transformers.generation.utils.GenerationMixin.generate->"


@dataclass(frozen=True)
class Shape:
    """One `call:` fact's value: `args=N kw=a,b opt=c spread`."""

    args: int
    kw: frozenset[str]
    opt: frozenset[str]
    spread: bool
    star: bool


def shape(value: str) -> Shape:
    parts = {p.partition("=")[0]: p.partition("=")[2] for p in value.split()}
    args = parts.get("args", "0")
    return Shape(int(args.rstrip("+")), frozenset(filter(None, parts.get("kw", "").split(","))),
                 frozenset(filter(None, parts.get("opt", "").split(","))), "spread" in parts, args.endswith("+"))


@dataclass(frozen=True)
class Problem:
    """What binding the call raises: the error as Python words it, the span it stands on, and the words of the cause."""

    error: str
    span: Span
    cause: str


def _quote(names: list[str]) -> str:
    quoted = [f"'{n}'" for n in names]
    return quoted[0] if len(quoted) == 1 else f"{quoted[0]} and {quoted[1]}" if len(quoted) == 2 else \
        ", ".join(quoted[:-1]) + f", and {quoted[-1]}"


def _ever_passed(fact: str, name: str) -> bool:
    return any(name in shape(r.value).kw for r in releases.table().facts.get(fact, ()))


def bind(o: DecodingOverride, call: Shape, fact: str) -> Problem | None:
    """The first TypeError binding `call` to `o`'s signature raises, in CPython's order (too many positional
    arguments, an unexpected keyword, missing arguments); None where it binds, or where `**model_kwargs` may fill
    what is missing."""
    positional = [p for p in o.params if p.kind == "positional"]
    names = {p.name for p in o.params if p.kind in ("positional", "keyword_only")}
    var_positional = any(p.kind == "var_positional" for p in o.params)
    var_keyword = any(p.kind == "var_keyword" for p in o.params)
    if call.star:
        return None
    if call.args > len(positional) and not var_positional:
        return Problem(f"TypeError: {o.function}() takes {len(positional) + 1} positional arguments but "
                       f"{call.args + 1} were given", o.span,
                       f"`generate` passes {call.args} positional argument{'s' if call.args != 1 else ''} besides "
                       "`self`")
    filled = {p.name for p in positional[:call.args]}
    unexpected = sorted(k for k in call.kw if k not in names and not var_keyword)
    if unexpected:
        one = len(unexpected) == 1
        return Problem(f"TypeError: {o.function}() got an unexpected keyword argument "
                       f"{_quote(unexpected) if one else '(' + _quote(unexpected).replace(' and ', ' or ') + ')'}",
                       o.span, f"`generate` passes {', '.join(f'`{k}=`' for k in unexpected)} on every call and "
                       f"`{o.function}` takes no `**kwargs`")
    missing = [p for p in o.params if p.kind in ("positional", "keyword_only") and not p.default and
               p.name not in filled and p.name not in call.kw and
               (p.name in call.opt or not call.spread or _ever_passed(fact, p.name))]
    if not missing:
        return None
    kind = "keyword-only" if all(p.kind == "keyword_only" for p in missing) else "positional"
    plural = "s" if len(missing) > 1 else ""
    when = [p.name for p in missing if p.name in call.opt]
    cause = (f"`generate` passes {', '.join(f'`{n}=`' for n in when)} only where the `generate(...)` call is given "
             f"{'it' if len(when) == 1 else 'them'} (it drops a None value)") if when else \
        f"`generate` no longer passes {', '.join(f'`{p.name}=`' for p in missing)}"
    return Problem(f"TypeError: {o.function}() missing {len(missing)} required {kind} argument{plural}: "
                   f"{_quote([p.name for p in missing])}", missing[0].span, cause)


def _since(o: DecodingOverride, fact: str, version: Version) -> Version | None:
    """The first release of the unbroken stretch of releases up to `version` at which binding fails the same way."""
    problem = bind(o, shape(releases.value(fact, version) or ""), fact)
    first: Version | None = None
    for run in releases.table().facts.get(fact, ()):
        if run.first > version:
            break
        got = bind(o, shape(run.value), fact)
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
    problem = bind(o, shape(value), fact)
    if problem is None:
        return None
    since = _since(o, fact, target.version)
    from_ = f" (from {since})" if since is not None else ""
    message = (f"`{o.function}` stands in for `GenerationMixin.{o.method}`, which transformers {target}'s `generate` "
               f"calls itself: {problem.cause}{from_}, so `generate(...)` raises `{problem.error}`. Instead, take "
               "what the release passes (a default of None for a value passed only when given, `**kwargs` for the "
               "rest)")
    return rule.report(problem.span, message, story=partial(_story, o, str(target), problem, value, from_))


def _story(o: DecodingOverride, target: str, problem: Problem, value: str, from_: str) -> str:
    return (f"**`{o.function}` cannot take what `generate` passes it in transformers {target}**\n\n`generate` picks "
            f"its decoding method off the model's class and calls it, so a class deriving from `GenerationMixin` (or "
            f"from a transformers model) that defines `{o.method}` has its own method called with the release's "
            f"arguments. The release table's `call:` fact, read from the wheel, says how: `{value}` (`args`: the "
            "positional arguments besides `self`; `kw`: the keywords of every call; `opt`: those passed only where "
            "the `generate(...)` call was given a value; `spread`: `**model_kwargs` may carry more). "
            f"{problem.cause[0].upper()}{problem.cause[1:]}{from_}, so every `generate(...)` raises "
            f"`{problem.error}`.\n\nTake what the release passes: give a parameter that `generate` passes only when "
            "given a default of None (and test it before use), and accept `**kwargs` for keywords a release adds.")
