"""Statement execution: a block's statements in order on the session's current path — assignments
(to names, attributes, subscripts), imports, `if`/`elif` (forking and joining the path under each
condition, version guards decided for the target), loops (two passes), `try`, `with`, `def`/`class`,
`return`/`raise`/`break`."""

from __future__ import annotations

from dataclasses import replace

from hf_cache_lint.engine.analysis import CiLocation, CiValue, GuardedBlock, Incomplete, Site
from hf_cache_lint.engine.constants import literal_truth
from hf_cache_lint.engine.interpreter.expressions import Expressions
from hf_cache_lint.engine.interpreter.functions import UserFunctions
from hf_cache_lint.engine.interpreter.imports import WorkspaceImports
from hf_cache_lint.engine.interpreter.session import MAX_LOOP_REPEAT_DEPTH, Session
from hf_cache_lint.engine.modules import SKIP_ROOTS
from hf_cache_lint.engine.nodes import (
    Node,
    code,
    imported_from,
    span,
    span_between,
    string_value,
    suite_statements,
)
from hf_cache_lint.engine.removed_api import import_fails
from hf_cache_lint.engine.state import State, join
from hf_cache_lint.engine.values import (
    UNKNOWN,
    Cond,
    ConfigState,
    Const,
    DictState,
    InstanceState,
    Lazy,
    Maybe,
    Method,
    ModelState,
    Ref,
    Setting,
    Symbol,
    TupleVal,
    Unknown,
    Value,
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
            self.exec_if(node)
        elif t in ("for_stmt", "while_stmt"):
            self.exec_loop(node)
        elif t == "try_stmt":
            self.exec_try(node)
        elif t == "with_stmt":
            for item in node.children[1:-2]:
                if item.type == "with_item":
                    value = self.ex.eval(item.children[0])
                    self.assign(item.children[2], value, item)
                elif item.type not in ("operator",):
                    self.ex.eval(item)
            self.exec_block(suite_statements(node.children[-1]))
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
                self.assign(target, value, node)
            return
        if op.type == "operator" and op.value == "|=":  # dict merge in place
            base = self.ex.eval(kids[0])
            d = self.s.obj(base)
            if isinstance(d, DictState) and isinstance(base, Ref):
                self.s.put(base, self.ex.merge_into(d, self.ex.eval(kids[2])))
            return
        self.ex.eval(kids[-1])

    def assign(self, target: Node, value: Value, stmt: Node) -> None:
        t = target.type
        if t == "name":
            self.s.state.names[target.value] = value
        elif t in ("testlist_star_expr", "exprlist", "testlist_comp") or (
                t == "atom" and target.children[0].value in "(["):
            inner = target if t != "atom" else target.children[1]
            items = [c for c in getattr(inner, "children", [inner]) if c.type != "operator"] \
                if inner.type in ("testlist_star_expr", "exprlist", "testlist_comp") else [inner]
            values = value.items if isinstance(value, TupleVal) and len(value.items) == len(items) else ()
            for i, item in enumerate(items):
                self.assign(item, values[i] if values else UNKNOWN, stmt)
        elif t in ("power", "atom_expr"):
            *head, last = target.children
            if last.type != "trailer":
                return
            base = self.ex.eval_chain(head[0], head[1:], target) if len(head) > 1 else self.ex.eval(head[0])
            if last.children[0].value == ".":
                self.set_attribute(base, last.children[1].value, value, stmt)
            elif last.children[0].value == "[":
                self.set_item(base, last.children[1], value, stmt)

    def set_attribute(self, base: Value, attr: str, value: Value, stmt: Node) -> None:
        base = self.imports.force(base) if attr in ("cache_implementation", "generation_config") else base
        obj = self.s.obj(base)
        if not isinstance(base, Ref):
            return
        if isinstance(obj, ConfigState) and attr == "cache_implementation":
            site = self.s.site(stmt)
            literal = string_value(stmt.children[-1])
            if literal is not None:  # checked only once something validates this config
                self.s.pending_ci[site.span] = CiValue(literal, span(stmt.children[-1]), "attribute")
            self.s.put(base, ConfigState(self._setting(value, site)))
        elif isinstance(obj, ModelState) and attr == "generate":
            self.s.put(base, replace(obj, generate=value))  # a wrapper installed over generate
        elif isinstance(obj, ModelState) and isinstance(value, Method) and value.name == "generate":
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
            self.s.record_ci(CiValue(s, span(vnode), where))

    def set_item(self, base: Value, key_node: Node, value: Value, stmt: Node) -> None:
        d = self.s.obj(base)
        key = string_value(key_node)
        if isinstance(base, Symbol) and base.qualname == "os.environ" and key is not None:
            self.s.env_set.add(key)
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
            for dotted_as in node.get_defined_names():
                path = [n.value for n in node.get_path_for_name(dotted_as)]
                self.s.state.names[dotted_as.value] = Symbol(".".join(path) if dotted_as.value != path[0]
                                                           or len(path) == 1 else path[0])
            return
        level = node.level
        module = imported_from(node)
        if module.split(".")[0] == "unsloth" and self.s.unsloth_fast_disabled is None:
            self.s.unsloth_fast_disabled = "UNSLOTH_DISABLE_FAST_GENERATION" in self.s.env_set
        prefix = "." * level + module
        for name in node.get_defined_names():
            origin = [n.value for n in node.get_path_for_name(name)][-1]
            qual = f"{prefix}.{origin}" if prefix else origin
            if level == 0 and import_fails(module, origin, self.s.target):
                self.s.state.dead = True  # ImportError on 5.x (HFC007): nothing after this line runs
                return
            local = level > 0 or (module.split(".")[0] not in SKIP_ROOTS and module != "")
            self.s.state.names[name.value] = Lazy(module, level, origin, qual) if local else Symbol(qual)


    # -- control flow ---------------------------------------------------------
    def condition(self, test: Node) -> Cond:
        if test.type == "not_test":
            return Cond(self.s.code(test.children[1]), False)
        return Cond(self.s.code(test), True)

    def exec_if(self, node: Node) -> None:
        kids = node.children
        branches: list[tuple[Node | None, Node]] = []
        i = 0
        while i < len(kids):
            if kids[i].type == "keyword" and kids[i].value in ("if", "elif"):
                branches.append((kids[i + 1], kids[i + 3]))
                i += 4
            elif kids[i].type == "keyword" and kids[i].value == "else":
                branches.append((None, kids[i + 2]))
                i += 3
            else:
                i += 1
        self.exec_branches(branches)

    def exec_branches(self, branches: list[tuple[Node | None, Node]]) -> None:
        # Iterative, not one call per `elif`: a flat 1,000-branch chain is as deep as a single `if`. Each
        # undecided branch forks from the state where the previous tests failed; the paths then meet from
        # the last one back, as nested `if`/`else` would.
        pending: list[tuple[State, Cond, tuple[Cond, ...]]] = []
        for test, suite in branches:
            entry = self.s.state
            if test is None:
                self.exec_block(suite_statements(suite))
                break
            self.ex.eval(test)
            cond = self.condition(test)
            literal = literal_truth(test)  # `if 1:`, `if not 0:`: decided as Python decides it
            if literal is None and self.s.guards is not None:
                literal = self.s.guards.decide(test)  # `if is_transformers_version("<", "5"):` for the target
                if literal is None and self.s.guards.mentions_version(test):
                    # A version test the analysis cannot decide: what it guards holds on some versions only.
                    self.s.version_guarded.add(GuardedBlock(span_between(suite, branches[-1][1]), code(test)))
            static = literal if literal is not None else entry.decides(cond)
            if cond.text.replace("'", '"') in ('__name__ == "__main__"', '"__main__" == __name__'):
                static = cond.holds  # a script is run as __main__; that guard is no flag
            if static is True:
                self.exec_block(suite_statements(suite))
                break
            if static is False:
                continue
            self.s.state = entry.fork(cond)
            self.exec_block(suite_statements(suite))
            pending.append((self.s.state, cond, entry.path))
            self.s.state = entry.fork(cond.negated())
        for taken, cond, path in reversed(pending):
            self.s.state = join(taken, self.s.state, cond, cond.negated(), path)

    def exec_loop(self, node: Node) -> None:
        kids = node.children
        if node.type == "for_stmt":
            self.ex.eval(kids[3])
            body = kids[5]
        else:
            self.ex.eval(kids[1])
            body = kids[3]
        entry = self.s.state
        if node.type == "while_stmt" and literal_truth(kids[1]) is False:  # `while 0:` never runs its body
            if "else" in [k.value for k in kids if k.type == "keyword"]:
                self.exec_block(suite_statements(kids[-1]))
            return
        self.s.loop_depth += 1
        # A second pass sees what the first iteration left behind (a cache returned, a key set).
        for _ in range(2 if self.s.loop_depth <= MAX_LOOP_REPEAT_DEPTH else 1):
            if kids[1].type != "operator" and node.type == "for_stmt":
                self.assign(kids[1], Unknown("the loop variable"), node)
            self.exec_block(suite_statements(body))
            if self.s.state.dead:  # break/continue/return end this iteration's path only
                self.s.state = State(self.s.state.names, self.s.state.heap, entry.path, False, entry.meter)
        self.s.loop_depth -= 1
        if "else" in [k.value for k in kids if k.type == "keyword"]:
            self.exec_block(suite_statements(kids[-1]))

    def exec_try(self, node: Node) -> None:
        kids = node.children
        entry = self.s.state
        self.s.state = entry.fork()
        self.exec_block(suite_statements(kids[2]))
        after_try = self.s.state
        ends = [after_try]
        i = 3
        final_suite = else_suite = None
        while i < len(kids):
            k = kids[i]
            if k.type == "except_clause" or (k.type == "keyword" and k.value == "except"):
                suite = kids[i + 2]
                # An exception may come from anywhere in the try body: start from the state before it,
                # with what the try body left on the heap (mutations already done stay done).
                start = entry.fork() if after_try.dead else join(entry.fork(), after_try.fork(), None, None,
                                                                 entry.path)
                self.s.state = start
                if k.type == "except_clause" and len(k.children) >= 4:
                    self.assign(k.children[3], UNKNOWN, k)
                self.exec_block(suite_statements(suite))
                ends.append(self.s.state)
                i += 3
            elif k.type == "keyword" and k.value == "else":
                else_suite = kids[i + 2]
                i += 3
            elif k.type == "keyword" and k.value == "finally":
                final_suite = kids[i + 2]
                i += 3
            else:
                i += 1
        if else_suite is not None:
            self.s.state = after_try
            self.exec_block(suite_statements(else_suite))
            ends[0] = self.s.state
        merged = ends[0]
        for st in ends[1:]:
            merged = join(merged, st, None, None, entry.path)
        self.s.state = merged
        if final_suite is not None:
            was_dead = self.s.state.dead
            self.s.state.dead = False
            self.exec_block(suite_statements(final_suite))
            self.s.state.dead = self.s.state.dead or was_dead
