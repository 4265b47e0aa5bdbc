"""Expressions to abstract values: names, literals, containers, attributes, subscripts, `a if c else b`;
a call's arguments are evaluated here and the call itself handed to the call dispatch (calls.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import TYPE_CHECKING

from hf_cache_lint.engine.facts.cache_use import model_member_recorded
from hf_cache_lint.engine.interpreter.bindings import SELF_RETURNING
from hf_cache_lint.engine.interpreter.chain_text import _CHAIN_PREFIX, _CHAIN_WINDOW, _ELIDED, _head, _text
from hf_cache_lint.engine.interpreter.comprehension_scope import comprehended_cache, comprehension_uses
from hf_cache_lint.engine.interpreter.imports import WorkspaceImports
from hf_cache_lint.engine.interpreter.model_subclasses import LOADERS, enclosing_method, model_of
from hf_cache_lint.engine.interpreter.narrowing import narrow, narrowing
from hf_cache_lint.engine.interpreter.none_comparisons import emptiness_tested
from hf_cache_lint.engine.interpreter.output_values import output_cache, stored, sub_cache
from hf_cache_lint.engine.interpreter.session import EvArg, Session
from hf_cache_lint.engine.interpreter.values import (
    ALWAYS_TRACKED,
    MAX_DICT_KEYS,
    NONE,
    UNKNOWN,
    CacheVal,
    ClassDef,
    Cond,
    ConfigState,
    Const,
    DictState,
    Entry,
    Function,
    InstanceState,
    LayerVal,
    Lazy,
    ListVal,
    Maybe,
    Method,
    ModelState,
    Output,
    PipelineState,
    Ref,
    Symbol,
    TupleVal,
    Unknown,
    Value,
    cache_layers,
    list_item,
    list_joined,
    listed,
    maybe,
    tuple_val,
)
from hf_cache_lint.engine.output.analysis import CiLocation, CiValue, Site
from hf_cache_lint.engine.syntax.constants import literal_truth, number_value
from hf_cache_lint.engine.syntax.nodes import Arg, Node, call_args, code, span, string_value

if TYPE_CHECKING:
    from hf_cache_lint.engine.interpreter.cache_uses import CacheUses
    from hf_cache_lint.engine.interpreter.calls import CallDispatch

_KEYWORD_CONSTS = {"None": None, "True": True, "False": False}
# Leaves whose `eval` only builds a constant (no lookup, no call, nothing recorded).
_LITERALS = frozenset({"number", "string", "keyword"})


class _KeptKeys:
    """The keys `DictState.build` keeps of entries given in order, told one entry at a time (`add`): the same
    rule (a key seen before is kept, moved last; a new one only below MAX_DICT_KEYS or when always tracked)."""

    def __init__(self, keys: Iterable[str] = ()) -> None:
        self.keys: set[str] = set()
        self.update(keys)

    def add(self, key: str) -> bool:
        """Whether `build` keeps the next entry, of this key."""
        if key in self.keys:
            return True
        if len(self.keys) >= MAX_DICT_KEYS and key not in ALWAYS_TRACKED:
            return False
        self.keys.add(key)
        return True

    def update(self, keys: Iterable[str]) -> None:
        for key in keys:
            self.add(key)
CACHE_ATTRS = ("past_key_values", "cache", "cache_params")
# Attributes whose use on an imported workspace name is worth analysing that module for.
FORCING_ATTRS = frozenset({"generate", "generation_config", "save_pretrained", "forward", "model", "update", "pop",
                           "get", "setdefault", "copy", "to", "cuda", "eval", "half", "cache_implementation",
                           *CACHE_ATTRS})


class Expressions:
    """Evaluates one expression node on the session's current path (each node is a step of the budget).

    Inputs: the session, the workspace imports (to force a `Lazy` name where its value matters) and, wired
    by the Interpreter once built, the call dispatch (`dispatch`) that a `f(...)` trailer goes to. An
    expression may change the state: a call runs, `x := v` binds, a dict display allocates on the heap.
    A new expression form goes in `eval`; a new attribute of a tracked object goes in `attribute`.
    """

    dispatch: CallDispatch
    uses: CacheUses  # wired by the Interpreter: the cache and model uses this part sees (reads, subscripts)

    def __init__(self, session: Session, imports: WorkspaceImports) -> None:
        self.s = session
        self.imports = imports
        # Keyed by the nodes' id() (session.py says why).
        self._args: dict[int, list[Arg]] = {}  # a call trailer's arguments, once per trailer
        self._texts: dict[tuple[int, int], str] = {}  # `self._chain_text(head, trailers)`, by head and last trailer
        self._unknowns: dict[tuple[int, int], Unknown] = {}  # the unknown value named by that text, likewise

    def eval(self, node: Node) -> Value:
        self.s.steps += 1
        t = node.type
        if t == "name":
            return self.s.lookup(node.value)
        if t == "keyword":
            return Const(_KEYWORD_CONSTS[node.value], self.s.site(node)) if node.value in _KEYWORD_CONSTS else UNKNOWN
        if t in ("string", "strings"):
            s = string_value(node)
            return Const(s, self.s.site(node)) if s is not None else UNKNOWN
        if t == "number":
            n = _number(node.value)
            return Const(n, self.s.site(node)) if n is not None else UNKNOWN
        if t in ("power", "atom_expr"):
            return self.eval_trailers(node)
        if t == "atom":
            return self.eval_atom(node)
        if t in ("testlist_star_expr", "testlist", "exprlist"):
            return tuple_val(self.s.site(node), (self.eval(c) for c in node.children if c.type != "operator"))
        if t == "test" and len(node.children) == 5:  # a if c else b
            if self.uses.on:
                # The test runs whichever side is taken: its own uses of a cache (`1 if cache.get_max_length() else
                # 0` raises on 4.57) are the code's as much as a side's.
                self.eval(node.children[2])
            decided = literal_truth(node.children[2])
            if decided is None and self.s.guards is not None:
                decided = self.s.guards.decide(node.children[2])
            if decided is None and self.uses.on:  # `kv if not kv_rank else ...` on the empty list the code built
                decided = emptiness_tested(node.children[2], self.eval)
            if decided is not None:
                return self.eval(node.children[0 if decided else 4])
            test = node.children[2]
            # Each side under its condition, so `c if flag else None` and a value set under `not flag`
            # are seen to exclude each other (the path decides the test where it already knows it).
            cond = Cond(self.s.code(test.children[1]), False) if test.type == "not_test" else \
                Cond(self.s.code(test), True)
            known = self.s.state.decides(cond)
            if known is not None:
                return self.eval(node.children[0 if known else 4])
            a, b = self.eval(node.children[0]), self.eval(node.children[4])
            return maybe(((a, cond), (b, cond.negated()))) if a != b else a
        if t in ("or_test", "and_test"):
            return self._logic(node, t == "and_test")
        if t == "namedexpr_test":
            value = self.eval(node.children[2])
            self.s.state.names[node.children[0].value] = value
            return value
        if t in ("await", "atom_expr") or (t == "keyword" and node.value == "await"):
            return self.eval(node.children[-1])
        if t == "lambdef":
            return UNKNOWN
        if t in _OPERATIONS and self.uses.on:
            # The operands run for what they use of a cache (`n + cache.get_seq_length()`); the value stays unknown,
            # except a tuple or list repeated or joined (a legacy cache built as `((k, v),) * n`, `kept + new`).
            operands = [self.eval(c) for c in node.children if c.type not in ("operator", "keyword")]
            return _sequence(node, operands, self.s.site(node)) if t in ("term", "arith_expr") else UNKNOWN
        return UNKNOWN

    def _logic(self, node: Node, conjunction: bool) -> Value:
        """`a and b`, `a or b`: each operand in turn, the later ones where the earlier hold (`and`) or fail (`or`):
        `isinstance(x, Cache) and x.seen_tokens` reads a transformers cache's attribute (narrowing.py)."""
        vals: list[Value] = []
        narrowed: list[tuple[str, Value, Value]] = []  # (name, its narrowed cache, what it held before)
        for c in node.children[::2]:
            vals.append(self.eval(c))
            if self.uses.on and c is not node.children[-1]:
                names = narrowing(c, self)[0 if conjunction else 1]
                narrowed.extend((name, self.s.state.names[name], was) for name, was in narrow(names, self).items())
        names_now = self.s.state.names
        for name, cache, was in reversed(narrowed):  # after the expression, neither side is known
            if names_now.get(name) is cache:
                names_now[name] = was
        return maybe((v, None) for v in vals)

    def eval_atom(self, node: Node) -> Value:
        first = node.children[0]
        if self.uses.on and len(node.children) == 3 and first.value in "([{":
            comprehension_uses(self, node.children[1])
        if first.value == "{":
            return self.eval_dict(node.children[1] if len(node.children) == 3 else None, node)
        if first.value == "(":
            if len(node.children) == 2:
                return TupleVal(self.s.site(node))
            inner = node.children[1]
            if inner.type == "testlist_comp" and any(c.type == "operator" and c.value == "," for c in inner.children):
                return tuple_val(self.s.site(node), (self.eval(c) for c in inner.children if c.type != "operator"))
            if inner.type == "testlist_comp":  # a generator expression
                return UNKNOWN
            return self.eval(inner)
        if first.value == "[":
            # Its items are not evaluated (as before lists had a value), except names, whose reading runs nothing:
            # `[prefix_cache]` is a list of that cache (values.py `ListVal.item`), `[]` an empty one.
            if not self.uses.on:
                return ListVal(self.s.site(node))
            if len(node.children) == 2:
                return list_joined(self.s.site(node), ())
            inner = node.children[1]
            names = [inner] if inner.type == "name" else [c for c in inner.children if c.type != "operator"] \
                if inner.type == "testlist_comp" and not any(c.type in ("comp_for", "sync_comp_for")
                                                             for c in inner.children) else []
            if not names or any(c.type != "name" for c in names):
                items = names if names or inner.type == "testlist_comp" else [inner]
                for c in items:  # `torch.cat([cache.key_cache[i], k])`: an item read, which has no effect, is a use
                    if c.type != "name" and (_effect_free(c) or _own_call(c, self.s.lookup)):
                        self.eval(c)
                return ListVal(self.s.site(node))
            return list_joined(self.s.site(node), (), (self.eval(c) for c in names))
        return UNKNOWN

    def eval_dict(self, body: Node | None, whole: Node) -> Value:
        # Entries are gathered first and the dict built once: setting them one by one copied the entries
        # every time (a 40,000-entry literal took 21 s).
        items: list[Entry] = []
        opaque = False
        kept = _KeptKeys()  # which entries `DictState.build(items)` keeps: one it drops needs no site
        if body is not None and body.type == "dictorsetmaker":
            kids = body.children
            if any(c.type in ("comp_for", "sync_comp_for") for c in kids):
                # `{k: StaticCache(...) for k in ...}`: each value a cache of one class (keys unseen)
                every = comprehended_cache(self, kids[2]) if len(kids) == 4 and kids[1].type == "operator" \
                    and kids[1].value == ":" else None
                return self.s.new(DictState(opaque=True, every=every))
            i = 0
            while i < len(kids):
                c = kids[i]
                if c.type == "operator" and c.value == "**":
                    spread = self.eval(kids[i + 1])
                    src = self.s.obj(self.imports.force(spread))
                    if isinstance(spread, Maybe):  # rebound on some paths: merge_into sets keys by condition
                        merged = self.merge_into(DictState.build(items, opaque), spread)
                        items, opaque = list(merged.entries), merged.opaque
                        kept = _KeptKeys(e[0] for e in items)
                    elif isinstance(src, DictState):
                        items.extend(src.entries)
                        kept.update(e[0] for e in src.entries)
                        opaque = opaque or src.opaque
                    else:
                        opaque = True
                    i += 3
                    continue
                if i + 2 < len(kids) and kids[i + 1].type == "operator" and kids[i + 1].value == ":":
                    key = string_value(c)
                    vnode = kids[i + 2]
                    if key is None:
                        opaque = True
                    elif kept.add(key):
                        items.append((key, self.eval(vnode), self.s.site(c, f"`{code(c)}: {_head(vnode, 40)}`"), None))
                        self.note_ci(key, vnode, "dict")
                    else:
                        # Past the keys a dict tracks (a large literal table): the entry is dropped, so neither its
                        # site nor, for a literal, its value is built; anything else still runs (a call records).
                        if vnode.type in _LITERALS:
                            self.s.steps += 1  # what eval counts for it
                        else:
                            self.eval(vnode)
                        opaque = True
                    i += 4
                    continue
                i += 1
        return self.s.new(DictState.build(items, opaque))

    def eval_args(self, trailer: Node) -> list[EvArg]:
        """A call trailer's arguments, each evaluated, in order."""
        out = []
        # A `cache_implementation=` keyword is checked only where transformers receives it (generate, a
        # GenerationConfig, a pipeline that reaches generate): another callee (a user's own `generate`, another
        # library) takes its own parameters.
        written = self._args.get(id(trailer))
        if written is None:
            written = self._args[id(trailer)] = call_args(trailer)  # a body runs at every call it is inlined at
        for a in written:
            if a.value.type == "argument" and self.uses.on:  # `tuple(k for k, v in cache)`: a generator argument
                comprehension_uses(self, a.value)
            out.append(EvArg(a, self.eval(a.value)))
        return out

    def merge_into(self, d: DictState, value: Value) -> DictState:
        """`d` with the keys of the dict `value` holds added (`**value`, `d.update(value)`): a dict rebound on
        some paths (a Maybe) adds each key under its condition; anything but a dict makes `d` opaque."""
        if isinstance(value, Maybe):
            return self._merge_options(d, value)
        src = self.s.obj(self.imports.force(value))
        if isinstance(src, DictState):
            return DictState.build((*d.entries, *src.entries), d.opaque or src.opaque)
        return DictState(d.entries, opaque=True)

    def _merge_options(self, d: DictState, value: Maybe) -> DictState:
        """`**kw` where `kw` was rebound on some paths (`kw = {}` then `if x: kw = {...}`): a key every
        option holds alike is as certain as the dict; a key only some hold is set under their condition."""
        options: list[tuple[DictState, Cond | None]] = []
        for v, c in value.options:
            forced = self.imports.force(v)
            src = self.s.obj(forced)
            if isinstance(src, DictState):
                options.append((src, c))
            elif isinstance(forced, Const) and forced.value is None:
                options.append((DictState(), c))  # `**(kw or {})`-style: no keys on that path
            else:
                return DictState(d.entries, opaque=True)
        keys = list(dict.fromkeys(k for src, _ in options for k, *_ in src.entries))
        for key in keys:
            present = [(entry, c) for src, c in options if (entry := src.get(key)) is not None]
            (v, site, own), cond = present[0]
            if len(present) == len(options) and all(entry == present[0][0] for entry, _ in present):
                d = d.set(key, v, site, own)
            else:
                d = d.set(key, v, site, own or cond or Cond("a condition", True))
        return DictState(d.entries, d.opaque or any(src.opaque for src, _ in options))

    def note_ci(self, key: str, vnode: Node, where: CiLocation) -> None:
        if key == "cache_implementation":
            s = string_value(vnode)
            if s is not None:
                self.s.record(CiValue(s, span(vnode), where))

    def eval_trailers(self, node: Node) -> Value:
        kids = node.children
        start = 1
        if kids[0].type == "keyword" and kids[0].value == "await":
            return self.eval(kids[1]) if len(kids) == 2 else self.eval_chain(kids[1], kids[2:], node)
        return self.eval_chain(kids[0], kids[start:], node)

    def eval_chain(self, head: Node, trailers: list[Node], whole: Node) -> Value:
        value = self.eval(head)
        start = 0
        if head.type == "name" and head.value == "super" and trailers and code(trailers[0]).strip() == "()":
            model = self._super_model(head)
            if model is not None:
                value, start = model, 1
        for i, t in enumerate(trailers):
            if i < start:
                continue
            if t.type != "trailer":
                return UNKNOWN
            opener = t.children[0].value
            # What a step sees of the chain so far (its text, the last two trailers): a long chain
            # (`x.m().m()...`, `f()()()`) passes its first trailers, a marker and the last two instead of
            # a copy of every trailer at every step, which made the chain quadratic.
            seen = trailers[: i + 1] if i < _CHAIN_WINDOW else [*trailers[:_CHAIN_PREFIX], _ELIDED, *trailers[i - 1: i + 1]]
            if opener == ".":
                if self.uses.on and not (i + 1 < len(trailers) and _is_call(trailers[i + 1])):
                    self.uses.member(value, "read", t, head, seen[:-1])  # a call is recorded with its arguments
                    inner = self._subclass_model(value, t.children[1].value)
                    if inner is not None:
                        self.uses.subclass_member(inner[0], inner[1], t, head, seen[:-1])
                value = self.attribute(value, t.children[1].value, head, seen)
            elif opener == "(":
                value = self.dispatch.call(value, t, head, seen)
            else:
                if self.uses.on:
                    self.uses.subscript(value, t, head, seen[:-1])
                    self._index_uses(t.children[1])
                value = self.subscript(value, t)
        return value

    def _index_uses(self, node: Node) -> None:
        """The index runs before the subscript: its own uses of a cache (`ids[:, cache.get_usable_length(n):]`,
        `input_ids[:, seen(past):]`) are the code's. A slice's bounds and a tuple of indices, each evaluated."""
        if node.type in ("subscript", "subscriptlist", "sliceop"):
            for child in node.children:
                if child.type != "operator":
                    self._index_uses(child)
        elif node.type not in ("name", "number", "string", "operator", "keyword"):
            self.eval(node)

    def attribute(self, value: Value, name: str, head: Node, trailers: list[Node]) -> Value:
        if type(value) is Unknown:  # the common case, as the end of this method has it
            return Method(value, name) if name == "generate" else self._chain_unknown(head, trailers)
        if name == "append" and self.uses.on and listed(value):
            return Method(value, name)  # `caches.append(cache)`: methods.py puts it in the list the name holds
        if isinstance(value, Lazy):
            if name not in FORCING_ATTRS:
                return self._chain_unknown(head, trailers)
            value = self.imports.force(value)
        if isinstance(value, Symbol):
            return Symbol(f"{value.qualname}.{name}")
        if isinstance(value, Maybe):
            each = [(self.attribute(v, name, head, trailers), c) for v, c in value.options]
            vals = {v for v, _ in each}
            if len(vals) == 1:
                return vals.pop()
            if all(type(v) is CacheVal for v, _ in each):
                # `out.past_key_values` of a prefill's or a decode step's forward (`if i == 0:` in the loop): a
                # cache on every path, each its own, which the code keeps (`model._fschat_pkv = ...`).
                return maybe(each)
            present = [v for v, _ in value.options if not (type(v) is Const and v.value is None)]
            if self.uses.on and self.uses.subject(value, name) is not None and all(
                    (type(v) is CacheVal or self.uses.subject(v, name) is not None)
                    and type(self.attribute(v, name, head, trailers)) is Method for v in present):
                # A transformers cache's method on every path (None aside: the call raises there anyway), through
                # different objects (cache_uses.py `_same_class`): one method of the value, so its call is recorded
                # (none of them is the project's). A cache object on a path counts whether or not the code says it
                # is transformers' (a remote-code model's, as a single one does: `CacheVal` is never the project's
                # class), where the value's subject is said (MiniCPM-o's snapshot crop: the cache an `isinstance(c,
                # DynamicCache)` test let through on one path, the remote-code model's own on the other).
                return Method(value, name)
            return self._chain_unknown(head, trailers)
        obj = self.s.obj(value)
        if isinstance(obj, ModelState):
            if name == "generation_config" and obj.gen_config is not None:
                return obj.gen_config
            if name == "module":  # DistributedDataParallel / DataParallel wrappers
                return value
            if name == "model" and obj.is_transformers and obj.decoder_only and not obj.remote_code:
                # The decoder inside a `...ForCausalLM` (`lm.model(inputs_embeds=..., past_key_values=...)`,
                # Janus's image loop): its forward takes and returns the cache as the outer model's does.
                return value
            if name == "generate" and obj.generate is not None:
                return obj.generate  # replaced: `model.generate = functools.partial(model.generate, ...)`
            if name == "forward" and obj.forward is not None:
                return obj.forward  # replaced on this instance (the original stays `Method(model, "forward")`)
            alias = next((v for k, v in obj.aliases if k == name), None)
            return alias if alias is not None else Method(value, name)
        if isinstance(obj, InstanceState):
            got = obj.get(name)
            if got is None and name == "layers" and obj.cache_base and not obj.skips_init and name not in obj.own:
                # `self.layers` in the project's subclass of a transformers cache: the base's layers
                layers = cache_layers(obj.cache_base.rpartition(".")[2], f"`{obj.class_name}`")
                if layers is not None:
                    return layers
            model = model_of(obj) if got is None else None
            if model is not None and not self._defines(obj.class_name, name) and name not in SELF_RETURNING:
                return self.attribute(model, name, head, trailers)  # the transformers model's (`self.generate`)
            return got if got is not None else Method(value, name)
        if isinstance(obj, PipelineState) and name == "model" and obj.model is not None:
            return obj.model
        if isinstance(obj, (ConfigState, DictState, PipelineState)):
            return Method(value, name)
        if isinstance(value, Output) and (kept := stored(value, name)) is not None:
            return kept  # what the code stored there (`out.past_key_values = legacy`), not the forward's cache
        if isinstance(value, Output) and name in CACHE_ATTRS:
            return output_cache(value, name)
        if isinstance(value, CacheVal):
            if name == "layers" and value.said and value.layered and value.window is None:
                layers = cache_layers(value.cls, f"`{value.class_name}`" if value.cls == value.class_name
                                      else value.class_name)
                if layers is not None:  # a list of the layers the class builds (values.py `LayerVal`)
                    return layers
            part = sub_cache(value, name)  # `cache.cross_attention_cache` of an EncoderDecoderCache
            return part if part is not None else Method(value, name)
        if type(value) is LayerVal:
            return Method(value, name)  # a layer's member: its call is recorded (cache_uses.py `call`)
        if isinstance(value, Unknown) and name == "generate":
            return Method(value, name)  # an unseen receiver: maybe a model (jedi may refute it)
        if type(value) is ClassDef:  # `Cls.from_cache(cache)`: the module's own classmethod or staticmethod
            fn = self.dispatch.functions.class_function(value, name)
            if fn is not None:
                return fn
            if value.model_base and name in LOADERS:  # `Chat.from_pretrained(...)`: the model's loader (methods.py)
                return Method(value, name)
            if value.cache_base and name not in value.own and not name.startswith("__"):
                # `OwnCache.from_legacy_cache(past)` of the project's subclass of a transformers cache class that does
                # not define it: transformers' classmethod (cache_uses.py records the call on the class).
                return Method(value, name)
        return self._chain_unknown(head, trailers)

    def _subclass_model(self, value: Value, name: str) -> tuple[Ref, str] | None:
        """The transformers model an instance of the project's model subclass is, and the subclass's name, when
        neither the instance nor its classes have `name` (a member of the model: `self._supports_cache_class` in a
        mixin's generate); None otherwise."""
        if type(value) is not Ref or not model_member_recorded(name):
            return None
        obj = self.s.obj(value)
        if not isinstance(obj, InstanceState) or obj.get(name) is not None:
            return None
        model = model_of(obj)
        if model is None or self._defines(obj.class_name, name):
            return None
        return model, obj.class_name

    def _defines(self, class_name: str, name: str) -> bool:
        """Whether the project's class defines method `name` (itself or through its own classes on the way)."""
        functions = self.dispatch.functions
        if functions.method_of(class_name, name) is not None:  # records what a replayed run read of the class
            return True
        cls = self.s.module_state.names.get(class_name)
        return not isinstance(cls, ClassDef) or functions.defines(cls, name)

    def _super_model(self, head: Node) -> Ref | None:
        """`super()` in a method of a direct subclass of a transformers model class, `self` an instance of it: the
        transformers model (`super().generate(...)` is its generate). None elsewhere (a base of the project's own
        between: its methods come first)."""
        found = enclosing_method(head)
        if found is None:
            return None
        fn, cls_node = found
        params = fn.get_params()
        receiver = self.s.state.names.get(params[0].name.value) if params else None
        obj = self.s.obj(receiver) if receiver is not None else None
        model = model_of(obj) if isinstance(obj, InstanceState) else None
        if model is None:
            return None
        bases = self.dispatch.functions.bases(cls_node)
        return model if bases and not any(isinstance(b, ClassDef) for b in bases) else None

    def _chain_unknown(self, head: Node, trailers: list[Node]) -> Unknown:
        """`Unknown(f"`{self._chain_text(head, trailers)}`")`, one value per chain position (values are
        immutable and compared by value: sharing one changes nothing)."""
        key = (id(head), id(trailers[-1]) if trailers else 0)
        got = self._unknowns.get(key)
        if got is None:
            got = self._unknowns[key] = Unknown(f"`{self._chain_text(head, trailers)}`")
        return got

    def _chain_text(self, head: Node, trailers: list[Node]) -> str:
        """`_text(head, trailers)`, once per chain position (what a step sees is fixed by where it is)."""
        key = (id(head), id(trailers[-1]) if trailers else 0)
        got = self._texts.get(key)
        if got is None:
            got = self._texts[key] = _text(head, trailers)
        return got

    def subscript(self, value: Value, trailer: Node) -> Value:
        value = self.imports.force(value)
        obj = self.s.obj(value)
        key = string_value(trailer.children[1])
        if key is None and isinstance(obj, DictState) and trailer.children[1].type == "name":
            # A name holding a string the code says (`MAPPING[impl]` in a function called with `impl="static"`:
            # Parler-TTS's cache class table): reading a name runs nothing.
            named = self.eval(trailer.children[1])
            key = named.value if type(named) is Const and isinstance(named.value, str) else None
        if isinstance(obj, DictState) and key is not None:
            got = obj.get(key)
            return got[0] if got else obj.every or UNKNOWN
        if key is not None and isinstance(value, Maybe) and all(
                type(v) is Ref and isinstance(self.s.obj(v), DictState) for v, _ in value.options):
            # One of the dicts the paths built (`inputs = {...}` in each branch of an `if`): what that key holds in
            # each, one value where all agree.
            held = [(self.subscript(v, trailer), c) for v, c in value.options]
            return held[0][0] if all(v == held[0][0] for v, _ in held) else maybe(held)
        if isinstance(obj, DictState) and obj.every is not None:
            return obj.every  # a key the code computes (`caches[16]`, `caches[n]`): every value is that cache
        if isinstance(value, TupleVal) and trailer.children[1].type == "number" and value.items:
            try:
                return value.items[int(trailer.children[1].value)]
            except (ValueError, IndexError):
                return UNKNOWN
        if isinstance(value, Output) and key is not None and (kept := stored(value, key)) is not None:
            return kept
        if isinstance(value, Output) and key in CACHE_ATTRS:
            return output_cache(value, key)
        if trailer.children[1].type == "subscript" and isinstance(value, (TupleVal, ListVal)):
            # A slice of a tuple or list is one of the same kind (`legacy[:n_layers]`, `legacy[-window:]`), a list's
            # with its items.
            return TupleVal(value.site) if isinstance(value, TupleVal) else list_joined(value.site, (value,))
        if trailer.children[1].type != "subscript" and (item := list_item(value)) is not None:
            return item  # an item of a list of one transformers cache (`caches[0]`): that cache
        return UNKNOWN


