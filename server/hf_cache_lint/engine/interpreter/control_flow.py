"""Control flow: `if`/`elif` (forking and joining the path under each condition, version guards decided for
the target), loops (two passes) and `try`, their blocks run by the statements (engine/interpreter/statements.py)."""

from __future__ import annotations

import re
from functools import partial
from typing import TYPE_CHECKING

from hf_cache_lint.engine.interpreter.expressions import Expressions
from hf_cache_lint.engine.interpreter.narrowing import cache_is_builtin, model_is_instance, narrow, narrowing
from hf_cache_lint.engine.interpreter.none_comparisons import (
    constants_compared,
    emptiness_tested,
    none_compared,
)
from hf_cache_lint.engine.interpreter.session import MAX_LOOP_REPEAT_DEPTH, Session
from hf_cache_lint.engine.interpreter.state import State, join
from hf_cache_lint.engine.interpreter.unpack_targets import count_targets, unpacked_item
from hf_cache_lint.engine.interpreter.values import UNKNOWN, Cond, Maybe, Unknown, list_item, maybe
from hf_cache_lint.engine.output.analysis import GuardedBlock
from hf_cache_lint.engine.syntax.constants import literal_truth
from hf_cache_lint.engine.syntax.nodes import Node, code, span_between

if TYPE_CHECKING:
    from hf_cache_lint.engine.interpreter.statements import Statements


class ControlFlow:
    """Forks the session's path at a branch, a loop or a `try` and joins it after; `st` runs each block and
    binds a loop variable or an `except ... as` name."""

    def __init__(self, session: Session, ex: Expressions, st: Statements) -> None:
        self.s = session
        self.ex = ex
        self.st = st
        self._conds: dict[int, tuple[Cond, Cond]] = {}  # a test's condition and its negation, by id(test)

    def condition(self, test: Node) -> Cond:
        return self._conditions(test)[0]

    def _conditions(self, test: Node) -> tuple[Cond, Cond]:
        """`condition(test)` and its negation, once per test (a body runs again at every call inlined)."""
        got = self._conds.get(id(test))
        if got is None:
            cond = Cond(self.s.code(test.children[1]), False) if test.type == "not_test" else \
                Cond(self.s.code(test), True)
            got = self._conds[id(test)] = (cond, cond.negated())
        return got

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
        pending: list[tuple[State, Cond, Cond, tuple[Cond, ...]]] = []
        for test, suite in branches:
            entry = self.s.state
            if test is None:
                self.st.exec_block(self.s.block(suite))
                break
            self.ex.eval(test)
            cond, negated = self._conditions(test)
            literal = literal_truth(test)  # `if 1:`, `if not 0:`: decided as Python decides it
            if literal is None and self.s.guards is not None:
                literal = self.s.guards.decide(test)  # `if is_transformers_version("<", "5"):` for the target
                if literal is None and self.s.guards.mentions_version(test):
                    # A version test the analysis cannot decide: what it guards holds on some versions only.
                    self.s.version_guarded.add(GuardedBlock(span_between(suite, branches[-1][1]), code(test)))
            static = literal if literal is not None else entry.decides(cond)
            if static is None:  # `if cache is not None:` on a path where the cache is known (none_comparisons.py)
                static = none_compared(test, self.ex.eval, partial(_excluded, entry))
            if static is None:  # `if rejected == False:` with the flag a caller passed (none_comparisons.py)
                static = constants_compared(test, self.ex.eval, partial(_excluded, entry))
            if static is None and self.ex.uses.on:  # `if not kv_rank:` on the empty list the code built
                static = emptiness_tested(test, self.ex.eval)
            if static is None:  # `isinstance(model, Qwen3ForCausalLM)` on a model loaded as one
                static = model_is_instance(test, self.ex)
            if static is None and self.ex.uses.on:  # `isinstance(cache, tuple)` on a transformers cache: never
                static = cache_is_builtin(test, self.ex)
            if cond.text.replace("'", '"') in ('__name__ == "__main__"', '"__main__" == __name__'):
                static = cond.holds  # a script is run as __main__; that guard is no flag
            # `isinstance(x, Cache)`: x holds a transformers cache on the side where the test says so.
            when_true, when_false = narrowing(test, self.ex) if self.ex.uses.on else ({}, {})
            if static is True:
                narrow(when_true, self.ex)
                self.st.exec_block(self.s.block(suite))
                break
            if static is False:
                narrow(when_false, self.ex)
                continue
            self.s.state = entry.fork(cond)
            narrow(when_true, self.ex)
            self.st.exec_block(self.s.block(suite))
            pending.append((self.s.state, cond, negated, entry.path))
            self.s.state = entry.fork(negated)
            narrow(when_false, self.ex)
        for taken, cond, negated, path in reversed(pending):
            self.s.state = join(taken, self.s.state, cond, negated, path)

    def _enumerated(self, targets: Node, iterable: Node, body: Node) -> None:
        """`for i, (k, v) in enumerate(cache):` iterates the cache itself, each item unpacked into `(k, v)` (or, for
        `for i, layer in enumerate(cache):`, where the body unpacks `layer`: `k, v = layer`)."""
        kids = getattr(iterable, "children", [])
        if len(kids) != 2 or kids[0].type != "name" or kids[0].value != "enumerate" or kids[1].type != "trailer" \
                or kids[1].children[0].value != "(" or len(kids[1].children) != 3:
            return
        inner = kids[1].children[1]
        items = [c for c in getattr(targets, "children", []) if c.type != "operator"]
        if inner.type in ("arglist", "argument") or targets.type != "exprlist" or len(items) != 2:
            return
        iterated = self.ex.eval(inner)
        # The body's walk only for a cache or model (`whole` records nothing else): it reads every node of the body.
        if items[1].type == "name" and self.ex.uses.iterated(iterated) is not None and \
                (n := unpacked_item(items[1].value, body)) is not None:
            self.ex.uses.whole(iterated, "iterate", inner, n, items[1].value)
            return
        self.ex.uses.whole(iterated, "iterate", inner, count_targets(items[1]))

    def exec_loop(self, node: Node) -> None:
        kids = node.children
        if node.type == "for_stmt":
            iterated = self.ex.eval(kids[3])
            if self.ex.uses.on:
                # The body's walk (every node of it, at every loop run: 1 ms a run of `generate`) only for a cache
                # or model: `whole` records nothing for any other value.
                if kids[1].type == "name" and self.ex.uses.iterated(iterated) is not None and \
                        (n := unpacked_item(kids[1].value, kids[5])) is not None:
                    # `for layer in cache: k, v = layer`: the items are unpacked in the body
                    self.ex.uses.whole(iterated, "iterate", kids[3], n, kids[1].value)
                else:
                    self.ex.uses.whole(iterated, "iterate", kids[3], count_targets(kids[1]))
                self._enumerated(kids[1], kids[3], kids[5])
            body = kids[5]
        else:
            self.ex.eval(kids[1])
            body = kids[3]
        entry = self.s.state
        if node.type == "while_stmt" and literal_truth(kids[1]) is False:  # `while 0:` never runs its body
            if "else" in [k.value for k in kids if k.type == "keyword"]:
                self.st.exec_block(self.s.block(kids[-1]))
            return
        self.s.loop_depth += 1
        # A second pass sees what the first iteration left behind (a cache returned, a key set).
        for run in range(2 if self.s.loop_depth <= MAX_LOOP_REPEAT_DEPTH else 1):
            if kids[1].type != "operator" and node.type == "for_stmt":
                if run:
                    _forget_tests_of(self.s.state, _target_names(kids[1]), entry)
                # `for cache in caches:` over a list of one transformers cache: each item is that cache.
                item = list_item(iterated) if kids[1].type == "name" and self.ex.uses.on else None
                self.st.assign(kids[1], item or Unknown("the loop variable"), node)
            self.st.exec_block(self.s.block(body))
            if self.s.state.dead:  # break/continue/return end this iteration's path only
                self.s.state = State(self.s.state.names, self.s.state.heap, entry.path, False, entry.meter)
        self.s.loop_depth -= 1
        if "else" in [k.value for k in kids if k.type == "keyword"]:
            self.st.exec_block(self.s.block(kids[-1]))

    def exec_try(self, node: Node) -> None:
        kids = node.children
        entry = self.s.state
        self.s.state = entry.fork()
        self.st.exec_block(self.s.block(kids[2]))
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
                    self.st.assign(k.children[3], UNKNOWN, k)
                self.st.exec_block(self.s.block(suite))
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
            self.st.exec_block(self.s.block(else_suite))
            ends[0] = self.s.state
        merged = ends[0]
        for st in ends[1:]:
            merged = join(merged, st, None, None, entry.path)
        self.s.state = merged
        if final_suite is not None:
            was_dead = self.s.state.dead
            self.s.state.dead = False
            self.st.exec_block(self.s.block(final_suite))
            self.s.state.dead = self.s.state.dead or was_dead


