"""Statement execution: a block's statements in order on the session's current path — assignments
(to names, attributes, subscripts), imports, `with`, `def`/`class`, `return`/`raise`/`break`; `if`/`elif`, loops
and `try` go to engine/interpreter/control_flow.py."""

from __future__ import annotations

from dataclasses import replace

from hf_cache_lint.engine.environment.workspace import SKIP_ROOTS
from hf_cache_lint.engine.interpreter.class_members import cache_class
from hf_cache_lint.engine.interpreter.control_flow import ControlFlow
from hf_cache_lint.engine.interpreter.expressions import Expressions
from hf_cache_lint.engine.interpreter.functions import UserFunctions
from hf_cache_lint.engine.interpreter.imports import WorkspaceImports
from hf_cache_lint.engine.interpreter.output_values import storing
from hf_cache_lint.engine.interpreter.removed_imports import import_fails
from hf_cache_lint.engine.interpreter.session import Session
from hf_cache_lint.engine.interpreter.unpack_targets import count_targets, unpacks
from hf_cache_lint.engine.interpreter.values import (
    UNKNOWN,
    CacheVal,
    Cond,
    ConfigKey,
    ConfigState,
    Const,
    DictState,
    Function,
    InstanceState,
    Lazy,
    ListVal,
    Maybe,
    Method,
    ModelState,
    Output,
    Ref,
    Setting,
    Symbol,
    TupleVal,
    Unknown,
    Value,
    falsy,
    maybe,
)
from hf_cache_lint.engine.output.analysis import CiLocation, CiValue, Incomplete, Site
from hf_cache_lint.engine.syntax.nodes import (
    Node,
    import_paths,
    imported_from,
    span,
    string_value,
)

_SIMPLE = {"expr_stmt", "import_name", "import_from", "return_stmt", "raise_stmt", "del_stmt", "pass_stmt",
           "break_stmt", "continue_stmt", "global_stmt", "nonlocal_stmt", "assert_stmt", "keyword"}


