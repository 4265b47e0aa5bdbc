"""User functions and classes: defining them, inlining their calls at the call site (bounded depth), and
running the ones nobody calls in the module (request handlers, methods, library code) last, against the
module's final state with their parameters unknown."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from hf_cache_lint.engine.base import process_state
from hf_cache_lint.engine.base.findings import Span
from hf_cache_lint.engine.interpreter.bindings import module_custom_generate_functions
from hf_cache_lint.engine.interpreter.class_members import (
    _calls_an_init,
    _decorated_as,
    _import_fallback,
    _is_static,
    _takes_keyword,
    cache_class,
    own_members,
)
from hf_cache_lint.engine.interpreter.closures import _read_names, _rebound
from hf_cache_lint.engine.interpreter.expressions import Expressions
from hf_cache_lint.engine.interpreter.function_keys import Source
from hf_cache_lint.engine.interpreter.imports import WorkspaceImports
from hf_cache_lint.engine.interpreter.model_subclasses import (
    MODEL_ATTR,
    base_model_name,
    defines,
    model_of,
    symbol_base,
)
from hf_cache_lint.engine.interpreter.narrowing import (
    attention_unfilled,
    beam_fills,
    generate_fills,
    patched_generate_fills,
)
from hf_cache_lint.engine.interpreter.output_values import same_output
from hf_cache_lint.engine.interpreter.replay_records import absent
from hf_cache_lint.engine.interpreter.session import MAX_INLINE_DEPTH, EvArg, Session
from hf_cache_lint.engine.interpreter.state import Heap, State, join, reachable
from hf_cache_lint.engine.interpreter.values import (
    UNKNOWN,
    CacheVal,
    ClassDef,
    ConfigState,
    DictState,
    Function,
    InstanceState,
    ModelState,
    Output,
    Ref,
    Symbol,
    Unknown,
    Value,
    maybe,
    tuple_val,
)
from hf_cache_lint.engine.output.analysis import Site
from hf_cache_lint.engine.syntax.nodes import Node, code

if TYPE_CHECKING:
    from hf_cache_lint.engine.interpreter.replay import Replays
    from hf_cache_lint.engine.interpreter.statements import Statements

MAX_CAPTURED = 32  # names one inner function captures from the function it is defined in


class UserFunctions:
    """The module's own `def`s and classes. Inputs: the session (the current path, the stack of functions
    being inlined, which were called), the expressions (parameter defaults, base classes, annotations,
    `**` dicts), the workspace imports (their values stay reachable) and, wired by the Interpreter, the
    statements (`statements`) that run a body. A body sees its locals, the names it captured where it was
    defined (a function defined inside another one: `_captured`) and the module's globals."""

    statements: Statements

    def __init__(self, session: Session, ex: Expressions, imports: WorkspaceImports) -> None:
        self.s = session
        self.ex = ex
        self.imports = imports
        self.replays: Replays | None = None  # set by Interpreter.run_module: uncalled runs replayed (replay.py)
        # Per function node (id): the names its body reads, and the names it defines with their positions.
        self._reads: dict[int, tuple[str, ...]] = {}
        self._definitions: dict[int, list[tuple[str, tuple[int, int]]]] = {}
        self._params: dict[Node, list[Any]] = {}
        self._param_facts: dict[Node, list[tuple[str, int, Node | None]]] = {}
        self._methods: dict[Node, dict[str, Node]] = {}  # a class node's methods by name (the first of each)

    def params(self, node: Node) -> list[Any]:
        """The function's parameters (parso scans the node again at every `get_params()`)."""
        got = self._params.get(node)
        if got is None:
            got = self._params[node] = node.get_params()
        return got

    def param_facts(self, node: Node) -> list[tuple[str, int, Node | None]]:
        """Each parameter's name, star count and default (parso recomputes each from the node every time)."""
        got = self._param_facts.get(node)
        if got is None:
            got = self._param_facts[node] = [(p.name.value, p.star_count, p.default) for p in self.params(node)]
        return got

    # -- definitions ----------------------------------------------------------
    def define(self, node: Node) -> None:
        """`def f` / `class C` binds the name to the function or class (a value that calls inline)."""
        name = node.name.value
        if node.type == "funcdef":
            closure = self._captured(node) if self.s.stack else ()
            self.s.state.names[name] = Function(node, name, closure=closure)
            if self.s.state is self.s.module_state:
                self.s.functions.append((node, None))
        else:
            self.s.state.names[name] = ClassDef(node, name, *self.cache_base(node), model_base=self._model_base(node))
            if any(fn.name.value == "generate" for fn in node.iter_funcdefs()) and not self._transformers_based(node):
                self.s.own_generate.add(name)
            if self.s.state is self.s.module_state:
                for fn in node.iter_funcdefs():
                    self.s.functions.append((fn, name))

    def _captured(self, node: Node) -> tuple[tuple[str, Value], ...]:
        """What a function defined inside the running one captures: the enclosing function's locals its
        body reads (a decorator's `fn` in `def inner(*a, **k): return fn(*a, **k)`), by their value now.

        Python reads a captured name when the inner function runs, not when it is defined: a name the
        enclosing function binds again after this `def` (or anywhere in a loop around it) is captured as
        unknown rather than with a value it may no longer hold. At most MAX_CAPTURED names."""
        local = self.s.state.names
        enclosing = self.s.stack[-1]
        out: list[tuple[str, Value]] = []
        for name in _read_names(node, self._reads):
            value = local.get(name)
            if value is None:
                continue
            if _rebound(enclosing, node, name, self._definitions):
                value = Unknown(f"`{name}`, bound again after `def {node.name.value}`")
            out.append((name, value))
            if len(out) >= MAX_CAPTURED:
                break
        return tuple(out)

    def _transformers_based(self, node: Node) -> bool:
        """A subclass of a transformers class (its `generate` override still ends in transformers')."""
        arglist = node.get_super_arglist()
        if arglist is None:
            return False
        bases = arglist.children if arglist.type == "arglist" else [arglist]
        for base in bases:
            if base.type in ("name", "power", "atom_expr"):
                value = self.ex.eval(base)
                if isinstance(value, Symbol) and value.qualname.startswith("transformers."):
                    return True
        return False

    def _model_base(self, node: Node) -> str:
        """The transformers model class `class C(...)` subclasses, directly or through the module's own classes
        (model_subclasses.py), "" for any other class."""
        for value in self.bases(node):
            found = symbol_base(value) or (value.model_base if isinstance(value, ClassDef) else "")
            if found:
                return found
        return ""

    def bases(self, node: Node) -> list[Value]:
        """The values of a class's bases as written (a name or dotted name each; `metaclass=` and the rest left out)."""
        arglist = node.get_super_arglist()
        if arglist is None:
            return []
        return [_import_fallback(self.imports.force(self.ex.eval(base)))
                for base in (arglist.children if arglist.type == "arglist" else [arglist])
                if base.type in ("name", "power", "atom_expr")]

    def defines(self, cls: ClassDef, name: str) -> bool:
        """Whether the project's class (or its own classes on the way to the transformers model) defines `name`."""
        return defines(self.s.module_state.names, cls, name, self.bases)

    def cache_base(self, node: Node) -> tuple[str, frozenset[str], bool, bool]:
        """The transformers cache class `class C(...)` subclasses (directly or through the module's own classes),
        with the members the project's classes define themselves, whether the project's first `__init__` on the
        way skips the base ones (`ClassDef.skips_init`) and whether its first `get_seq_length` takes no
        `layer_idx` (`narrow_length`); ("", {}, False, False) for any other class, and wherever a
        base is neither (a class the linter cannot see may define any member: nothing is claimed)."""
        arglist = node.get_super_arglist()
        if arglist is None:
            return "", frozenset(), False, False
        found = ""
        own: set[str] = set()
        # The bases in order, judged only once a cache base is found: the walks of the module's own classes (their
        # members, `__init__`, `get_seq_length`) cost ~3 ms a check on a 4,000-line class such as GenerationMixin,
        # for a class that subclasses no cache.
        order: list[ClassDef | Node | None] = []  # None: a transformers class; a Node: a plain mixin
        for base in arglist.children if arglist.type == "arglist" else [arglist]:
            if base.type == "operator" or base.type == "argument":  # `,`, `metaclass=...`
                continue
            if base.type == "name" and base.value == "object":
                continue
            if base.type not in ("name", "power", "atom_expr"):
                return "", frozenset(), False, False
            value = _import_fallback(self.imports.force(self.ex.eval(base)))  # a workspace base: its ClassDef
            if isinstance(value, Symbol) and cache_class(value.qualname):
                found = found or value.qualname
                order.append(None)
            elif isinstance(value, ClassDef) and value.cache_base:
                found = found or value.cache_base
                own |= value.own
                order.append(value)
            elif isinstance(value, ClassDef) and value.node is not None and value.node.get_super_arglist() is None:
                order.append(value.node)  # a plain mixin of the module's own
            else:
                return "", frozenset(), False, False
        if not found:
            return "", frozenset(), False, False
        own |= own_members(node)
        init = self.method_node(node, "__init__")
        skips: bool | None = None if init is None else not _calls_an_init(init)
        length = self.method_node(node, "get_seq_length")
        narrow: bool | None = None if length is None else not _takes_keyword(self.params(length), "layer_idx")
        for step in order:
            if step is None:  # transformers' `__init__` and `get_seq_length` come first in the MRO
                skips = False if skips is None else skips
                narrow = False if narrow is None else narrow
            elif isinstance(step, ClassDef):
                skips = step.skips_init if skips is None else skips
                narrow = step.narrow_length if narrow is None else narrow
            else:
                own |= own_members(step)
                if skips is None and (mixin_init := self.method_node(step, "__init__")) is not None:
                    skips = not _calls_an_init(mixin_init)
        return found, frozenset(own), bool(skips), bool(narrow)

    def run_uncalled(self) -> None:
        """Functions never called in the module (handlers, methods, library code) run last,
        against the module's final state, with their parameters unknown. A module function that another function
        of the module calls by name runs after the rest, and only if none of their runs called it: its callers say
        what it is given (xinference's `convert_to_cache_cls`, called only from a helper that probes call, heldout5)."""
        end = self.s.module_state
        instances: dict[str, Ref] = {}
        live = len(end.heap)
        replays = self.replays
        for node, cls in _callers_first(self.s.functions, replays.source if replays is not None else None):
            if id(node) in self.s.called:
                continue
            if len(end.heap) > 2 * live + 64:
                # What earlier functions built and dropped stays on the module's heap, and every later
                # function's forks paid for it (quadratic in the number of functions): keep what is
                # still reachable, whenever the heap has doubled since the last time.
                end.heap = Heap(reachable(end.heap, [*end.names.values(), *instances.values(),
                                                     *self.imports.resolved.values()]))
                live = len(end.heap)
            self.s.state = end
            params = self.params(node)
            owner = cls if isinstance(cls, str) and params and not _is_static(node) else None
            if owner is not None:
                owner = self._combined(owner)
            if owner is not None and owner not in instances:
                # The class's shared instance is set up at its first uncalled method whether that method then
                # runs or is replayed: the instance, its id and what `__init__` did are the same at every check;
                # a method's run reads the instance (a heap object that existed before it) like any other, and
                # what it writes there is the run's effect (replay.py).
                instances[owner] = self.setup_instance(owner)
            # A function's (or method's) run as the last check of this buffer recorded it, when all it read is
            # the same.
            bound = (owner, instances[owner].id) if owner is not None else None
            patched = self.s.patched_onto.get(id(node)) if owner is None and params else None
            as_model = owner is None and patched is None and params and self._model_method(node)
            # A patched-in method's first parameter comes from a module statement, which a replay does not see.
            key = replays.key(node, bound) if replays is not None and patched is None and not as_model else None
            if key is not None and replays is not None:
                if replays.replay(key) or replays.through(key, self.run_function):
                    continue
                replays.start(key)
            names: dict[str, Value] = {p.name.value: self.annotated(p) for p in params}
            if patched is not None:
                names[params[0].name.value] = _patched_self(patched[0], self.s.site(patched[1], f"`{code(patched[1])}`"))
            else:
                if as_model:
                    names[params[0].name.value] = self.s.new(ModelState(class_name=None,
                                                                        gen_config=self.s.new(ConfigState())))
                if owner is None and (fed := patched_generate_fills(node, params, self.ex)) is not None:
                    names["past_key_values"] = fed
            if owner is not None:
                names[params[0].name.value] = instances[owner]
                filled = generate_fills(node, params, self.ex) if node.name.value == \
                    "prepare_inputs_for_generation" else None
                if filled is not None:
                    names["past_key_values"] = filled
                unfilled = attention_unfilled(node, params, self.ex) if node.name.value == "forward" else None
                if unfilled is not None:
                    names[unfilled[0]] = unfilled[1]
            if node.name.value == "_reorder_cache" and (beams := beam_fills(node, params, self.ex)) is not None:
                names[beams[0]] = beams[1]
            self.run_function(node, names, None)
            if key is not None and replays is not None:
                replays.finish()
        self.s.state = end

    def _model_method(self, node: Any) -> bool:
        """A module-level function transformers runs as a loaded model's method, so with the model as its first
        argument: set on a transformers model class or on `GenerationMixin` (statements.py `model_methods`), or handed
        to `generate` as `custom_generate=` (bindings.py `custom_generate_functions`)."""
        if node.parent is None or node.parent.type != "file_input":
            return False
        if id(node) in self.s.model_methods:
            return True
        if self.s.custom_generate is None:  # once per analysis: every uncalled function asks (the module walked)
            self.s.custom_generate = module_custom_generate_functions(node.get_root_node()) \
                if "custom_generate" in self.s.text else frozenset()
        return node.name.value in self.s.custom_generate

    def _combined(self, cls: str) -> str:
        """The class whose instance an uncalled method of `cls` runs on: `cls` itself, but for a plain mixin of the
        module's own that one module class combines with a transformers cache (surya's `class
        ContinuousBatchingCache(ContinuousBatchingMixin, DynamicCache)`): the mixin's `self` is that class's
        instance, and what the mixin reads on it is what the cache has (heldout17). Several such classes: the mixin
        itself (which cache it runs on is not said)."""
        names = self.s.module_state.names
        got = names.get(cls)
        if not isinstance(got, ClassDef) or got.cache_base or got.node is None or got.node.get_super_arglist() is not None:
            return cls
        combined = [name for name, value in names.items()
                    if isinstance(value, ClassDef) and value.cache_base and value.node is not None and
                    any(isinstance(base, ClassDef) and base.node is got.node for base in self.bases(value.node))]
        return combined[0] if len(combined) == 1 else cls

    def annotated(self, param: Any) -> Value:
        """A parameter of an uncalled function: unknown, unless annotated with a transformers model or cache class."""
        ann = _optional(param.annotation) if param.annotation is not None else None
        own = self._own_cache_annotation(ann) if ann is not None else None
        if own is not None:
            return own
        if ann is not None:
            hint = self.ex.eval(ann)
            if isinstance(hint, Symbol) and hint.qualname.startswith("transformers."):
                name = hint.qualname.rsplit(".", 1)[-1]
                if name.endswith("Cache") and name[:1].isupper():  # `cache: DynamicCache`: the code says so
                    parts = hint.qualname.split(".")
                    module = ".".join(parts[:-1]) if len(parts) > 2 else "transformers.cache_utils"
                    return CacheVal(name, self.s.site(ann, f"the parameter `{param.name.value}`"), name, module,
                                    layered=name != "EncoderDecoderCache")
                if name.endswith(("Model", "LMHeadModel")) or "For" in name:
                    return self.s.new(ModelState(class_name=None if name.startswith("Auto") else name,
                                               gen_config=self.s.new(ConfigState())))
        return Unknown(f"the parameter `{param.name.value}`")

    def _own_cache_annotation(self, ann: Any) -> Value | None:
        """`new_cache: "OwnCache"` (or unquoted) naming the module's own subclass of a transformers cache: a fresh
        instance of it (surya's `merge(self, new_cache: "ContinuousBatchingCache", ...)`: the code says what the
        parameter is, and the class is a transformers cache by what it inherits)."""
        if ann.type == "string":
            name = ann.value.strip("\"'")
        elif ann.type == "name":
            name = ann.value
        else:
            return None
        got = self.s.module_state.names.get(name)
        if not isinstance(got, ClassDef) or not got.cache_base:
            return None
        return self.s.new(self.with_model(InstanceState(name, (), got.cache_base, got.own, got.skips_init,
                                                        got.narrow_length), got))

    def setup_instance(self, cls: str) -> Ref:
        """An instance as `__init__` leaves it, plus (conditionally) what setup methods add. Where the module itself
        built one and bound it to a module name (`model = UltravoxModel(config)`, its `__init__` run with the module's
        arguments), that instance: its methods nobody calls (`_reorder_cache`, which generate's beam search calls)
        run on what `__init__` stored there (`self.language_model = AutoModelForCausalLM.from_config(config)`);
        a fresh instance would not run the `__init__` the module already inlined, and know none of it."""
        built = self._module_instance(cls)
        if built is not None:
            return built
        got = self.s.module_state.names.get(cls)
        ref = self.s.new(self.with_model(InstanceState(cls, (), got.cache_base, got.own, got.skips_init,
                                                       got.narrow_length), got)
                         if isinstance(got, ClassDef) else InstanceState(cls))
        init = self.method_of(cls, "__init__")
        if init is not None and id(init.node) not in self.s.called:
            # Replayed as an uncalled method's run is (run_uncalled sets up an instance between two runs: the
            # session's state is the module's), under a key of its own: the same `__init__` may then run again as
            # the class's uncalled method, on the instance it set up (on generation/utils.py ~0.3 ms a keystroke).
            replays = self.replays
            key = replays.key(init.node, ("__init__ of", cls, ref.id)) if replays is not None else None
            if key is None or replays is None or not (replays.replay(key) or replays.through(key, self.run_function)):
                if key is not None and replays is not None:
                    replays.start(key)
                params = self.params(init.node)
                names: dict[str, Value] = {p.name.value: Unknown(f"the parameter `{p.name.value}`") for p in params}
                if params:
                    names[params[0].name.value] = ref
                self.run_function(init.node, names, None)
                if key is not None and replays is not None:
                    replays.finish()
            self.s.called.add(id(init.node))
        return ref

    def _module_instance(self, cls: str) -> Ref | None:
        """The first module name (in binding order) holding an instance of the module's class `cls`."""
        end = self.s.module_state
        for value in end.names.values():
            if isinstance(value, Ref) and isinstance(obj := end.heap.get(value.id), InstanceState) and \
                    obj.class_name == cls:
                return value
        return None

    # -- calls ------------------------------------------------------------------
    def instantiate(self, cls: ClassDef, args: list[EvArg], whole: object) -> Value:
        ref = self.s.new(self.with_model(InstanceState(cls.name, (), cls.cache_base, cls.own, cls.skips_init,
                                                       cls.narrow_length), cls))
        init = self.method_of(cls.name, "__init__") if cls.node is not None else None
        if init is not None:
            self.inline(init, args, ref, whole)
        return ref

    def with_model(self, obj: InstanceState, cls: ClassDef, model: Ref | None = None) -> InstanceState:
        """A new instance of `cls`; of a transformers model subclass, with the model it is (`model`, else one
        built from the config: `Cls(config)` runs the model's `__init__`, no checkpoint)."""
        if not cls.model_base:
            return obj
        if model is None:
            name = base_model_name(cls.model_base)
            model = self.s.new(ModelState(class_name=name, gen_config=self.s.new(ConfigState()),
                                          decoder_only=name.endswith("ForCausalLM")))
        return obj.set(MODEL_ATTR, model)

    def call_instance(self, ref: Ref, obj: InstanceState, args: list[EvArg], whole: object) -> Value:
        """`instance(...)`: its class's `__call__`, or, for a torch `nn.Module` subclass without one, its `forward`
        (what `Module.__call__` runs): a vendored attention or decoder layer called with the cache it is given."""
        fn = self.method_of(obj.class_name, "__call__")
        if fn is None and (self.torch_module(obj.class_name) or model_of(obj) is not None):
            fn = self.method_of(obj.class_name, "forward")
        return self.inline(fn, args, ref, whole) if fn is not None else UNKNOWN

    def torch_module(self, class_name: str, depth: int = 0) -> bool:
        """A module class of this file that subclasses `torch.nn.Module` (directly or through the file's classes)."""
        cls = self.s.module_state.names.get(class_name)
        if not isinstance(cls, ClassDef) or cls.node is None or depth > 4:
            return False
        arglist = cls.node.get_super_arglist()
        if arglist is None:
            return False
        for base in arglist.children if arglist.type == "arglist" else [arglist]:
            if base.type in ("name", "power", "atom_expr"):
                value = self.ex.eval(base)
                if isinstance(value, Symbol) and value.qualname in _TORCH_MODULES:
                    return True
                if isinstance(value, ClassDef) and self.torch_module(value.name, depth + 1):
                    return True
        return False

    def method_of(self, class_name: str, name: str) -> Function | None:
        cls = self.s.module_state.names.get(class_name) or self.s.state.names.get(class_name)
        reads = self.s.reads
        if reads is not None:
            reads.name(class_name, self.s.module_state.names.get(class_name, absent()))
        if not isinstance(cls, ClassDef) or cls.node is None:  # None: a workspace module's class (imports.py)
            return None
        child = self.method_node(cls.node, name)
        if reads is not None:
            # What the run read of the class: which of its methods this name finds, and where it starts (a replay
            # compares both, replay.py; a run of the method records its position and code too), not the whole
            # class body, which any edit of any method changes.
            reads.methods.append((cls.node, name, child, child.start_pos if child is not None else None))
        return Function(child, f"{class_name}.{name}") if child is not None else None

    def class_function(self, cls: ClassDef, name: str) -> Function | None:
        """`Cls.name` of the module's own class, when it is a `@classmethod` (its first parameter bound to the class)
        or a `@staticmethod` (nothing bound): a call inlines it like any function. A plain method read off the class
        (called with an explicit instance) stays unknown."""
        if cls.node is None:
            return None
        node = self.method_node(cls.node, name)
        kind = _decorated_as(node) if node is not None else None
        if node is None or kind is None:
            return None
        return Function(node, f"{cls.name}.{name}", first=cls if kind == "classmethod" else None)

    def method_node(self, class_node: Node, name: str) -> Node | None:
        """The class's method of that name (the first one defined), None when it has none."""
        methods = self._methods.get(class_node)
        if methods is None:  # parso scans the class body again at every iter_funcdefs()
            methods = self._methods[class_node] = {}
            for child in class_node.iter_funcdefs():
                methods.setdefault(child.name.value, child)
        return methods.get(name)

    def bind(self, fn: Function, args: list[EvArg], self_ref: Ref | None,
             extra_kwargs: DictState | None = None) -> dict[str, Value]:
        """The function's parameters bound to the call's arguments as Python binds them (`self_ref` first
        for a method; `extra_kwargs`, a partial's or Thread's dict, as if spread with `**`)."""
        names: dict[str, Value] = {}
        positional = [a.value for a in args if a.arg.name is None and not a.arg.star]
        keywords = {a.arg.name: a.value for a in args if a.arg.name}
        spread = DictState(extra_kwargs.entries if extra_kwargs else (), False)
        opaque = any(a.arg.star for a in args)
        for a in args:
            if a.arg.star == "**":
                spread = self.ex.merge_into(spread, a.value)
        if self_ref is not None:
            positional.insert(0, self_ref)
        elif fn.first is not None:  # a classmethod called on its class
            positional.insert(0, fn.first)
        rest_kwargs = DictState(opaque=spread.opaque or opaque)
        for k, v, s, c in spread.entries:
            if k not in keywords:
                rest_kwargs = rest_kwargs.set(k, v, s, c)
        for a in args:
            if a.arg.name:
                rest_kwargs = rest_kwargs.set(a.arg.name, a.value, self.s.site(a.arg.node))
        star_kw: str | None = None
        for pname, star_count, default in self.param_facts(fn.node):
            if star_count == 1:
                names[pname] = tuple_val(None, positional)
                positional = []
            elif star_count == 2:
                star_kw = pname
            elif positional:
                names[pname] = positional.pop(0)
            elif pname in keywords:
                names[pname] = keywords[pname]
                rest_kwargs = rest_kwargs.delete(pname)
            elif (got := spread.get(pname)) is not None:
                names[pname] = got[0]
                rest_kwargs = rest_kwargs.delete(pname)
            elif default is not None and not opaque:
                names[pname] = self.ex.eval(default)
            else:
                names[pname] = Unknown(f"the parameter `{pname}`")
        if star_kw is not None:
            names[star_kw] = self.s.new(rest_kwargs)
        return names

    def inline(self, fn: Function, args: list[EvArg], self_ref: Ref | None, whole: object,
               extra_kwargs: DictState | None = None) -> Value:
        """Call a user function at this call site: bind the arguments and run the body (recursion, depth
        past MAX_INLINE_DEPTH or a spent budget: an unknown result, the body not run here)."""
        node = fn.node
        self.s.called.add(id(node))
        if self.s.reads is not None:
            self.s.reads.called.append(node)
        if node in self.s.stack or len(self.s.stack) >= MAX_INLINE_DEPTH or not self.s.may_inline():
            return UNKNOWN
        names = self.bind(fn, args, self_ref, extra_kwargs)
        for captured, value in fn.closure:  # a parameter or a local of its own shadows a captured name
            names.setdefault(captured, value)
        via = Site(whole, "called here") if isinstance(whole, Span) else None
        self.s.callers.append((node, whole))
        self.s.written = ()
        try:
            if self.replays is not None and self.s.reads is not None:
                # Inside a recorded run: the call's value and effects as recorded at the last check, when it is
                # given and reads the same (replay.py `Replays.call`).
                return self.replays.call(node, names, via, lambda: self.run_function(node, names, via))
            return self.run_function(node, names, via)
        finally:
            self.s.callers.pop()
            written, self.s.written = self.s.written, ()
            if written:
                self._write_back(fn, args, self_ref, dict(written))

    def _write_back(self, fn: Function, args: list[EvArg], self_ref: Ref | None, written: dict[str, Value]) -> None:
        """The members a helper stored on a model output it was given (`update_outputs(outputs, ...)` setting
        `outputs.past_key_values = rebuilt`): an output is a value the caller's name holds, so the name given as
        the argument holds the output with them stored. Only a bare name written as the argument is followed."""
        params: list[str] = []
        for name, star, _ in self.param_facts(fn.node):
            if star:  # the parameters after `*args` take keywords only
                break
            params.append(name)
        if self_ref is not None or fn.first is not None:
            params = params[1:]
        positional = [a for a in args if a.arg.name is None and not a.arg.star][:len(params)]
        given = {**dict(zip(params[:len(positional)], positional, strict=True)),
                 **{a.arg.name: a for a in args if a.arg.name}}
        for param, value in written.items():
            a = given.get(param)
            if a is not None and a.arg.value.type == "name" and self.s.state.names.get(a.arg.value.value) == a.value:
                self.s.state.names[a.arg.value.value] = value

    def run_function(self, node: Any, names: dict[str, Value], via: Site | None) -> Value:
        """Run a function body on a fresh path over the caller's heap (`names` bound as its locals): its
        value is what its `return`s give (one of several: a Maybe), and the caller's heap gets every return
        path's heap joined."""
        caller, saved_returns, saved_via = self.s.state, self.s.returns, self.s.via
        if self.s.reads is not None:
            self.s.reads.bodies.append(node)
        heap = caller.heap.fork()
        outputs = {p: v for p, v in names.items() if isinstance(v, Output)}  # as given (the run rebinds `names`)
        self.s.charge(len(names) + len(heap.own))
        self.s.state = State(names, heap, caller.path, False, caller.meter)
        self.s.returns = []
        if self.s.via is None:
            self.s.via = via
        self.s.stack.append(node)
        try:
            self.statements.exec_block(self.s.block(node.children[-1]))
            ends = [*self.s.returns, (None, self.s.state)] if not self.s.state.dead else list(self.s.returns)
            result: Value = UNKNOWN
            values = [v for v, _ in ends if v is not None]
            if values:
                result = values[0] if all(v == values[0] for v in values) else maybe((v, None) for v in values)
            merged = ends[0][1] if ends else self.s.state
            for _, st in ends[1:]:
                merged = join(merged, st, None, None, caller.path)
            caller.heap = merged.heap
            self.s.written = tuple((p, got) for p, given in outputs.items()
                                   if (got := merged.names.get(p, given)) != given and same_output(got, given))
            return result
        finally:
            self.s.stack.pop()
            self.s.state, self.s.returns, self.s.via = caller, saved_returns, saved_via


