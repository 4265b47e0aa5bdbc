"""The cache API of every transformers release, as read from the releases themselves (data/releases.json).

scripts/release_table.py writes the table from each release's wheel (read with `ast`, never imported), every
release from 4.41.0 to the newest, patches included; scripts/release_behaviours.py holds the hand-written
behaviours a signature does not show, each with its exact error, its first release (checked against the
wheels' source) and an oracle case (tests/oracle/test_releases.py runs it at that release and the one before).

Facts are keyed by kind and dotted path; a fact's value is a short string:

| key | value |
|---|---|
| `name:<module>.<Name>` | `class(<bases>)`, `alias(<Other>)`, `import(<from>)`, `def` or `value`: the module binds it (the generation modules: every name) |
| `export:transformers.<Name>` | the submodule `import transformers` serves it from (cache classes, `generation` names) |
| `init:<module>.<Class>` | the constructor's parameters, `(self, config, max_batch_size=None, ...)` |
| `member:<module>.<Class>.<name>` | `def(...)`, `classmethod(...)`, `property`, `attr` (set in `__init__`), `classattr`; own members only (`member()` resolves the bases) |
| `genconfig:<field>` | the default `GenerationConfig.__init__` pops it with |
| `cache_implementation:<value>` | `valid` / `deprecated` (validate() accepts it) or `unchecked`; `*` says whether validate() checks |
| `model_attr:<PreTrainedModel or GenerationMixin>.<name>` | the class attribute's value |
| `name:transformers.modeling_utils.PreTrainedModel` | its bases, `class(nn.Module, ..., GenerationMixin, ...)`: a class built on it has `generate` only where `GenerationMixin` is one (to 4.51.3) |
| `generate_input:<past_key_values, cache or cache_position>` | `always`: generate hands it to a Llama subclass's forward each step; `if-forward-takes`: only to a forward that takes it (remote code, 5.x) |
| `unpack:<module>.<DecoderLayer>.self_attn` | how many values the decoder layer's forward unpacks from `self.self_attn(...)` (`3` to 4.47, `2` after, for Llama) |
| `attr:<module>.<Class>.<name>` | what an instance of a tabled family's attention or decoder-layer class has under `name` from its class chain below `nn.Module`: `init` (set on `self` in `__init__`), `attr` (set in another method), `def`, `property`, `classattr`, ... (Llama attention's `num_heads`: `init` to 4.47.1, absent after) |
| `call:<module>.<Class>.<method>-><callee>` | how `method` calls the overridable `callee` (`generate->_sample`, `_sample->prepare_inputs_for_generation`, Llama's `->decoder_layer`, `->self_attn`, `->update`): `args=N kw=a,b opt=c spread` (positional count besides `self`; keywords every call passes, in call order; keywords passed only when given; a `**` that may carry more) |
| `tuple_forward:<ModelClass>` | what the class's forward does with a legacy tuple as its cache, 4.x only (`converts`, `delegates`, `rejects`: its own ValueError, `raises`: the AttributeError of `get_seq_length`), read from its modeling file; only classes that raise on some release, and the Auto heads |

A signature's parameters carry their defaults and no annotations; `@deprecate_kwarg(...)` decorators are kept
(they rename what a call may pass).

Queries (a `Version` or a version string; a version that is no release answers as the newest release at or
below it, so 5.10.0, which PyPI never had, answers as 5.9.0, and one past the table as its newest):

    releases.known_releases()                     -> (Version, ...)
    releases.value(fact, version)                 -> str | None
    releases.first_release(fact, value=None)      -> Version | None   (first release holding it / that value)
    releases.gone_since(fact, version)            -> Version | None   (the release that dropped it, if gone at version)
    releases.member(module, cls, name, version)   -> str | None       (resolving bases within the module)
    releases.member_gone_since(module, cls, name, version) -> Version | None
    releases.parameters(signature) -> (str, ...); releases.parameter_gone_since(fact, name, version)
    releases.importable(path, version)            -> bool             ("transformers.X" or "<module>.X")
    releases.behaviour(id) -> Behaviour; releases.holds(id, version) -> bool
    releases.behaviour_changes(lo, hi, facts=None) -> (Version, ...)  (releases in (lo, hi] where it changes)
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache
from importlib import resources

from hf_cache_lint.engine.environment.release_runs import Facts
from hf_cache_lint.engine.environment.release_runs import Run as Run  # re-exported: `releases.Run`, as before
from hf_cache_lint.engine.environment.release_version import Version


@dataclass(frozen=True)
class Behaviour:
    """A hand-written behaviour: from `first` (until before `gone`, when set) a use does `effect`; before, `before`."""

    id: str
    what: str
    first: Version
    effect: str
    before: str
    gone: Version | None = None  # the first release that no longer has it
    oracle: str = ""  # the oracle case that checks it (tests/oracle/release_cases.py)


@dataclass(frozen=True)
class Table:
    releases: tuple[Version, ...]
    facts: Facts
    behaviours: dict[str, Behaviour]


@cache
def table() -> Table:
    raw = json.loads(resources.files("hf_cache_lint").joinpath("data/releases.json").read_text(encoding="utf-8"))
    parse = Version.parse
    versions = {text: parse(text) for text in raw["releases"]}
    facts = Facts(raw["facts"], versions)
    behaviours = {}
    for entry in raw["behaviours"]:
        gone = entry.get("gone")
        behaviours[entry["id"]] = Behaviour(entry["id"], entry["what"], parse(entry["first"]), entry["effect"],
                                            entry["before"], parse(gone) if gone else None, entry.get("oracle", ""))
    return Table(tuple(versions.values()), facts, behaviours)


def known_releases() -> tuple[Version, ...]:
    return table().releases


def _release(version: Version | str) -> Version:
    """The table's release answering for `version`: itself, else the newest release below it (else the oldest)."""
    v = Version.parse(version) if isinstance(version, str) else version
    return _at_or_below(v)