class Statements:
    """Runs statements. Inputs: the session (the current path it forks and joins, the budget), the
    expressions (every value), the workspace imports (to force a value an assignment needs) and the user
    functions (`def`/`class` define them). A new statement form goes in `_exec_stmt`/`exec_small`; a new
    assignment target shape (an attribute of a tracked object) in `set_attribute`/`set_item`."""

    def __init__(self, session: Session, ex: Expressions, imports: WorkspaceImports,
                 functions: UserFunctions) -> None:
        self.s = session
        self.ex = ex
        self.imports = imports
        self.functions = functions
        self.flow = ControlFlow(session, ex, self)

    def exec_block(self, statements: list[Node]) -> None:
        for stmt in statements:
            if self.s.state.dead or self.s.out_of_budget(stmt):
                return
            self.exec_stmt(stmt)

    def exec_stmt(self, node: Node) -> None:
        at_module_level = not self.s.stack and not self.s.module_done
        if at_module_level:
            # A top-level `if`/`try` forks and joins the module's state: the statements after it (and the
            # functions they define, which read globals from it) live in the joined state, not the first one.
            self.s.module_state = self.s.state
        # A statement too deeply nested for Python's stack (thousands of nested brackets or calls) is
        # skipped on its own: what it assigns becomes unknown, the statements around it run as usual.
        state, depth, stack = self.s.state, self.s.loop_depth, len(self.s.stack)
        try:
            self._exec_stmt(node)
        except RecursionError:
            self.s.state, self.s.loop_depth = state, depth
            del self.s.stack[stack:]
            self.s.skipped.append(Incomplete("too deeply nested to analyse", node.start_pos[0]))
            self._forget_targets(node)
        if at_module_level:
            self.s.module_state = self.s.state

    def _forget_targets(self, node: Node) -> None:
        small = [c for c in node.children if c.type == "expr_stmt"] if node.type == "simple_stmt" else [node]
        for stmt in small:
            if stmt.type != "expr_stmt":
                continue
            for target in stmt.children[:-1:2]:
                if target.type == "name":
                    self.s.state.names[target.value] = Unknown("a value too deeply nested to analyse")

    def _exec_stmt(self, node: Node) -> None:
        t = node.type
        self.s.steps += 1
        if t == "simple_stmt":
            for child in node.children:
                if child.type not in ("newline", "operator"):
                    self.exec_small(child)
        elif t == "if_stmt":
            self.flow.exec_if(node)
        elif t in ("for_stmt", "while_stmt"):
            self.flow.exec_loop(node)
        elif t == "try_stmt":
            self.flow.exec_try(node)
        elif t == "with_stmt":
            for item in node.children[1:-2]:
                if item.type == "with_item":
                    value = self.ex.eval(item.children[0])
                    self.assign(item.children[2], value, item)
                elif item.type not in ("operator",):
                    self.ex.eval(item)
            self.exec_block(self.s.block(node.children[-1]))
        elif t in ("funcdef", "classdef"):
            self.functions.define(node)
        elif t in ("decorated", "async_stmt", "async_funcdef"):
            # Decorators only register functions (route handlers): those run last, in run_uncalled.
            self.exec_stmt(node.children[-1])
        elif t in ("newline", "endmarker", "error_node", "error_leaf"):
            return
        else:
            self.exec_small(node)

    def exec_small(self, node: Node) -> None:
        t = node.type
        if t == "expr_stmt":
            self.exec_assign(node)
        elif t in ("import_name", "import_from"):
            self.exec_import(node)
        elif t == "return_stmt":
            value = self.ex.eval(node.children[1]) if len(node.children) > 1 else Const(None)
            if not self.s.stack:
                # `return` outside a function (mid-edit: its `def` line deleted). Python refuses to compile
                # such a module, so nothing after it is more dead than before it: keep analysing.
                return
            self.s.returns.append((value, self.s.state))
            self.s.state = self.s.state.fork()
            self.s.state.dead = True
        elif t in ("raise_stmt", "break_stmt", "continue_stmt"):
            if len(node.children) > 1 and t == "raise_stmt":
                self.ex.eval(node.children[1])
            self.s.state.dead = True
        elif t == "del_stmt":
            self.exec_del(node.children[1])
        elif t == "assert_stmt" and self.ex.uses.on:
            self.ex.eval(node.children[1])  # for what it uses of a cache (`assert cache.seen_tokens == 5`)
        elif t in ("pass_stmt", "global_stmt", "nonlocal_stmt", "assert_stmt", "keyword", "error_node",
                   "error_leaf", "operator", "newline"):
            return
        else:
            self.ex.eval(node)

    # -- assignment -----------------------------------------------------------
    def exec_assign(self, node: Node) -> None:
        kids = node.children
        op = kids[1]
        if op.type == "annassign":
            if len(op.children) >= 4:
                self.assign(kids[0], self.ex.eval(op.children[3]), node)
            return
        if op.type == "operator" and op.value == "=":
            value = self.ex.eval(kids[-1])
            for target in kids[:-1:2]:
                if self.ex.uses.on and unpacks(target):
                    self.ex.uses.whole(value, "unpack", kids[-1], count_targets(target))
                self.assign(target, value, node)
            return
        if op.type == "operator" and op.value == "|=":  # dict merge in place
            base = self.ex.eval(kids[0])
            d = self.s.obj(base)
            if isinstance(d, DictState) and isinstance(base, Ref):
                self.s.put(base, self.ex.merge_into(d, self.ex.eval(kids[2])))
            return
        value = self.ex.eval(kids[-1])
        if op.type == "operator" and kids[0].type in ("power", "atom_expr") and self.ex.uses.on:
            self.ex.uses.updating = True
            try:
                self.ex.eval(kids[0])  # `cache.counter += n` reads the member first (its uses: cache_uses.py)
            finally:
                self.ex.uses.updating = False
        if op.type == "operator" and kids[0].type == "name":
            # `n += 1` rebinds the name: to the number when both sides are known, else to what is not known. A
            # counter must not keep its first constant (`n = 0`, then `n += 1` in a loop is not 0); in a loop its
            # value depends on how many times the body ran, which the interpreter's two passes do not say.
            old = self.ex.eval(kids[0])
            kept = _same_sequence(op.value, old, value)  # `legacy += ((k, v),)`: a tuple however often it ran
            self.s.state.names[kids[0].value] = kept if kept is not None else \
                UNKNOWN if self.s.loop_depth else _augmented(op.value, old, value)

    def assign(self, target: Node, value: Value, stmt: Node) -> None:
        t = target.type
        if t == "name":
            self.s.state.names[target.value] = value
        elif t in ("testlist_star_expr", "exprlist", "testlist_comp") or (
                t == "atom" and target.children[0].value in "(["):
            inner = target if t != "atom" else target.children[1]
            items = [c for c in getattr(inner, "children", [inner]) if c.type != "operator"] \
                if inner.type in ("testlist_star_expr", "exprlist", "testlist_comp") else [inner]
            values = value.items if isinstance(value, TupleVal) and len(value.items) == len(items) else \
                unpacked_options(value, len(items))
            for i, item in enumerate(items):
                self.assign(item, values[i] if values else UNKNOWN, stmt)
        elif t in ("power", "atom_expr"):
            *head, last = target.children
            if last.type != "trailer":
                return
            base = self.ex.eval_chain(head[0], head[1:], target) if len(head) > 1 else self.ex.eval(head[0])
            if last.children[0].value == ".":
                if self.ex.uses.on:
                    self.ex.uses.member(base, "write", last, head[0], head[1:])
                self._store_on_output(head, base, last.children[1].value, value)
                self.set_attribute(base, last.children[1].value, value, stmt)
            elif last.children[0].value == "[":
                key = string_value(last.children[1])
                if key is not None:
                    self._store_on_output(head, base, key, value)
                self.set_item(base, last.children[1], value, stmt)

    def _store_on_output(self, head: list[Node], base: Value, name: str, value: Value) -> None:
        """`out.past_key_values = legacy` (or `out["past_key_values"] = ...`) on a forward's or generate's output a
        name holds: the name holds the output with that member stored (an `Output` is a value, not a heap object:
        a helper's stores on its parameter reach the caller through functions.py `inline`)."""
        if isinstance(base, Output) and len(head) == 1 and head[0].type == "name":
            self.s.state.names[head[0].value] = storing(base, name, value)

    def set_attribute(self, base: Value, attr: str, value: Value, stmt: Node) -> None:
        base = self.imports.force(base) if attr in ("cache_implementation", "generation_config") else base
        if isinstance(base, Symbol) and isinstance(value, Function) and value.owner is None and cache_class(base.qualname):
            self.s.patched_onto[id(value.node)] = (base.qualname, stmt)  # a method the cache's instances now have
        elif isinstance(base, Symbol) and isinstance(value, Function) and value.owner is None and \
                base.qualname.startswith("transformers.") and _model_class(base.qualname.rpartition(".")[2]):
            self.s.patched_models[(base.qualname.rpartition(".")[2], attr)] = value  # the class's instances have it
        if isinstance(base, Symbol) and isinstance(value, Function) and value.owner is None and \
                base.qualname.startswith("transformers.") and (_model_class(base.qualname.rpartition(".")[2]) or
                                                               base.qualname.rpartition(".")[2] in _MODEL_BASES):
            self.s.model_methods[id(value.node)] = stmt  # every model runs it as its method: `self` is the model
        obj = self.s.obj(base)
        if isinstance(base, Maybe) and all(type(v) is Ref and isinstance(self.s.obj(v), InstanceState)
                                           for v, _ in base.options):
            # `for batch in batches: batch.past = [...]` over a list of the project's objects (values.py
            # `ListVal.item`): the loop stores into every item.
            for v, _ in base.options:
                self.set_attribute(v, attr, value, stmt)
            return
        if not isinstance(base, Ref):
            return
        if isinstance(obj, ConfigState) and attr == "cache_implementation":
            site = self.s.site(stmt)
            literal = string_value(stmt.children[-1])
            if literal is not None:  # checked only once something validates this config
                self.s.pending_ci[site.span] = CiValue(literal, span(stmt.children[-1]), "attribute")
            self.s.put(base, replace(obj, ci=self._setting(value, site)))
        elif isinstance(obj, ConfigState):  # a plain attribute when the config has no such field
            self.s.put(base, obj.with_keys((ConfigKey(attr, self.s.site(stmt), falsy(value), None,
                                                      "attribute"),)))
        elif isinstance(obj, ModelState) and attr == "generate":
            self.s.put(base, replace(obj, generate=value))  # a wrapper installed over generate
        elif isinstance(obj, ModelState) and attr == "forward" and value != Method(base, "forward"):
            # The instance's calls now run the code's function (`torch.compile(model.forward)` is the model's own).
            self.s.put(base, replace(obj, forward=value))
            if isinstance(value, Function) and isinstance(value.owner, Ref) and _hands_all_on(value.node):
                # `types.MethodType(wrapped_forward, model)` where `wrapped_forward(self, *args, **kwargs)` takes
                # everything as it comes (attention_sinks' `inject_attention_sinks`): its body runs at every forward
                # pass; run once here with the model as `self` and nothing given, what it does with the original
                # forward's output (the cache) is what every pass does. It runs where the model is called, not
                # inside the function that patches it: the inlining depth starts afresh (a re-entry stays blocked,
                # the wrapper being on the stack while it runs).
                outer, self.s.stack = self.s.stack, []
                try:
                    self.functions.inline(value, [], value.owner, span(stmt))
                finally:
                    self.s.stack = outer
        elif isinstance(obj, ModelState) and isinstance(value, Function) and isinstance(value.owner, Ref) and \
                value.owner == base and attr != "generate" and self.s.target.generation_method(attr):
            # `model._update_model_kwargs_for_generation = types.MethodType(f, model)` (attention_sinks'
            # `inject_attention_sinks`): generate runs `f` as the model's method, so its body is the model's code,
            # checked with a model as `self` where nothing else calls it (functions.py `_model_method`).
            self.s.model_methods[id(value.node)] = stmt
        elif isinstance(obj, ModelState) and ((isinstance(value, Method) and value.name == "generate") or
                                              _holds_cache(value) or isinstance(self.s.obj(value), InstanceState)):
            # The original generate kept under another name, a cache parked on the model between calls
            # (FastChat's `model._fschat_pkv = past_key_values`, read back by the next call), or an instance of the
            # project's own class set on it (attention_sinks' `model.attention_sink_kv_cache = AttentionSinkKVCache()`,
            # called on the forward's cache by the forward it patches in).
            self.s.put(base, replace(obj, aliases=(*((k, v) for k, v in obj.aliases if k != attr), (attr, value))))
        elif isinstance(obj, ModelState) and attr == "generation_config":
            cfg = value if isinstance(self.s.obj(value), ConfigState) else self.s.new(ConfigState())
            assert isinstance(cfg, Ref)
            self.s.put(base, replace(obj, gen_config=cfg))
        elif isinstance(obj, InstanceState):
            self.s.put(base, obj.set(attr, value))

    def _setting(self, value: Value, site: Site) -> Setting:
        if isinstance(value, Const):
            return Setting(value.value if isinstance(value.value, str) else None, site)
        if isinstance(value, Maybe):
            for v, c in value.options:
                if isinstance(v, Const) and isinstance(v.value, str):
                    return Setting(v.value, site, c or Cond("a condition", True))
        reason = value.reason if isinstance(value, Unknown) else None
        return Setting(None, site, unknown=reason or "a value the linter cannot see")

    def _note_value(self, vnode: Node, where: CiLocation) -> None:
        s = string_value(vnode)
        if s is not None:
            self.s.record(CiValue(s, span(vnode), where))

    def set_item(self, base: Value, key_node: Node, value: Value, stmt: Node) -> None:
        d = self.s.obj(base)
        key = string_value(key_node)
        if isinstance(base, Symbol) and base.qualname == "os.environ" and key is not None:
            self.s.env_set.add(key)
            return
        if isinstance(base, Maybe) and all(type(v) is Ref and isinstance(self.s.obj(v), DictState)
                                           for v, _ in base.options):
            # `inputs = {...}` in each branch of an `if`, then `inputs["past_key_values"] = past`: the item is set
            # in whichever dict the path built.
            for v, _ in base.options:
                self.set_item(v, key_node, value, stmt)
            return
        if isinstance(d, DictState) and isinstance(base, Ref):
            if key is None:
                self.s.put(base, DictState(d.entries, opaque=True))
                return
            self.s.put(base, d.set(key, value, self.s.site(stmt)))
            if key == "cache_implementation":
                self._note_value(stmt.children[-1], "dict")

    def exec_del(self, target: Node) -> None:
        if target.type in ("power", "atom_expr") and target.children[-1].type == "trailer":
            last = target.children[-1]
            if last.children[0].value == "[":
                base = self.ex.eval_chain(target.children[0], target.children[1:-1], target) \
                    if len(target.children) > 2 else self.ex.eval(target.children[0])
                d, key = self.s.obj(base), string_value(last.children[1])
                if isinstance(d, DictState) and isinstance(base, Ref) and key is not None:
                    self.s.put(base, d.delete(key))

    # -- imports --------------------------------------------------------------
    def exec_import(self, node: Node) -> None:
        if node.type == "import_name":
            for dotted_as, names in import_paths(node):
                path = [n.value for n in names]
                self.s.state.names[dotted_as.value] = Symbol(".".join(path) if dotted_as.value != path[0]
                                                           or len(path) == 1 else path[0])
            return
        level = node.level
        module = imported_from(node)
        if module.split(".")[0] == "unsloth" and self.s.unsloth_fast_disabled is None:
            self.s.unsloth_fast_disabled = "UNSLOTH_DISABLE_FAST_GENERATION" in self.s.env_set
        prefix = "." * level + module
        for name, names in import_paths(node):
            origin = names[-1].value
            qual = f"{prefix}.{origin}" if prefix else origin
            if level == 0 and import_fails(module, origin, self.s.target) and _handled_by_a_try(node):
                # ImportError on the target (HFC007) that a surrounding `try` handles: its handler runs, not
                # what follows the import. An unhandled one is reported by HFC007 and the rest of the file is
                # checked as if it had succeeded (issue 29 item 7), so one import does not hide every finding.
                self.s.state.dead = True
                return
            local = level > 0 or (module.split(".")[0] not in SKIP_ROOTS and module != "")
            self.s.state.names[name.value] = Lazy(module, level, origin, qual) if local else Symbol(qual)