_TORCH_MODULES = frozenset({"torch.nn.Module", "torch.nn.modules.module.Module"})


def _patched_self(qualname: str, site: Site) -> CacheVal:
    """The instance a module function patched onto a transformers cache class (`DynamicCache.trim = trim`) is
    called on: that class's, as the code says (its own members are the class's at the target)."""
    parts = qualname.split(".")
    name = parts[-1]
    module = ".".join(parts[:-1]) if len(parts) > 2 else "transformers.cache_utils"
    return CacheVal(name, site, name, module, layered=name != "EncoderDecoderCache")


def _optional(ann: Any) -> Any:
    """The class an annotation names, also as `X | None` or `Optional[X]` (None for anything else with parts)."""
    if ann.type == "expr":  # `X | None`
        parts = [c for c in ann.children if not (c.type == "operator" or (c.type == "keyword" and c.value == "None"))]
        return parts[0] if len(parts) == 1 else None
    kids: list[Any] = getattr(ann, "children", [])
    if ann.type in ("atom_expr", "power") and len(kids) == 2 and kids[0].type == "name" \
            and kids[0].value == "Optional" and kids[1].children[0].value == "[":
        return kids[1].children[1]
    return ann


# The names each function of the last check calls bare, by the function's code (an editor buffer's: a keystroke
# changes one function's text, and the others' walks are the last check's). One check's: edits do not pile up.
_LAST_CALLED: dict[str, frozenset[str]] = {}