def _target_names(target: Node) -> set[str]:
    """The names a `for` statement binds (`i`, `i, (k, v)`)."""
    if target.type == "name":
        return {target.value}
    return {n for k in getattr(target, "children", []) for n in _target_names(k)}


def _forget_tests_of(state: State, targets: set[str], entry: State) -> None:
    """A value the previous iteration bound under a test of the loop variable (`if step == 0: past = ...`) holds
    at the next one whatever that test now says (`else:` there: `step` is another value): its option keeps no
    condition (a path the linter cannot name) rather than one the new path contradicts. A value the iteration did
    not bind (the same object as before the loop: a fork and a join keep it) keeps its conditions: the test chose
    it before the loop, when the name meant what it meant then (TGI's `first = batches[0].past` after a loop that
    converted each batch's cache, read in a later loop over `batch`)."""
    if not targets:
        return
    mentions = re.compile(r"\b(?:" + "|".join(map(re.escape, sorted(targets))) + r")\b")
    before = entry.names
    for name, value in list(state.names.items()):
        if isinstance(value, Maybe) and before.get(name) is not value and any(c is not None and mentions.search(c.text) for _, c in value.options):
            state.names[name] = maybe((v, None if c is not None and mentions.search(c.text) else c)
                                      for v, c in value.options)


def _excluded(state: State, cond: Cond) -> bool:
    """Whether `state`'s path excludes `cond`."""
    return state.decides(cond) is False
