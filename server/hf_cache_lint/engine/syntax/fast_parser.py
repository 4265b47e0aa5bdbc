"""parso's error-recovering parser with its per-token work done in one loop: the same tree, built faster.

parso 0.8's `Parser.parse` pulls each token through `_recovery_tokenize` (a generator), then `_add_token`, which
calls `_token_to_transition`, `_pop` (and `convert_node`) for each finished rule and `convert_leaf` for the leaf;
each leaf's `__init__` sets its position through a property. That is ~5 Python calls per token for what is a few
dict look-ups. `FastParser.parse` does the same steps in one loop, in the same order, with the same objects: the
same stack of `StackNode`s (a plain list: see `parse`), the same node and leaf classes with the same attributes,
the same `error_recovery` (parso's own, called whenever parso's would be: it reads and edits `self.stack`,
`self._omit_dedent_list` and calls `self._add_token`, which stay parso's). Only the common case is inlined; every
tree is parso's tree, node for node (tests/engine/test_fast_parser.py compares them over the corpus, the examples,
transformers' large modules and broken inputs).

`grammar()` is a copy of parso's grammar object with this parser and engine/syntax/fast_tokenizer.py's tokenizer (parso's,
with the same token stream; the diff parser tokenizes with it too): the same pgen grammar, diff parser and
`_hashed` (so the same `parser_cache` entries, which jedi and engine/interpreter/replay.py read). parso's own grammar
object (`parso.load_grammar()`, shared with jedi; engine/syntax/grammar_table.py rebuilds its tables from the
tables the package ships) is left as it is, but for one attribute parso never reads on the DFA states the two
share (`_hfc_steps`: `_tables`).

Written against parso 0.8.7's internals (`BaseParser._add_token`/`_pop`, `Parser.convert_node`/`convert_leaf`/
`_recovery_tokenize`, `Leaf.__init__`, `BaseNode.__init__`, `DFAState.transitions`): with another parso installed
(pyproject.toml allows 0.8.4-0.8.x), `grammar()` is parso's own, unchanged.
"""

from __future__ import annotations

import copy
import functools
from typing import Any

import parso
from parso.parser import InternalParseError, StackNode
from parso.python import tree
from parso.python.parser import Parser
from parso.python.token import PythonTokenTypes

from hf_cache_lint.engine.syntax import fast_tokenizer, grammar_table

_INDENT = PythonTokenTypes.INDENT
_DEDENT = PythonTokenTypes.DEDENT


class FastParser(Parser):
    """parso's `Parser` (error recovery on, `file_input`) with `parse`'s token loop inlined."""

    def parse(self, tokens: Any) -> Any:
        if not self._error_recovery or self._start_nonterminal != "file_input":
            return super().parse(tokens)  # type: ignore[no-untyped-call]
        pgen = self._pgen_grammar
        _tables(pgen)  # each DFA state's `_hfc_steps`, read below
        reserved = pgen.reserved_syntax_strings
        node_map = self.node_map
        leaf_classes = _LEAF_CLASSES
        python_node = tree.PythonNode
        keyword, name, operator = tree.Keyword, tree.Name, tree.Operator
        new = object.__new__
        stack_node = StackNode
        omit_dedent = self._omit_dedent_list  # appended in place by error_recovery
        error_recovery: Any = self.error_recovery
        leaf: Any
        node: Any

        # A plain list, not parso's `Stack` (a list subclass): CPython 3.11 specialises `stack[-1]`, `append` and `pop`
        # for an exact list only (the 99 modules of transformers 5.24.0 the CLI's gate passes: parse 2.03-2.14 ->
        # 1.81-1.88 s CPU with `_hfc_steps` and the pop loop's `tos`). `Stack` adds only jedi's completion API
        # (`_allowed_transition_names_and_token_types`), which jedi asks of its own parser (parso's grammar object);
        # error_recovery and the diff parser (which reads this stack while it tokenizes) only index, slice and append.
        stack: list[Any] = [_StackNode(pgen.nonterminal_to_dfas[self._start_nonterminal][0])]
        self.stack = stack  # type: ignore[assignment]  # parso annotates it `Stack`
        token = None
        for token in tokens:
            type_, value, start_pos, prefix = token
            # Parser._recovery_tokenize: drop the DEDENT of an INDENT that error recovery turned into an error leaf.
            if type_ is _DEDENT:
                if omit_dedent and omit_dedent[-1] == self._indent_counter:
                    omit_dedent.pop()
                    self._indent_counter -= 1
                    continue
                self._indent_counter -= 1
            elif type_ is _INDENT:
                self._indent_counter += 1

            # BaseParser._add_token. The token type's TokenType stands for the enum member in the look-ups: an
            # enum member hashes in Python (enum.Enum.__hash__), a TokenType or ReservedString in C.
            kind = type_._value_
            transition = reserved.get(value, kind) if kind.contains_syntax else kind
            try:
                tos = stack[-1]
                while True:
                    dfa = tos.dfa
                    step = dfa._hfc_steps.get(transition)  # an attribute: `tables[id(dfa)]` was two look-ups more
                    if step is not None:
                        break
                    if not dfa.is_final:
                        error_recovery(token)
                        break
                    # BaseParser._pop and Parser.convert_node
                    stack.pop()
                    nodes = tos.nodes
                    if len(nodes) == 1:
                        node = nodes[0]
                    else:
                        nonterminal = dfa.from_rule
                        cls = node_map.get(nonterminal)
                        if cls is not None:
                            node = cls(nodes)
                        else:
                            if nonterminal == "suite":  # no INDENT/DEDENT leaves in the tree
                                nodes = [nodes[0], *nodes[2:-1]]
                            # PythonNode(nonterminal, nodes), without its three __init__ calls
                            node = new(python_node)
                            node.type = nonterminal
                            node.children = nodes
                            node.parent = None
                            for child in nodes:
                                child.parent = node
                    tos = stack[-1]  # the next state down: the loop's next step
                    tos.nodes.append(node)
            except IndexError:
                raise _ParseError("too much input", type_, value, start_pos) from None
            if step is None:
                continue
            tos.dfa, pushes = step
            for push in pushes:  # StackNode(push), without its __init__ call
                tos = new(stack_node)
                tos.dfa = push
                tos.nodes = []
                stack.append(tos)
            # Parser.convert_leaf, and Leaf.__init__ without its start_pos property
            if kind is _NAME_KIND:
                leaf = new(keyword if value in reserved else name)
            else:
                leaf = new(leaf_classes.get(kind, operator))
            leaf.value = value
            leaf.line, leaf.column = start_pos
            leaf.prefix = prefix
            leaf.parent = None
            tos.nodes.append(leaf)

        # BaseParser.parse's end, unchanged
        while True:
            tos = stack[-1]
            if not tos.dfa.is_final:
                assert token is not None
                raise _ParseError("incomplete input", token.type, token.string, token.start_pos)
            if len(stack) > 1:
                self._pop()  # type: ignore[no-untyped-call]
            else:
                return self.convert_node(tos.nonterminal, tos.nodes)  # type: ignore[no-untyped-call]