def _handled_by_a_try(node: Node) -> bool:
    """Whether `node` is in the body of a `try` that has an `except` clause (any: the error goes there, whatever
    it names; removed_api.py decides whether HFC007 reports the import)."""
    child, parent = node, node.parent
    while parent is not None and parent.type not in ("funcdef", "classdef", "file_input"):
        if parent.type == "try_stmt" and any(c.type == "except_clause" or getattr(c, "value", None) == "except"
                                             for c in parent.children):
            kids = parent.children
            # the body is the suite right after `try` `:` (children: try, :, suite, except..., :, suite, ...)
            if len(kids) > 2 and kids[2] is child:
                return True
        child, parent = parent, parent.parent
    return False


def _same_sequence(op: str, old: Value, value: Value) -> Value | None:
    """`t += (...)` of two tuples is a tuple, `l += ...` of a list a list (any iterable extends it), `s *= n` the
    same kind: a legacy cache built in a loop keeps its kind (its items are not followed). None otherwise."""
    if isinstance(old, ListVal) and op in ("+=", "*="):
        return ListVal(old.site)
    times = isinstance(value, Unknown) or (isinstance(value, Const) and type(value.value) is int)
    if isinstance(old, TupleVal) and ((op == "+=" and isinstance(value, TupleVal)) or (op == "*=" and times)):
        return TupleVal(old.site)
    return None


