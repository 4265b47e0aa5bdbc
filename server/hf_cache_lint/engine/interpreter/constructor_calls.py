"""Constructor calls of transformers cache classes the target rejects (HFC007's constructor part, issue 29 item 2):

- a keyword the class's `__init__` does not take at the target (`MambaCache(batch_size=1)`: `batch_size` was
  renamed `max_batch_size`), read from the release table's `init:<module>.<Class>` signature of the module the
  import resolves to at the target; a signature with `**kwargs` takes any keyword, and a class the table has no
  constructor for is not judged;
- a class whose constructor only raises (`SinkCache(...)` from 4.53.0 until the class went in 5.0.0: the release
  table's behaviour `sink_cache_moved`);
- a number the target binds positionally to a flag that an earlier signature gave another parameter (`_rebound`:
  4.51-4.53's `StaticCache(config, 1, n)` binds as `offloading=n` from 4.56.0).

A class is a transformers cache class only where the code imports it from transformers (the top level,
`cache_utils`, a tabled model module); a name the module defines or re-binds is its own.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from hf_cache_lint.engine.base.findings import Span
from hf_cache_lint.engine.environment import releases
from hf_cache_lint.engine.environment.release_version import Version
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.engine.syntax.nodes import (
    Node,
    code,
    import_paths,
    import_statements,
    imported_from,
    span,
)

_SOURCES = ("transformers", "transformers.cache_utils")


@dataclass(frozen=True)
class Rejected:
    """One constructor call the target rejects: `keyword` (None: the constructor itself raises), the error, and
    the release that brought it (None where the table cannot say: the keyword was never taken)."""

    cls: str
    module: str  # where the code imports it from
    keyword: str | None
    error: str
    since: str | None
    span: Span
    parameters: tuple[str, ...] = ()
    positional: int | None = None  # a call whose positional arguments the target's signature rejects: their count
    remeant: Node | None = None  # the argument an earlier release took as `parameters[0]`, the target as `[1]`
    subclass: str | None = None  # a bare base-constructor call (`super().__init__()`): the subclass it builds
    # a number the target binds to a flag an earlier release bound to another parameter (`_rebound`);
    # `parameters` then holds the target's binding, the earlier parameters, and the flag
    rebound: Node | None = None


def imported_classes(module: Node, text: str | None = None) -> dict[str, tuple[str, str]]:
    """Local name -> (import source, class name) of every `from <transformers module> import <...Cache>`, and
    `<name>.` -> ("transformers", "") for `import transformers [as <name>]` (its classes are called as
    `transformers.SinkCache(...)`). `text`: the text `module` was parsed from (its imports are then found from the
    word `import`, nodes.import_statements)."""
    found: dict[str, tuple[str, str]] = {}
    if text is not None and "transformers" not in text:
        return found  # every import read here names transformers
    # Imports are statements: the walk skips the insides of expressions, in the order it always had (a later
    # import of a name wins, as at run time when both run). That order, a walk pushing children as they stand, meets
    # the imports (never one inside another) last first: the statement list's order reversed (`statements`: one list
    # shared by a check's walks).
    for node in reversed(import_statements(module, text)):
        if node.type == "import_name":
            for bound, path in import_paths(node):
                if [n.value for n in path] == ["transformers"]:
                    found[f"{bound.value}."] = ("transformers", "")
        else:
            source = imported_from(node)
            if node.level == 0 and (source in _SOURCES or source.startswith("transformers.models.")):
                for bound, path in import_paths(node):
                    name = path[-1].value
                    # and a model module's rotary embedding (`LlamaRotaryEmbedding(dim, max_position_embeddings=...)`,
                    # 4.4x; `(config, device=None)` from 4.48: release_table.py tables their constructors)
                    if name.endswith("Cache") or (name.endswith("RotaryEmbedding") and source != "transformers"):
                        found[bound.value] = (source, name)
    return found


def defining_module(source: str, name: str, target: Target) -> str | None:
    """The module whose class `from <source> import <name>` binds at the target (following the top-level lazy
    export and a model module's import of a cache_utils class), or None when the table does not know it."""
    version = target.version
    module = source
    if source == "transformers":
        sub = releases.value(f"export:transformers.{name}", version)
        if sub is None:
            return None
        module = f"transformers.{sub}"
    for _ in range(3):
        bound = releases.value(f"name:{module}.{name}", version)
        if bound is None or not bound.startswith("import("):
            return module if bound is not None else None
        path = bound[len("import("):-1]
        dots = len(path) - len(path.lstrip("."))
        parent = module.split(".")[:-dots] if dots else []
        module = ".".join([*parent, *path.lstrip(".").split(".")[:-1]])
    return None


def rejected(node: Node, classes: dict[str, tuple[str, str]], target: Target) -> Iterator[Rejected]:
    """What the target rejects in `node` when it is a call `<imported cache class>(...)`, or the base constructor's
    call in a subclass of one (`super().__init__(...)`, `DynamicCache.__init__(self, ...)`)."""
    kids = node.children
    if kids[0].type == "name" and kids[0].value in classes and len(kids) == 2 and kids[1].type == "trailer" \
            and kids[1].children[0].value == "(":
        yield from _judge(kids[0], kids[1], *classes[kids[0].value], target)
    elif len(kids) == 3 and kids[0].type == "name" and f"{kids[0].value}." in classes and kids[1].type == "trailer" \
            and kids[1].children[0].value == "." and kids[1].children[1].value.endswith("Cache") \
            and kids[2].type == "trailer" and kids[2].children[0].value == "(":
        # `transformers.SinkCache(...)`: the class read off the imported top-level module
        yield from _judge(kids[0], kids[2], "transformers", kids[1].children[1].value, target)
    elif len(kids) == 3 and kids[0].type == "name" and kids[0].value in classes and _calls_init(kids[1], kids[2]):
        # `DynamicCache.__init__(self, n)`: the instance first, then the constructor's own arguments
        source, name = classes[kids[0].value]
        args = _arguments(kids[2])
        yield from _remeant(node, kids[2], args[1:], source, name, target)
        if len(args) == 1 and args[0].type == "name" and args[0].value == "self":
            yield from _layerless(node, kids[2], source, name, target)
    elif len(kids) == 4 and kids[0].type == "name" and kids[0].value == "super" and kids[1].type == "trailer" \
            and [c.type for c in kids[1].children] == ["operator", "operator"] and _calls_init(kids[2], kids[3]):
        base = _cache_base(node, classes)
        if base is not None:
            yield from _remeant(node, kids[3], _arguments(kids[3]), *base, target)
            if not _arguments(kids[3]) and _first_base(node, classes):
                yield from _layerless(node, kids[3], *base, target)


# `Cache.__init__` from 4.56.0 takes `layers=None, layer_class_to_replicate=None` and its body raises when neither
# is given (4.54-4.55's required `layer_classes` raised a TypeError instead): a subclass of `Cache` itself whose
# `__init__` runs the base one bare, as 4.4x's `Cache.__init__(self)` took it, cannot be built. The oracle
# (`super().__init__()` in a `Cache` subclass): this ValueError on 4.57.6, 5.0.0, 5.23.0, 5.24.0 and 5.25.0, clean on
# 4.52.4 and 4.53.0. DynamicCache and the other concrete classes build their layers themselves: not judged.
_LAYERLESS = "ValueError: You should provide exactly one of `layers` or `layer_class_to_replicate` to initialize a Cache."
_LAYER_PARAMETERS = ("layers", "layer_class_to_replicate")


def _layerless(node: Node, trailer: Node, source: str, name: str, target: Target) -> Iterator[Rejected]:
    """`super().__init__()` / `Cache.__init__(self)` with no argument in a subclass of `Cache`, where the target's
    `Cache.__init__` rejects a bare call: the error, and the first release of the run of releases up to the target
    that rejects it (after one that took it)."""
    if name != "Cache":
        return
    where = defining_module(source, name, target)
    if where is None or _bare_error(where, target.version) is None:
        return
    known = [v for v in releases.known_releases() if v <= target.version]
    since = None
    for v in reversed(known):
        if _bare_error(where, v) is None:
            break
        since = v
    if since is None or since == known[0]:
        return  # no release took the bare call: not a change of transformers'
    owner = _owner(node)
    yield Rejected(name, source, None, _bare_error(where, target.version) or "", str(since),
                   Span(span(node).start, span(trailer).end), subclass=owner.name.value if owner is not None else name)


def _bare_error(where: str, version: Version) -> str | None:
    """What `Cache.__init__(self)` raises at `version` (None: it runs; the table has the signature from 4.44.0, an
    `object`'s constructor before)."""
    signature = releases.value(f"init:{where}.Cache", version)
    if signature is None:
        return None
    error = releases.misfit(signature, "Cache.__init__", 0, ())
    if error is not None:
        return error
    return _LAYERLESS if all(p in releases.parameters(signature) for p in _LAYER_PARAMETERS) else None


def _owner(node: Node) -> Node | None:
    """The class whose method `node` stands in."""
    scope = node.parent
    while scope is not None and scope.type != "funcdef":
        scope = scope.parent
    owner = scope.parent if scope is not None else None
    while owner is not None and owner.type in ("suite", "decorated"):
        owner = owner.parent
    return owner if owner is not None and owner.type == "classdef" else None


def _first_base(node: Node, classes: dict[str, tuple[str, str]]) -> bool:
    """Whether the class around `node` names the imported cache class first among its bases (`super()` then reaches
    its constructor, not a mixin's)."""
    owner = _owner(node)
    arglist = owner.get_super_arglist() if owner is not None else None
    first = None if arglist is None else arglist.children[0] if arglist.type == "arglist" else arglist
    return bool(first is not None and first.type == "name" and first.value in classes)


# A positional argument whose meaning changed while the call still binds: 4.45-4.49's `DynamicCache(num_hidden_layers)`
# is, from 4.50.0, the distributed cache data (`_distributed_cache_data`, `ddp_cache_data` from 4.54), which the
# constructor iterates: a layer count raises (the oracle, `super().__init__(4)` in a DynamicCache subclass and
# `DynamicCache(4)`: TypeError: 'int' object is not iterable on 4.52.4, 4.53.0, 4.57.6, 5.0.0, 5.24.0), None still
# builds an empty cache. (class, the old parameter) -> the error a number raises where the parameter is gone.
_REMEANT = {("DynamicCache", "num_hidden_layers"): "TypeError: 'int' object is not iterable"}
# An argument the code says is a layer count: a number, or a name (an attribute) that says so.
_LAYER_COUNT = re.compile(r"(?:^|[._])(?:num_hidden_layers|num_layers|n_layers?|layer_count)$")


def _remeant(node: Node, trailer: Node, args: list[Node], source: str, name: str,
             target: Target) -> Iterator[Rejected]:
    """The first positional argument of a cache constructor that an earlier release took as a layer count and the
    target takes as something it iterates (`_REMEANT`); not a None constant (still fine), nor a call with `*args`."""
    first = args[0] if args else None
    if first is None or first.type in ("argument", "star_expr") or not (
            first.type == "number" or _LAYER_COUNT.search(code(first).strip()) is not None):
        return  # what the code does not say is a layer count (`DynamicCache(legacy)`, None) is not judged
    where = defining_module(source, name, target)
    signature = releases.value(f"init:{where}.{name}", target.version) if where is not None else None
    params = releases.parameters(signature) if signature is not None else ()
    for (cls, old), error in _REMEANT.items():
        if cls != name or not params or params[0] == old:
            continue
        since = releases.parameter_gone_since(f"init:{where}.{name}", old, target.version)
        if since is None:
            continue
        yield Rejected(name, source, None, error, str(since), Span(span(node).start, span(trailer).end),
                       (old, params[0]), remeant=first)


def _calls_init(attribute: Node, call: Node) -> bool:
    return bool(attribute.type == "trailer" and attribute.children[0].value == "."
                and attribute.children[1].value == "__init__" and call.type == "trailer"
                and call.children[0].value == "(")


def _cache_base(node: Node, classes: dict[str, tuple[str, str]]) -> tuple[str, str] | None:
    """The imported cache class (its import source and name) that the class around `node` derives from directly."""
    scope = node.parent
    while scope is not None and scope.type != "funcdef":
        scope = scope.parent
    owner = scope.parent if scope is not None else None
    while owner is not None and owner.type in ("suite", "decorated"):
        owner = owner.parent
    if owner is None or owner.type != "classdef":
        return None
    arglist = owner.get_super_arglist()
    bases = [] if arglist is None else arglist.children if arglist.type == "arglist" else [arglist]
    found = [classes[b.value] for b in bases if b.type == "name" and b.value in classes]
    return found[0] if len(found) == 1 else None


def _judge(callee: Node, trailer: Node, source: str, name: str, target: Target) -> Iterator[Rejected]:
    where = defining_module(source, name, target)
    if where is None:
        return  # not importable at the target: the import is HFC007's finding
    if name == "SinkCache" and releases.holds("sink_cache_moved", target.version):
        b = releases.behaviour("sink_cache_moved")
        yield Rejected(name, source, None, b.effect, str(b.first), Span(span(callee).start, span(trailer).end))
        return
    signature = releases.value(f"init:{where}.{name}", target.version)
    if signature is None:
        return
    params = releases.parameters(signature)
    for keyword in _keywords(trailer) if "**" not in signature else ():  # `**kwargs` takes any keyword
        if keyword.value in params:
            continue
        error = f"TypeError: {name}.__init__() got an unexpected keyword argument '{keyword.value}'"
        yield Rejected(name, source, keyword.value, error, None, span(keyword), params)
        return  # the first one raises
    yield from _positional(callee, trailer, source, name, where, signature, target)
    yield from _rebound(callee, trailer, source, name, where, signature, target)
    yield from _remeant(callee, trailer, _arguments(trailer), source, name, target)


def _positional(callee: Node, trailer: Node, source: str, name: str, where: str, signature: str,
                target: Target) -> Iterator[Rejected]:
    """Positional arguments the target's constructor cannot bind (`StaticCache(config, 1, 256, "cpu",
    torch.float16)`, 4.4x's order, on 4.56+: too many), where an earlier release's constructor took the call: the
    TypeError as Python words it, and the first release of the run of signatures up to the target that reject it. A call with `*args` or
    `**kwargs` is not judged."""
    args = _arguments(trailer)
    if any((a.type == "argument" and a.children[0].type == "operator") or a.type == "star_expr" for a in args):
        return  # `*args` / `**kwargs`: what they hold is not known
    positional = sum(1 for a in args if a.type != "argument")
    keywords = tuple(a.children[0].value for a in args if a.type == "argument" and a.children[0].type == "name")
    error = releases.misfit(signature, f"{name}.__init__", positional, keywords)
    if error is None:
        return
    since = releases.rejected_since(f"init:{where}.{name}", target.version, positional, keywords)
    if since is None:
        return  # no release took this call: not a change of transformers'
    yield Rejected(name, source, None, error, str(since), Span(span(callee).start, span(trailer).end),
                   (releases.parameter_text(signature),), positional)


# A positional argument the target binds to a flag (a parameter whose default is `False`/`True`) that the last
# earlier signature naming its parameters bound to another parameter: SpQR's `StaticCache(model.config, 1, seq_len +
# 2 * n + 1)`, 4.51-4.53's `(config, max_batch_size, max_cache_len)`, binds from 4.56.0 as `(config, max_cache_len,
# offloading)`: a cache of one position whose layers are offloaded, which needs an accelerator stream (the oracle,
# heldout15 `sq_positional_cache`: AssertionError: Torch not compiled with CUDA enabled on 4.57.6, 5.23.0, 5.24.0 and
# 5.25.0). Judged only where the code says the argument is a number (a literal or arithmetic), never a flag.
_NUMBER_TYPES = frozenset({"number", "arith_expr", "term"})
_FLAG_DEFAULTS = frozenset({"False", "True"})
# What a number given to the flag does, per flag the oracle ran (only those are judged).
_FLAG_ERRORS = {"offloading": "AssertionError: Torch not compiled with CUDA enabled"}


def _rebound(callee: Node, trailer: Node, source: str, name: str, where: str, signature: str,
             target: Target) -> Iterator[Rejected]:
    """Positional arguments the target's constructor binds (no TypeError) with a number landing on a flag that an
    earlier release's signature gave another parameter: the binding at the target, the one before, and the first
    release of the run of signatures up to the target binding it so."""
    args = _arguments(trailer)
    if any((a.type == "argument" and a.children[0].type == "operator") or a.type == "star_expr" for a in args):
        return
    plain = [a for a in args if a.type != "argument"]
    keywords = tuple(a.children[0].value for a in args if a.type == "argument" and a.children[0].type == "name")
    if releases.misfit(signature, f"{name}.__init__", len(plain), keywords) is not None:
        return
    got = _rebinding(f"init:{where}.{name}", signature, target.version, len(plain), keywords)
    if got is None:
        return
    now, earlier, since = got
    for i, arg in enumerate(plain):
        if i >= len(now) or i >= len(earlier) or now[i][0] == earlier[i][0]:
            continue
        if now[i][1] in _FLAG_DEFAULTS and now[i][0] in _FLAG_ERRORS and arg.type in _NUMBER_TYPES and \
                code(arg).strip() not in ("0", "0.0"):  # a zero is a false flag
            bound = ", ".join(f"{now[j][0]}={code(a).strip()}" for j, a in enumerate(plain) if now[j][0] != earlier[j][0])
            before = ", ".join(f"{earlier[j][0]}" for j, _ in enumerate(plain) if now[j][0] != earlier[j][0])
            yield Rejected(name, source, None, _FLAG_ERRORS[now[i][0]], str(since), Span(span(callee).start, span(trailer).end),
                           (bound, before, now[i][0]), rebound=arg)
            return


Positions = tuple[tuple[str, str | None], ...]  # _named_positions: each positional parameter and its default


@lru_cache(maxsize=256)
def _rebinding(fact: str, signature: str, version: Version, positional: int, keywords: tuple[str, ...]
               ) -> tuple[Positions, Positions, Version] | None:
    """`_rebound`'s reading of the release table for a call of `positional` arguments and `keywords` that the
    target's `signature` takes: its positional parameters, those of the last earlier signature naming its parameters
    that takes the call too, and the first release of the run of signatures up to the target equal to it (None:
    none to compare). A function of its arguments and the release table (a keystroke in a script with a cache
    constructor call read the table's releases anew, ~0.2 ms)."""
    now = _named_positions(signature)
    if now is None:
        return None
    known = [v for v in releases.known_releases() if v <= version]
    since = version
    earlier: list[tuple[str, str | None]] | None = None
    for v in reversed(known):
        text = releases.value(fact, v)
        if text is None:
            return None
        if text == signature:
            since = v
            continue
        earlier = _named_positions(text)
        if earlier is not None and releases.misfit(text, "", positional, keywords) is None:
            break
        earlier = None
        if "*" not in text:
            return None  # a signature naming its parameters that rejects the call: the code was not written for it
    if earlier is None:
        return None
    return tuple(now), tuple(earlier), since


def _named_positions(signature: str) -> list[tuple[str, str | None]] | None:
    """The positional parameters of a tabled signature with their defaults as written (None: required); None for a
    signature taking `*args` (what it binds where is not said)."""
    import ast  # only here: a positional cache constructor call is rare

    try:
        fn = ast.parse(f"def f({releases.parameter_text(signature)}): pass").body[0]
    except SyntaxError:
        return None
    assert isinstance(fn, ast.FunctionDef)
    a = fn.args
    if a.vararg is not None:
        return None
    params = [p.arg for p in (*a.posonlyargs, *a.args)]
    defaults: list[str | None] = [None] * (len(params) - len(a.defaults)) + [ast.unparse(d) for d in a.defaults]
    return list(zip(params, defaults, strict=True))


def _arguments(trailer: Node) -> list[Node]:
    """The argument nodes of a call's trailer (without the commas)."""
    inside = trailer.children[1] if len(trailer.children) == 3 else None
    if inside is None:
        return []
    args = inside.children if inside.type == "arglist" else [inside]
    return [a for a in args if not (a.type == "operator" and a.value == ",")]


def _keywords(trailer: Node) -> Iterator[Node]:
    """The names of the keyword arguments written in a call's trailer (`**kw` unpacks are not judged)."""
    inside = trailer.children[1] if len(trailer.children) == 3 else None
    if inside is None:
        return
    args = inside.children if inside.type == "arglist" else [inside]
    for arg in args:
        if arg.type == "argument" and len(arg.children) == 3 and arg.children[1].value == "=" \
                and arg.children[0].type == "name":
            yield arg.children[0]