def _effect_free(node: Node) -> bool:
    """A chain of attributes and subscripts by a name, number or string off a name (`cache.key_cache[layer_idx]`):
    evaluating it runs nothing of the code's (no call)."""
    return node.type in ("atom_expr", "power") and node.children[0].type == "name" and all(
        t.type == "trailer" and (t.children[0].value == "." or (
            t.children[0].value == "[" and len(t.children) == 3 and t.children[1].type in ("name", "number", "string")))
        for t in node.children[1:])


def _own_call(node: Node, lookup: Callable[[str], Value]) -> bool:
    """A call of the module's own function by its name with effect-free arguments (`torch.full([1,
    cached_length(past)], True)`, Freeze-Omni's mask as long as the cache): the helper runs where the list is built,
    and its reads of what it is given are the caller's."""
    kids = node.children if node.type in ("atom_expr", "power") else []
    if len(kids) != 2 or kids[0].type != "name" or not isinstance(lookup(kids[0].value), Function) or \
            kids[1].type != "trailer" or kids[1].children[0].value != "(":
        return False
    args = kids[1].children[1] if len(kids[1].children) == 3 else None
    plain = [] if args is None else [args] if args.type != "arglist" else \
        [a for a in args.children if a.type != "operator"]
    return all(a.type in ("name", "number", "string") or _effect_free(a) for a in plain)