@cache
def _at_or_below(v: Version) -> Version:
    releases = table().releases
    below = [r for r in releases if r <= v]
    return below[-1] if below else releases[0]


def value(fact: str, version: Version | str) -> str | None:
    r = _release(version)
    for run in table().facts.get(fact, ()):
        if run.first <= r <= run.last:
            return run.value
    return None


def first_gone(keys: Iterable[str]) -> Version | None:
    """The first release that lacks a fact of `keys` an earlier release had (the release after the last of a run
    that ends before the newest); None when every run reaches the newest. Reads the runs' ends only."""
    known = table().releases
    newest = str(known[-1])
    index = {str(v): i for i, v in enumerate(known)}
    return min((known[index[last] + 1] for last in table().facts.last_releases(keys) if last != newest), default=None)


def first_release(fact: str, value: str | None = None) -> Version | None:
    """The first release that has the fact (with that value, when given)."""
    for run in table().facts.get(fact, ()):
        if value is None or run.value == value:
            return run.first
    return None


@cache  # the rules ask the same few questions for every read they see
def gone_since(fact: str, version: Version | str) -> Version | None:
    """When the fact is absent at `version` but an earlier release had it: the first release without it."""
    r = _release(version)
    releases = table().releases
    last_had = None
    for run in table().facts.get(fact, ()):
        if run.first <= r <= run.last:
            return None
        if run.last < r:
            last_had = run.last
    if last_had is None:
        return None
    return releases[releases.index(last_had) + 1]


def bases(module: str, cls: str, version: Version | str) -> list[str]:
    """The bases of `module.cls` at `version`, as its `name:` fact writes them (an alias: what it aliases)."""
    return _bases(module, cls, version)


def _bases(module: str, cls: str, version: Version | str) -> list[str]:
    described = value(f"name:{module}.{cls}", version) or ""
    if described.startswith("alias("):
        return [described[6:-1]]
    inside = described[described.find("(") + 1:-1] if described.startswith("class(") else ""
    return [b.strip() for b in inside.split(",") if b.strip()]


def _fact(module: str, cls: str, name: str) -> str:
    return f"init:{module}.{cls}" if name == "__init__" else f"member:{module}.{cls}.{name}"


@cache  # asked for each method call on a layer or config, as `member` is
def owner(module: str, cls: str, name: str, version: Version | str) -> str | None:
    """The class that defines `cls.name` at `version`: `cls` itself or the first of its bases defined in the same
    module that does, breadth first over the bases (the caches' hierarchies are single-inheritance where it
    matters); None if none does."""
    seen: set[str] = set()
    stack = [cls]
    while stack:
        current = stack.pop(0)
        if current in seen:
            continue
        seen.add(current)
        if value(_fact(module, current, name), version) is not None:
            return current
        stack.extend(_bases(module, current, version))
    return None


