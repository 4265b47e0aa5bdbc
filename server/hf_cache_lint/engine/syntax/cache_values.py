"""Which expressions hold a transformers cache, as the module's own text says (HFC007's reads of removed
cache APIs): the cache of a `generate(..., return_dict_in_generate=True)` result (`out.past_key_values`, 5.24's
`out.cache`), a cache class called here (`DynamicCache()`, `StaticCache(...)`), and names bound only to those.

A local syntactic scan, not the interpreter's facts: a name counts only when EVERY binding of it in its scope
is such a value (a parameter, a loop variable or any other assignment makes it unknown), so a read is reported
only where the code itself says what the value is. Precision first: a false alarm is worse than a miss.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from hf_cache_lint.engine.syntax.nodes import Node, call_args, code, import_paths, imported_from

_SCOPES = ("file_input", "funcdef", "lambdef", "classdef")
_CACHE_CLASSES = frozenset({"DynamicCache", "StaticCache", "QuantizedCache", "EncoderDecoderCache"})
_OUTPUT_CACHE = ("past_key_values", "cache")  # generate's output fields holding the cache (`cache`: 5.24+)
_CACHE_MODULES = ("transformers", "transformers.cache_utils")
# Words without which no binding below can exist (the scan is skipped for other texts).
TRIGGERS = ("return_dict_in_generate", *_CACHE_CLASSES)


@dataclass(frozen=True)
class CacheValue:
    """A value the code says is a transformers cache.

    `cls`: the class called here, or None for the cache `generate` returned (a `DynamicCache` unless the call
    asks for another); `layered`: the value certainly has `.layers` of `.keys`/`.values` (4.57 and 5.x), so
    legacy indexing has a mechanical replacement (not an `EncoderDecoderCache`, nor the cache of a model
    the module does not load as a decoder-only `...ForCausalLM`).
    """

    cls: str | None
    layered: bool

    @property
    def shown_class(self) -> str:
        return self.cls or "DynamicCache"


@dataclass(frozen=True)
class _Output:
    """A name bound to `generate(..., return_dict_in_generate=True)`; `layered` as in CacheValue."""

    layered: bool


@dataclass(frozen=True)
class _Alias:
    """`x = out.past_key_values`: a cache when the name `output` holds a generate output."""

    output: Node


_Binding = CacheValue | _Output | _Alias | None  # None: anything else (a parameter, a loop variable, ...)


class CacheValues:
    """Answers "is this expression a transformers cache?" for one module."""

    def __init__(self, module: Node, text: str, modules: set[str]) -> None:
        self._modules = modules
        self._classes = _imported_cache_classes(module)
        self._decoder_only = _decoder_only_models(text)
        # A model's own code (`trust_remote_code=True`) may have its own generate or return legacy tuples:
        # what its output holds, the module does not say.
        self._remote_code = bool(re.search(r"trust_remote_code\s*=\s*(?!False\b)", text))
        self._bindings: dict[tuple[int, str], list[_Binding]] = {}
        # The module's names by spelling (none without a trigger word); a spelling's bindings are read the
        # first time a read asks for it (parso's is_definition on every name of a module cost more than the
        # rest of the scan).
        self._spelled: dict[str, list[Node]] | None = None
        self._bound: set[str] = set()
        if any(w in text for w in TRIGGERS):
            self._spelled = {}
            for name in _names(module):
                self._spelled.setdefault(name.value, []).append(name)

    def _bind(self, spelling: str) -> None:
        """Every binding of the names spelled so, by scope (a parameter, a loop variable: None)."""
        if spelling in self._bound or self._spelled is None:
            return
        self._bound.add(spelling)
        for name in self._spelled.get(spelling, ()):
            if name.is_definition():
                scope = _scope_of(name)
                self._bindings.setdefault((id(scope), spelling), []).append(self._binding(name))

    def of(self, parts: list[Node]) -> CacheValue | None:
        """The cache the expression `parts` (an atom_expr's first children, or one name) holds, if known."""
        if self._spelled is None and not any(p.type == "trailer" for p in parts):
            return None
        head = parts[0]
        if len(parts) == 1:
            value = self._resolve(head) if head.type == "name" else None
            return value if isinstance(value, CacheValue) else None
        last = parts[-1]
        if not (last.type == "trailer" and last.children[0].value == "." and last.children[1].value in _OUTPUT_CACHE):
            return None
        if len(parts) == 2 and head.type == "name":
            output = self._resolve(head)
            return CacheValue(None, output.layered) if isinstance(output, _Output) else None
        inline = self._output_of(parts[:-1])  # `model.generate(..., return_dict_in_generate=True).past_key_values`
        return CacheValue(None, inline.layered) if inline is not None else None

    def _resolve(self, name: Node, depth: int = 0) -> CacheValue | _Output | None:
        self._bind(name.value)
        scope = _scope_of(name)
        while True:
            bindings = self._bindings.get((id(scope), name.value))
            if bindings is not None or scope.type == "file_input":
                break
            scope = _scope_of(scope)
        if not bindings or depth > 3:
            return None
        values = {self._follow(b, depth) for b in bindings}
        return values.pop() if len(values) == 1 else None

    def _follow(self, binding: _Binding, depth: int) -> CacheValue | _Output | None:
        if isinstance(binding, _Alias):
            output = self._resolve(binding.output, depth + 1)
            return CacheValue(None, output.layered) if isinstance(output, _Output) else None
        return binding

    def _binding(self, name: Node) -> _Binding:
        value = _assigned_value(name)
        if value is None or value.type not in ("power", "atom_expr"):
            return None
        kids = value.children
        output = self._output_of(kids)
        if output is not None:
            return output
        cls = self._constructed(kids)
        if cls is not None:
            return CacheValue(cls, cls != "EncoderDecoderCache")
        if len(kids) == 2 and kids[0].type == "name" and kids[1].type == "trailer" \
                and kids[1].children[0].value == "." and kids[1].children[1].value in _OUTPUT_CACHE:
            return _Alias(kids[0])
        return None

    def _output_of(self, kids: list[Node]) -> _Output | None:
        """`<receiver>.generate(..., return_dict_in_generate=True)` as the whole of `kids`."""
        if self._remote_code or len(kids) < 3 or not _is_call(kids[-1]):
            return None
        attr = kids[-2]
        if not (attr.type == "trailer" and attr.children[0].value == "." and attr.children[1].value == "generate"):
            return None
        args = call_args(kids[-1])
        if not any(a.name == "return_dict_in_generate" and a.value.type == "keyword" and a.value.value == "True"
                   for a in args):
            return None
        if any(a.name == "use_cache" and a.value.type == "keyword" and a.value.value == "False" for a in args):
            return None  # no cache is built: the output's `past_key_values` is None (4.57.6, 5.23.0, 5.24.0)
        receiver = "".join(code(k) if i == 0 else k.get_code() for i, k in enumerate(kids[:-2]))
        return _Output(receiver in self._decoder_only)

    def _constructed(self, kids: list[Node]) -> str | None:
        """The cache class `kids` calls: `DynamicCache(...)` imported from transformers, `transformers.X(...)`."""
        if len(kids) == 2 and kids[0].type == "name" and _is_call(kids[1]):
            return self._classes.get(kids[0].value)
        if len(kids) == 3 and kids[0].type == "name" and kids[0].value in self._modules and _is_call(kids[2]) \
                and kids[1].children[0].value == "." and kids[1].children[1].value in _CACHE_CLASSES:
            return str(kids[1].children[1].value)
        return None


def _is_call(trailer: Node) -> bool:
    return bool(trailer.type == "trailer" and trailer.children[0].value == "(")


def _assigned_value(name: Node) -> Node | None:
    """The value of `name = value` (also `a = name = value`, `name: T = value`), else None."""
    stmt = name.parent
    if stmt is None:
        return None
    if stmt.type == "annassign":
        return stmt.children[3] if len(stmt.children) == 4 else None  # `: T = value`
    if stmt.type != "expr_stmt" or name not in stmt.children:
        return None
    kids = stmt.children
    if stmt.children[1].type == "annassign":
        annassign = kids[1]
        return annassign.children[3] if len(annassign.children) == 4 else None
    if len(kids) < 3 or kids[1].type != "operator" or kids[1].value != "=" or kids[-1] is name:
        return None
    return kids[-1]


def _scope_of(node: Node) -> Node:
    """The function, lambda, class or module whose namespace a name defined at `node` belongs to."""
    parent = node.parent
    if parent is not None and parent.type in ("funcdef", "classdef") and parent.children[1] is node:
        parent = parent.parent  # `def f` binds `f` in the enclosing scope
    while parent is not None and parent.type not in _SCOPES:
        parent = parent.parent
    return parent if parent is not None else node


def _names(module: Node) -> Iterator[Node]:
    stack = [module]
    while stack:
        node = stack.pop()
        if node.type == "name":
            yield node
        elif hasattr(node, "children"):
            stack.extend(node.children)


def _imported_cache_classes(module: Node) -> dict[str, str]:
    """Local name -> cache class, for `from transformers import DynamicCache [as D]` anywhere in the module."""
    out: dict[str, str] = {}
    for node in module.iter_imports():
        if node.type != "import_from" or node.level != 0 or imported_from(node) not in _CACHE_MODULES:
            continue
        for bound, path in import_paths(node):
            original = path[-1].value
            if original in _CACHE_CLASSES:
                out[bound.value] = original
    return out


def _decoder_only_models(text: str) -> frozenset[str]:
    """Names the module binds to a decoder-only model (`X = AutoModelForCausalLM.from_pretrained(...)`)."""
    return frozenset(re.findall(r"^[ \t\f]*([\w.]+)[ \t\f]*=[ \t\f]*(?:[\w.]+\.)?\w*ForCausalLM\b", text, re.MULTILINE))