_OPERATIONS = frozenset({"arith_expr", "term", "comparison", "not_test", "factor", "shift_expr", "and_expr",
                         "xor_expr", "expr"})


def _sequence(node: Node, operands: list[Value], site: Site) -> Value:
    """`seq * n` / `n * seq` (one `*`) and `a + b + ...` (only `+`) of tuples or lists: a tuple or list built here
    (its items are not followed); anything else unknown."""
    ops = {c.value for c in node.children if c.type == "operator"}
    if ops == {"*"} and len(operands) == 2:
        seq, times = operands if isinstance(operands[0], (TupleVal, ListVal)) else operands[::-1]
        if isinstance(seq, (TupleVal, ListVal)) and not isinstance(times, (TupleVal, ListVal)) and (
                not isinstance(times, Const) or type(times.value) is int):
            return TupleVal(site) if isinstance(seq, TupleVal) else ListVal(site)
    if ops == {"+"} and operands:
        if all(isinstance(v, TupleVal) for v in operands):
            return TupleVal(site)
        if all(listed(v) for v in operands):
            return list_joined(site, operands)  # `[prefix_cache] + chunk_caches`: a list of their items
    return UNKNOWN


def _is_call(node: Node) -> bool:
    return bool(node.type == "trailer" and node.children[0].value == "(")


@lru_cache(maxsize=4096)
def _number(text: str) -> int | float | complex | None:
    """`number_value`, once per spelling (it parses the literal with `ast`)."""
    return number_value(text)


__all__ = ["NONE", "Expressions"]