@cache  # the rules ask the same few questions for every read they see
def member(module: str, cls: str, name: str, version: Version | str) -> str | None:
    """What `cls.name` is at `version` (`def(...)`, `property`, `attr`, ...), on the class `owner` finds; None if
    none."""
    defining = owner(module, cls, name, version)
    if defining is not None:
        return value(_fact(module, defining, name), version)
    # A module that only imports the class at this release (modeling_mamba's MambaCache came from cache_utils on
    # 4.43-4.53): the class is where transformers exports it from.
    where = value(f"export:transformers.{cls}", version) if name != "__init__" else None
    if where is not None and f"transformers.{where}" != module and value(f"init:{module}.{cls}", version) is None:
        return member(f"transformers.{where}", cls, name, version)
    return None


@cache  # the rules ask the same few questions for every read they see
def member_gone_since(module: str, cls: str, name: str, version: Version | str) -> Version | None:
    """When `cls.name` (resolved through the bases) is missing at `version` but an earlier release had it: the
    first release without it since then."""
    r = _release(version)
    if member(module, cls, name, r) is not None:
        return None
    return _gone_after(r, lambda at: member(module, cls, name, at) is not None)


@cache  # asked for each constructor call of a cache class, at every keystroke: the table holds few signatures
def parameters(signature: str) -> tuple[str, ...]:
    """The parameter names of a tabled signature (`def@deco(...) (self, a, b=1, *args, c, **kw)` -> a, b, ...):
    the last top-level parenthesised group, split at its top-level commas (a default may hold parentheses, commas
    and quotes: `offload_device=torch.device('cpu')`)."""
    groups: list[list[str]] = []
    depth, quote = 0, ""
    for ch in signature:
        if quote:
            if ch == quote:
                quote = ""
            if depth:
                groups[-1][-1] += ch
            continue
        if ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
            if depth == 1:
                groups.append([""])
                continue
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                continue
        elif ch == "," and depth == 1:
            groups[-1].append("")
            continue
        if depth:
            groups[-1][-1] += ch
    names = (p.split("=", 1)[0].strip().lstrip("*") for p in (groups[-1] if groups else []))
    return tuple(n for n in names if n and n not in ("self", "cls", "/"))


@cache  # the rules ask the same few questions for every read they see
def parameter_gone_since(fact: str, name: str, version: Version | str) -> Version | None:
    """When the signature `fact` lacks parameter `name` at `version` but an earlier release had it: the first
    release without it since then."""
    r = _release(version)

    def has(at: Version) -> bool:
        found = value(fact, at)
        return found is not None and name in parameters(found)

    return None if has(r) else _gone_after(r, has)


def _gone_after(r: Version, has: Callable[[Version], bool]) -> Version | None:
    releases = table().releases
    earlier = [at for at in releases if at < r]
    for i in range(len(earlier) - 1, -1, -1):
        if has(earlier[i]):
            return releases[i + 1]
    return None


def importable(path: str, version: Version | str) -> bool:
    """`from <module> import <Name>` works at `version` (top level: the lazy exports; else what the module binds)."""
    if path.rpartition(".")[0] == "transformers":
        return value(f"export:{path}", version) is not None
    return value(f"name:{path}", version) is not None


def behaviour(behaviour_id: str) -> Behaviour:
    return table().behaviours[behaviour_id]


def holds(behaviour_id: str, version: Version | str) -> bool:
    b = behaviour(behaviour_id)
    r = _release(version)
    return b.first <= r and (b.gone is None or r < b.gone)


def behaviour_changes(lo: Version | str, hi: Version | str, facts: Iterable[str] | None = None) -> tuple[Version, ...]:
    """The releases r with lo < r <= hi at which a hand-written behaviour, or one of `facts` (default: none
    besides the behaviours; pass fact keys to include them) starts, ends or changes value."""
    low, high = _release(lo), _release(hi)
    points: set[Version] = set()
    t = table()
    for b in t.behaviours.values():
        points.add(b.first)
        if b.gone is not None:
            points.add(b.gone)
    releases = t.releases
    for fact in facts or ():
        runs = t.facts.get(fact, ())
        for run in runs:
            points.add(run.first)
            i = releases.index(run.last)
            if i + 1 < len(releases):
                points.add(releases[i + 1])
    return tuple(sorted(p for p in points if low < p <= high))