# Parser._leaf_map keyed by TokenType (see `kind` above); NAME is a Keyword or a Name, anything else an Operator.
_LEAF_CLASSES = {t._value_: cls for t, cls in Parser._leaf_map.items()}
_NAME_KIND = PythonTokenTypes.NAME._value_
_StackNode: Any = StackNode  # parso's own classes, called as parso calls them (mypy: parso is untyped there)
_ParseError: Any = InternalParseError

Step = tuple[Any, Any]
_TABLES: dict[int, tuple[Any, dict[int, dict[Any, Step]]]] = {}


def _tables(pgen: Any) -> dict[int, dict[Any, Step]]:
    """Each DFA state's `transitions` keyed as `FastParser.parse` looks them up (TokenType for an enum member),
    each plan as (next_dfa, dfa_pushes); by `id` of the state (DFAState defines __eq__, so it has no hash), and the
    same dict set on the state as `_hfc_steps`, which `parse` reads (parso's states are shared with parso's own
    grammar object, which never reads that attribute). Built once per pgen grammar (its states live as long as it,
    and it is kept here beside its table)."""
    kept = _TABLES.get(id(pgen))
    if kept is not None and kept[0] is pgen:
        return kept[1]
    table: dict[int, dict[Any, Step]] = {}
    todo = [dfa for dfas in pgen.nonterminal_to_dfas.values() for dfa in dfas]
    while todo:
        dfa = todo.pop()
        if id(dfa) in table:
            continue
        table[id(dfa)] = dfa._hfc_steps = {
            (key._value_ if isinstance(key, PythonTokenTypes) else key): (plan.next_dfa, plan.dfa_pushes)
            for key, plan in dfa.transitions.items()}
        for plan in dfa.transitions.values():
            todo.append(plan.next_dfa)
            todo.extend(plan.dfa_pushes)
    _TABLES[id(pgen)] = (pgen, table)
    return table


# The parso releases whose internals FastParser was written against and checked on (tree for tree, over the
# corpus, the examples, real code and broken inputs: tests/engine/test_fast_parser.py).
CHECKED_PARSO = ("0.8.7",)


def grammar() -> Any:
    """A copy of parso's grammar object (`parso.load_grammar()`) that parses with `FastParser`; parso's own
    grammar object where the installed parso is not one FastParser was checked on."""
    plain = grammar_table.load()  # parso.load_grammar(), its tables read rather than regenerated
    if parso.__version__ not in CHECKED_PARSO:
        return plain
    fast = copy.copy(plain)
    fast._parser = FastParser
    fast._tokenizer = functools.partial(fast_tokenizer.tokenize_lines, version_info=plain.version_info)
    fast_tokenizer._check_op_initials(plain.version_info)
    return fast