def _forget_called() -> None:
    _LAST_CALLED.clear()


process_state.resettable("engine/interpreter/functions.py", "_LAST_CALLED", _forget_called)


def _callers_first(functions: list[tuple[Any, str | None]], source: Source | None = None) -> list[tuple[Any, str | None]]:
    """`functions` (module-level defs and methods, in source order) with the module functions that one of them
    calls by bare name (`helper(...)`, not `self.helper(...)`) moved after the others, in their own order. In an
    editor buffer (`source`), a function whose code the last check walked is not walked again."""
    names = {node.name.value for node, cls in functions if cls is None}
    called: set[str] = set()
    walked: dict[str, frozenset[str]] = {}
    for node, _ in functions:
        text = source.key(node)[1] if source is not None else None
        got = walked.get(text) if text is not None else None
        if got is None and text is not None:
            got = _LAST_CALLED.get(text)
        if got is None:
            got = frozenset(leaf.value for leaf in _called_names(node.children[-1]))
        if text is not None:
            walked[text] = got
        own = node.name.value
        called.update(name for name in got if name in names and name != own)
    if source is not None:
        _LAST_CALLED.clear()
        _LAST_CALLED.update(walked)
    if not called:
        return functions
    later = [(node, cls) for node, cls in functions if cls is None and node.name.value in called]
    moved = {id(node) for node, _ in later}
    return [f for f in functions if id(f[0]) not in moved] + later


def _called_names(body: Any) -> Iterator[Any]:
    """The names called bare in `body` (`name(...)`), nested functions' bodies included."""
    stack = [body]
    while stack:
        node = stack.pop()
        kids = getattr(node, "children", None)
        if kids is None:
            continue
        if node.type in ("power", "atom_expr") and kids[0].type == "name" and kids[1].type == "trailer" and \
                kids[1].children[0].value == "(":
            yield kids[0]
        if node.type in ("power", "atom_expr") and (bound := _method_typed(kids)) is not None:
            yield bound  # `types.MethodType(f, model)`: `f` runs as the method, after what its binder sets up
        stack.extend(kids)


def _method_typed(kids: list[Any]) -> Any:
    """The function name `types.MethodType(name, obj)` (or `MethodType(name, obj)`) binds, else None."""
    call = kids[-1]
    if len(kids) < 2 or call.type != "trailer" or call.children[0].value != "(" or len(call.children) != 3:
        return None
    head = kids[-2].children[1] if kids[-2].type == "trailer" and kids[-2].children[0].value == "." else kids[-2]
    if head.type != "name" or head.value != "MethodType" or call.children[1].type != "arglist":
        return None
    first = call.children[1].children[0]
    return first if first.type == "name" else None