@cache  # asked for each call of a tabled method the code makes, at every keystroke
def misfit(signature: str, qualname: str, positional: int, keywords: tuple[str, ...]) -> str | None:
    """The TypeError Python raises binding a call of `positional` plain positional arguments and these keyword
    names to the tabled method `signature` (`def(self, seq_length, device, model_kwargs)`; `self` is bound), as
    Python words it for the function `qualname`; None when the call binds. Checked in Python's order: too many
    positional arguments, an unexpected keyword, a keyword given twice, then the missing required arguments."""
    import ast  # only here: a call of a tabled method with plain arguments is rare

    inner = _last_group(signature)
    try:
        fn = ast.parse(f"def f({inner}): pass").body[0]
    except SyntaxError:
        return None
    assert isinstance(fn, ast.FunctionDef)
    a = fn.args
    positional_params = [p.arg for p in (*a.posonlyargs, *a.args)]
    bound_self = bool(positional_params) and positional_params[0] in ("self", "cls")
    if bound_self:
        positional_params = positional_params[1:]
    required_from = len(positional_params) - len(a.defaults)
    if positional > len(positional_params) and a.vararg is None:
        most = len(positional_params) + bound_self
        least = required_from + bound_self
        takes = f"{most} positional argument{'s' if most != 1 else ''}" if least == most else \
            f"from {least} to {most} positional arguments"
        given = positional + bound_self
        kw_only = sum(1 for k in keywords if k in {p.arg for p in a.kwonlyargs})
        if kw_only:  # Python then names both counts
            return f"TypeError: {qualname}() takes {takes} but {given} positional argument{'s' if given != 1 else ''} " \
                   f"(and {kw_only} keyword-only argument{'s' if kw_only != 1 else ''}) were given"
        return f"TypeError: {qualname}() takes {takes} but {given} {'were' if given != 1 else 'was'} given"
    names = [*positional_params[len(a.posonlyargs) - bound_self if a.posonlyargs else 0:],
             *(p.arg for p in a.kwonlyargs)]
    for kw in keywords:
        if kw not in names and a.kwarg is None:
            return f"TypeError: {qualname}() got an unexpected keyword argument '{kw}'"
    filled = set(positional_params[:positional])
    for kw in keywords:
        if kw in filled:
            return f"TypeError: {qualname}() got multiple values for argument '{kw}'"
    missing = [p for i, p in enumerate(positional_params) if i >= positional and i < required_from
               and p not in keywords]
    if missing:
        return f"TypeError: {qualname}() missing {len(missing)} required positional argument" \
               f"{'s' if len(missing) != 1 else ''}: {_listed(missing)}"
    missing_kw = [p.arg for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=True) if d is None and p.arg not in keywords]
    if missing_kw:
        return f"TypeError: {qualname}() missing {len(missing_kw)} required keyword-only argument" \
               f"{'s' if len(missing_kw) != 1 else ''}: {_listed(missing_kw)}"
    return None


def rejected_since(fact: str, version: Version | str, positional: int, keywords: tuple[str, ...]) -> Version | None:
    """The first release of the run of releases up to `version` whose signature `fact` rejects this call (the
    release that brings the error), when an earlier release's signature took it; None when none did (the call
    never worked: not a change of transformers'). A release whose signature the table lacks breaks the run."""
    known = table().releases
    r = _release(version)
    here = value(fact, r)
    if here is None or misfit(here, "", positional, keywords) is None:
        return None  # the target takes it (or has no such signature)
    i = known.index(r)
    while i > 0:
        before = value(fact, known[i - 1])
        if before is None or misfit(before, "", positional, keywords) is None:
            break
        i -= 1
    before = value(fact, known[i - 1]) if i > 0 else None
    return known[i] if before is not None else None


def parameter_text(signature: str) -> str:
    """A tabled signature's parameters as written, without `self`/`cls` (`config, max_cache_len, **kwargs`)."""
    inner = _last_group(signature)
    first, _, rest = inner.partition(",")
    return rest.strip() if first.strip() in ("self", "cls") else inner


def _listed(names: list[str]) -> str:
    """As Python lists missing arguments: 'a', 'a' and 'b', 'a', 'b', and 'c'."""
    quoted = [f"'{n}'" for n in names]
    if len(quoted) <= 2:
        return " and ".join(quoted)
    return ", ".join(quoted[:-1]) + ", and " + quoted[-1]


def _last_group(signature: str) -> str:
    """The inside of the last top-level parenthesised group of a tabled signature (its parameters)."""
    depth, end, quote = 0, -1, ""
    for i in range(len(signature) - 1, -1, -1):
        ch = signature[i]
        if quote:
            quote = "" if ch == quote else quote
            continue
        if ch in "'\"":
            quote = ch
        elif ch == ")":
            if depth == 0:
                end = i
            depth += 1
        elif ch == "(":
            depth -= 1
            if depth == 0:
                return signature[i + 1:end]
    return ""