def _augmented(op: str, old: Value, value: Value) -> Value:
    """`old op= value` for two known ints or floats (`+=`, `-=`, `*=`), else UNKNOWN."""
    a = old.value if type(old) is Const else None
    b = value.value if type(value) is Const else None
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool) and \
            not isinstance(b, bool):
        if op == "+=":
            return Const(a + b)
        if op == "-=":
            return Const(a - b)
        if op == "*=":
            return Const(a * b)
    return UNKNOWN


# The bases every transformers model class has: a function set on one is every loaded model's method.
_MODEL_BASES = frozenset({"GenerationMixin", "PreTrainedModel"})


def _model_class(name: str) -> bool:
    """A transformers model class's name (`LlamaForCausalLM`, `GPT2Model`), not an Auto class."""
    return name[:1].isupper() and not name.startswith("Auto") and ("For" in name or name.endswith("Model"))


def _hands_all_on(node: Node) -> bool:
    """A def whose parameters after the first are only `*args` and `**kwargs`."""
    params = node.get_params()
    return len(params) >= 2 and all(p.star_count > 0 for p in params[1:])


def unpacked_options(value: Value, count: int) -> tuple[Value, ...]:
    """`a, cache, b = helper(...)` where the helper returns a tuple of `count` items on every path it returns on
    (`return None, out["past_key_values"], "cl"` in one branch, `return ids, out["past_key_values"], "cs"` in
    another: a `Maybe` of tuples): each name gets what that position holds on every path (one value where all
    paths agree, else a `Maybe` of them under the paths' conditions); () when some path returns anything else."""
    if not isinstance(value, Maybe) or not all(isinstance(v, TupleVal) and len(v.items) == count
                                               for v, _ in value.options):
        return ()
    tuples = [(v, c) for v, c in value.options if isinstance(v, TupleVal)]
    positions = []
    for i in range(count):
        held = [(t.items[i], c) for t, c in tuples]
        positions.append(held[0][0] if all(v == held[0][0] for v, _ in held) else maybe(held))
    return tuple(positions)


def _holds_cache(value: Value) -> bool:
    """A transformers cache, on every path or on some (`past_key_values` after a decode loop that may not run), or
    `list(cache)` of one (Kangaroo's `model.past_key_values = list(out.past_key_values)`: values.py `items_of`)."""
    return isinstance(value, CacheVal) or (isinstance(value, ListVal) and value.items_of is not None) or (
        isinstance(value, Maybe) and any(type(v) is CacheVal for v, _ in value.options))
