"""parso's grammar object without regenerating its tables at every start: `load()` is `parso.load_grammar()`.

parso builds its pgen tables (418 DFA states for Python 3.11) from the grammar text each time a process first
asks for a grammar: ~17 ms of a server's or a CLI run's start. The package ships those tables, one JSON file per
Python grammar of the parso release it pins (data/parso-<version>-grammar<NN>.json, written by
scripts/parso_grammar_tables.py); `load()` rebuilds the tables from the file (~4 ms), then makes the grammar object
as parso's `PythonGrammar.__init__` does and puts it in parso's own memo (so jedi and every other
`parso.load_grammar()` of this process get it too).

Safely:
- a table is used only with the parso release it was made by and only for the grammar text it was made from (the
  sha256 of the installed grammar file, parso's own `_hashed`, is in the table and compared); otherwise, and on
  anything unexpected (no file, a wrong shape, an unknown token type), parso's own `load_grammar()` runs;
- it is plain JSON decoded field by field into parso's classes (never pickle: loading it runs no code);
- nothing is written at run time.

One field is not restored: `DFAState.nfa_set`, the generator's working set (parso 0.8.7 reads it only in
pgen2/generator.py, while generating); it is left empty. tests/engine/test_grammar_table.py compares the
rebuilt tables with parso's state by state, and the trees both parse.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import parso
import parso.grammar
from parso.pgen2.generator import DFAPlan, DFAState, Grammar, ReservedString
from parso.python.diff import DiffParser
from parso.python.parser import Parser as PythonParser
from parso.python.token import PythonTokenTypes
from parso.utils import parse_version_string

FORMAT = 2
CHECKED_PARSO = ("0.8.7",)
DATA = Path(__file__).resolve().parent.parent.parent / "data"


def load() -> Any:
    """`parso.load_grammar()` for the running Python: from the shipped table when it is valid, else parso's own."""
    if parso.__version__ not in CHECKED_PARSO:
        return parso.load_grammar()  # type: ignore[attr-defined]
    try:
        version_info = parse_version_string(None)  # type: ignore[arg-type]  # None: the running Python, as parso's load
        grammar_file = f"grammar{version_info.major}{version_info.minor}.txt"
        path = os.path.join(os.path.dirname(parso.grammar.__file__), "python", grammar_file)
        memo: dict[str, Any] = parso.grammar._loaded_grammars
        if path in memo:
            return memo[path]
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except Exception:  # a Python parso does not know, an unreadable file: parso decides and says
        return parso.load_grammar()  # type: ignore[attr-defined]
    hashed = hashlib.sha256(text.encode("utf-8")).hexdigest()
    pgen = _read(table_path(grammar_file), hashed)
    if pgen is None:
        return parso.load_grammar()  # type: ignore[attr-defined]
    grammar = object.__new__(parso.grammar.PythonGrammar)
    # parso 0.8.7's PythonGrammar.__init__ and Grammar.__init__, with the tables given instead of generated.
    grammar._pgen_grammar = pgen
    grammar._parser = PythonParser
    grammar._tokenizer = grammar._tokenize_lines
    grammar._diff_parser = DiffParser
    grammar._hashed = hashed
    grammar.version_info = version_info
    return memo.setdefault(path, grammar)


def table_path(grammar_file: str) -> Path:
    """The shipped table of parso's grammar file `grammar_file` (`grammar311.txt`) for the running parso."""
    return DATA / f"parso-{parso.__version__}-{grammar_file.removesuffix('.txt')}.json"


def encode(pgen: Grammar[Any], hashed: str) -> dict[str, Any]:
    """parso's pgen tables as JSON data: every DFA state once, referred to by its index."""
    index: dict[int, int] = {}
    states: list[DFAState[Any]] = []
    rules: list[list[Any]] = []
    for name, dfas in pgen.nonterminal_to_dfas.items():
        firsts = []
        for state in dfas:
            index[id(state)] = len(states)
            firsts.append(len(states))
            states.append(state)
        rules.append([name, firsts])
    reserved = list(pgen.reserved_syntax_strings)
    rows = []
    pushes: dict[tuple[int, ...], int] = {}  # 2,811 transitions push 447 distinct state lists (Python 3.11)
    for state in states:
        transitions: list[Any] = []
        for key, plan in state.transitions.items():
            if isinstance(key, ReservedString):
                transitions += [1, key.value]
            else:
                transitions += [0, key.name]
            pushed = tuple(index[id(s)] for s in plan.dfa_pushes)
            transitions += [index[id(plan.next_dfa)], pushes.setdefault(pushed, len(pushes))]
        rows.append([state.from_rule, state.is_final,
                     [x for label, s in state.arcs.items() for x in (label, index[id(s)])],
                     [x for label, s in state.nonterminal_arcs.items() for x in (label, index[id(s)])],
                     transitions])
    return {"format": FORMAT, "parso": parso.__version__, "grammar": hashed, "start": pgen.start_nonterminal,
            "reserved": reserved, "rules": rules, "pushes": [list(p) for p in pushes], "states": rows}


def decode(data: Any, hashed: str) -> Grammar[Any]:
    """The tables `encode` wrote; raises (KeyError, ValueError, TypeError, IndexError) on anything else."""
    if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("parso") != parso.__version__ \
            or data.get("grammar") != hashed:
        raise ValueError("another table")
    reserved = {value: ReservedString(value) for value in data["reserved"]}
    if not all(isinstance(value, str) for value in reserved):
        raise TypeError("reserved")
    rows = data["states"]
    new = object.__new__
    states: list[DFAState[Any]] = [new(DFAState) for _ in rows]
    tokens = PythonTokenTypes.__members__
    pushes = [[states[i] for i in pushed] for pushed in data["pushes"]]  # shared, as parso's own plans share them
    for state, (from_rule, is_final, arcs, nonterminal_arcs, transitions) in zip(states, rows, strict=True):
        if not isinstance(from_rule, str) or not isinstance(is_final, bool):
            raise TypeError("state")
        state.from_rule = from_rule
        state.nfa_set = set()
        state.is_final = is_final
        state.arcs = {_label(arcs[i]): states[arcs[i + 1]] for i in range(0, len(arcs), 2)}
        state.nonterminal_arcs = {_label(nonterminal_arcs[i]): states[nonterminal_arcs[i + 1]]
                                  for i in range(0, len(nonterminal_arcs), 2)}
        table: dict[Any, DFAPlan] = {}
        for i in range(0, len(transitions), 4):
            kind, key, next_dfa, pushed = transitions[i:i + 4]
            token = reserved[key] if kind == 1 else tokens[key] if kind == 0 else None
            if token is None:
                raise ValueError("transition")
            table[token] = DFAPlan(states[next_dfa], pushes[pushed])
        state.transitions = table
    rules = {name: [states[i] for i in firsts] for name, firsts in data["rules"]}
    if not all(isinstance(name, str) and dfas for name, dfas in rules.items()) or data["start"] not in rules:
        raise ValueError("rules")
    return Grammar(data["start"], rules, reserved)


def _label(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError("label")
    return value


def _read(table: Path, hashed: str) -> Grammar[Any] | None:
    try:
        with open(table, "rb") as f:
            return decode(json.loads(f.read()), hashed)
    except Exception:  # no table, or a foreign or damaged one: parso's own load runs
        return None
