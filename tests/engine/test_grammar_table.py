"""engine/syntax/grammar_table.py: parso's grammar object from the table the package ships, the same automaton as
parso generates (state by state, for every shipped grammar), the same trees, and any missing, stale or damaged
table a fallback to parso's own load.

Each test gives parso an empty grammar memo (a new process, as far as grammars go).
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path
from typing import Any

import parso
import parso.grammar
import pytest
from parso.pgen2.generator import DFAState, Grammar, ReservedString
from parso.python.token import PythonTokenTypes
from parso.utils import parse_version_string
from tests.engine.test_fast_parser import BROKEN, CASES, SOURCES, broken, difference

from hf_cache_lint.engine.syntax import grammar_table

pytestmark = pytest.mark.skipif(parso.__version__ not in grammar_table.CHECKED_PARSO,
                                reason="another parso: load() is parso's own load_grammar()")

VERSION = parse_version_string(None)  # type: ignore[arg-type]
GRAMMAR_FILE = f"grammar{VERSION.major}{VERSION.minor}.txt"
TEXT = (Path(parso.grammar.__file__).parent / "python" / GRAMMAR_FILE).read_text(encoding="utf-8")
SHIPPED = ("3.10", "3.11", "3.12", "3.13", "3.14")  # scripts/parso_grammar_tables.py VERSIONS


def generated() -> Any:
    """A grammar object parso generates now, whatever any memo holds."""
    return parso.grammar.PythonGrammar(VERSION, TEXT)


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parso.grammar, "_loaded_grammars", {})


def _no_generation(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("parso regenerated its tables")


def _from_table(monkeypatch: pytest.MonkeyPatch) -> Any:
    with monkeypatch.context() as m:
        m.setattr(parso.grammar, "generate_grammar", _no_generation)
        return grammar_table.load()


def test_the_shipped_table_is_read_not_regenerated(fresh: None, monkeypatch: pytest.MonkeyPatch) -> None:
    grammar = _from_table(monkeypatch)
    assert isinstance(grammar, parso.grammar.PythonGrammar)
    assert grammar is parso.load_grammar()  # type: ignore[attr-defined]  # jedi's load gets the same object
    assert grammar_table.load() is grammar


def test_the_object_is_the_one_parso_builds(fresh: None, monkeypatch: pytest.MonkeyPatch) -> None:
    ours, theirs = _from_table(monkeypatch), generated()
    assert vars(ours).keys() == vars(theirs).keys()
    for name, value in vars(theirs).items():
        assert type(getattr(ours, name)) is type(value), name
    assert ours._hashed == theirs._hashed
    assert ours.version_info == theirs.version_info
    assert ours._parser is theirs._parser and ours._diff_parser is theirs._diff_parser
    assert ours._tokenizer.__self__ is ours  # the bound method, as parso's __init__ binds it


def canonical(pgen: Grammar[Any]) -> dict[str, Any]:
    """The automaton with every rule's states numbered in a walk from its first state, arcs in label order:
    parso's generator numbers a rule's states and orders its arcs by the addresses of the NFA states it walks, so
    two generations differ there and nowhere else."""
    number: dict[int, tuple[str, int]] = {}
    order: dict[str, list[DFAState[Any]]] = {}
    for rule, dfas in pgen.nonterminal_to_dfas.items():
        seen = [dfas[0]]
        for state in seen:  # grows while walked
            for _, nxt in sorted(state.arcs.items()):
                if all(nxt is not s for s in seen):  # by identity (DFAState.__eq__ compares arcs)
                    seen.append(nxt)
        assert len(seen) == len(dfas), rule  # every state is reached from the first
        order[rule] = seen
        number.update((id(s), (rule, i)) for i, s in enumerate(seen))
    reserved = {id(r) for r in pgen.reserved_syntax_strings.values()}

    def key(k: Any) -> tuple[str, str]:
        if isinstance(k, ReservedString):
            assert id(k) in reserved  # the grammar's own reserved strings
            return "reserved", k.value
        assert type(k) is PythonTokenTypes
        return "token", k.name

    return {rule: [(s.from_rule, s.is_final,
                    sorted((label, number[id(n)]) for label, n in s.arcs.items()),
                    sorted((label, number[id(n)]) for label, n in s.nonterminal_arcs.items()),
                    sorted((key(k), number[id(p.next_dfa)], [number[id(d)] for d in p.dfa_pushes])
                           for k, p in s.transitions.items()))
                   for s in states]
            for rule, states in order.items()} | {
        "": [pgen.start_nonterminal, sorted(pgen.reserved_syntax_strings), list(pgen.nonterminal_to_dfas)]}


@pytest.mark.parametrize("version", SHIPPED)
def test_every_shipped_table_is_the_automaton_parso_generates(version: str) -> None:
    theirs = parso.load_grammar(version=version)  # type: ignore[attr-defined]
    table = grammar_table.table_path(f"grammar{version.replace('.', '')}.txt")
    ours = grammar_table.decode(json.loads(table.read_text(encoding="utf-8")), theirs._hashed)
    assert all(type(s) is DFAState and vars(s).keys() == {"from_rule", "nfa_set", "arcs", "nonterminal_arcs",
                                                           "transitions", "is_final"}
               for dfas in ours.nonterminal_to_dfas.values() for s in dfas)
    assert canonical(ours) == canonical(theirs._pgen_grammar)
    assert sum(map(len, ours.nonterminal_to_dfas.values())) > 400


def test_encode_then_decode_gives_the_same_tables_state_by_state() -> None:
    theirs = generated()._pgen_grammar
    ours = grammar_table.decode(json.loads(json.dumps(grammar_table.encode(theirs, "h"))), "h")
    where: dict[int, tuple[str, int]] = {}
    for grammar in (ours, theirs):
        for rule, dfas in grammar.nonterminal_to_dfas.items():
            where.update((id(s), (rule, i)) for i, s in enumerate(dfas))
    assert list(ours.reserved_syntax_strings) == list(theirs.reserved_syntax_strings)
    for rule, dfas in theirs.nonterminal_to_dfas.items():
        for o, t in zip(ours.nonterminal_to_dfas[rule], dfas, strict=True):
            assert (o.from_rule, o.is_final) == (t.from_rule, t.is_final)
            for arcs in ("arcs", "nonterminal_arcs"):
                assert [(k, where[id(s)]) for k, s in getattr(o, arcs).items()] == \
                    [(k, where[id(s)]) for k, s in getattr(t, arcs).items()], (rule, arcs)
            assert [getattr(k, "value", k) for k in o.transitions] == [getattr(k, "value", k) for k in t.transitions]
            for po, pt in zip(o.transitions.values(), t.transitions.values(), strict=True):
                assert where[id(po.next_dfa)] == where[id(pt.next_dfa)]
                assert [where[id(s)] for s in po.dfa_pushes] == [where[id(s)] for s in pt.dfa_pushes]


def test_the_trees_are_parsos(fresh: None, monkeypatch: pytest.MonkeyPatch) -> None:
    ours, theirs = _from_table(monkeypatch), generated()
    rng = random.Random(31)
    texts = [(name, text) for name, text in SOURCES[::12]] + [(f"case {i}", c) for i, c in enumerate(CASES)]
    texts += [(f"{name}: {how}", t) for name, text in BROKEN[::25] for how, t in broken(text, rng)]
    for name, text in texts:
        found = difference(theirs.parse(text, error_recovery=True), ours.parse(text, error_recovery=True))
        assert found is None, f"{name}: {found}"


def _damage(table: Path, how: str) -> None:
    if how == "missing":
        table.unlink()
        return
    if how == "truncated":
        table.write_text(table.read_text()[:5000])
        return
    data = json.loads(table.read_text())
    if how == "another parso":
        data["parso"] = "0.8.3"
    elif how == "another grammar":
        data["grammar"] = "0" * 64
    elif how == "an unknown token type":
        row = next(r for r in data["states"] if 0 in r[4][::4])
        row[4][row[4][::4].index(0) * 4 + 1] = "NOT_A_TOKEN"
    elif how == "a state out of range":
        data["states"][0][2][1] = 10**6
    elif how == "a wrong shape":
        data["states"][3] = {"from_rule": 1}
    elif how == "a foreign file":
        data = [1, 2, 3]
    table.write_text(json.dumps(data))


@pytest.mark.parametrize("how", ["missing", "truncated", "another parso", "another grammar", "an unknown token type",
                                 "a state out of range", "a wrong shape", "a foreign file"])
def test_a_missing_stale_or_damaged_table_falls_back_to_parsos_load(
        fresh: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, how: str) -> None:
    table = grammar_table.table_path(GRAMMAR_FILE)
    shutil.copy(table, tmp_path / table.name)
    monkeypatch.setattr(grammar_table, "DATA", tmp_path)
    _damage(tmp_path / table.name, how)
    calls: list[int] = []
    real = parso.grammar.generate_grammar

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(parso.grammar, "generate_grammar", counted)
    grammar = grammar_table.load()
    assert calls == [1]  # parso's own load ran
    assert difference(generated().parse(TEXT[:3000]), grammar.parse(TEXT[:3000])) is None
    assert sorted(p.name for p in tmp_path.iterdir()) == ([] if how == "missing" else [table.name])  # nothing written
