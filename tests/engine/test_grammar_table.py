"""engine/syntax/grammar_table.py: parso's grammar object from a table written by an earlier process, the same
tables as parso generates (state by state), the same trees, and any damaged, foreign or unwritable table a miss.

Each test gives parso an empty grammar memo and the table folder a fresh one (HF_CACHE_LINT_CACHE_DIR), so the
first `load()` runs parso's own generator and writes the table, and the next reads it.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import parso
import parso.grammar
import pytest
from parso.pgen2.generator import DFAState, ReservedString
from parso.python.token import PythonTokenTypes
from parso.utils import parse_version_string
from tests.engine.test_fast_parser import BROKEN, CASES, SOURCES, broken, difference

from hf_cache_lint.engine.syntax import grammar_table

pytestmark = pytest.mark.skipif(parso.__version__ not in grammar_table.CHECKED_PARSO,
                                reason="another parso: load() is parso's own load_grammar()")

VERSION = parse_version_string(None)
GRAMMAR_FILE = Path(parso.grammar.__file__).parent / "python" / f"grammar{VERSION.major}{VERSION.minor}.txt"
TEXT = GRAMMAR_FILE.read_text(encoding="utf-8")


def generated() -> Any:
    """A grammar object parso generates now, whatever any memo holds."""
    return parso.grammar.PythonGrammar(VERSION, TEXT)


@pytest.fixture
def fresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HF_CACHE_LINT_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("HF_CACHE_LINT_NO_CACHE", raising=False)
    monkeypatch.setattr(parso.grammar, "_loaded_grammars", {})
    return tmp_path


def _forget(monkeypatch: pytest.MonkeyPatch) -> None:
    """A new process: parso's memo empty (the table stays)."""
    monkeypatch.setattr(parso.grammar, "_loaded_grammars", {})


def _tables(files: Path) -> list[Path]:
    return sorted((files / "grammar").glob("*.json"))


def _from_table(fresh: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any]:
    """The grammar parso generated (whose tables were written), and the one then read from the table."""
    written = grammar_table.load()
    _forget(monkeypatch)

    def no_generation(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("parso regenerated its tables")

    with monkeypatch.context() as m:
        m.setattr(parso.grammar, "generate_grammar", no_generation)
        return written, grammar_table.load()


def test_the_first_load_writes_the_table_and_the_next_reads_it(fresh: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = grammar_table.load()
    assert first is parso.load_grammar()  # type: ignore[attr-defined]  # parso's memo holds it
    assert [p.name for p in _tables(fresh)] == [
        f"parso-{parso.__version__}-grammar-{first._hashed[:24]}-v{grammar_table.FORMAT}.json"]
    _forget(monkeypatch)
    _, second = _from_table(fresh, monkeypatch)
    assert second is not first
    assert second is parso.load_grammar()  # type: ignore[attr-defined]  # jedi's load gets the same object
    assert isinstance(second, parso.grammar.PythonGrammar)


def test_the_object_is_the_one_parso_builds(fresh: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _, ours = _from_table(fresh, monkeypatch)
    theirs = generated()
    assert vars(ours).keys() == vars(theirs).keys()
    for name, value in vars(theirs).items():
        assert type(getattr(ours, name)) is type(value), name
    assert ours._hashed == theirs._hashed
    assert ours.version_info == theirs.version_info
    assert ours._parser is theirs._parser and ours._diff_parser is theirs._diff_parser
    assert ours._tokenizer.__self__ is ours  # the bound method, as parso's __init__ binds it


def test_the_tables_are_parsos_state_by_state(fresh: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Against the tables that were written: parso's generator walks sets of NFA states (hashed by address), so
    # two generations number a rule's states and order its arcs differently; the trees test compares with another.
    written, read = _from_table(fresh, monkeypatch)
    ours, theirs = read._pgen_grammar, written._pgen_grammar
    assert ours.start_nonterminal == theirs.start_nonterminal
    assert list(ours.reserved_syntax_strings) == list(theirs.reserved_syntax_strings)
    assert all(type(r) is ReservedString and r.value == k for k, r in ours.reserved_syntax_strings.items())
    assert list(ours.nonterminal_to_dfas) == list(theirs.nonterminal_to_dfas)
    where: dict[int, tuple[str, int]] = {}  # a state, by its rule and place in it, on either side
    for grammar in (ours, theirs):
        for rule, dfas in grammar.nonterminal_to_dfas.items():
            where.update((id(s), (rule, i)) for i, s in enumerate(dfas))
    reserved = set(map(id, ours.reserved_syntax_strings.values()))
    count = 0
    for rule, dfas in theirs.nonterminal_to_dfas.items():
        assert len(ours.nonterminal_to_dfas[rule]) == len(dfas), rule
        for o, t in zip(ours.nonterminal_to_dfas[rule], dfas, strict=True):
            count += 1
            assert type(o) is DFAState and vars(o).keys() == vars(t).keys()
            assert (o.from_rule, o.is_final) == (t.from_rule, t.is_final)
            for arcs in ("arcs", "nonterminal_arcs"):
                assert [(k, where[id(s)]) for k, s in getattr(o, arcs).items()] == \
                    [(k, where[id(s)]) for k, s in getattr(t, arcs).items()], (rule, arcs)
            assert [_key(k) for k in o.transitions] == [_key(k) for k in t.transitions]
            for k in o.transitions:  # the grammar's own reserved strings, parso's own token types
                assert id(k) in reserved if isinstance(k, ReservedString) else type(k) is PythonTokenTypes
            for po, pt in zip(o.transitions.values(), t.transitions.values(), strict=True):
                assert where[id(po.next_dfa)] == where[id(pt.next_dfa)]
                assert [where[id(s)] for s in po.dfa_pushes] == [where[id(s)] for s in pt.dfa_pushes]
    assert count > 400  # 418 states for Python 3.11's grammar


def _key(k: Any) -> tuple[str, str]:
    return ("reserved", k.value) if isinstance(k, ReservedString) else ("token", k.name)


def test_the_trees_are_parsos(fresh: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _, ours = _from_table(fresh, monkeypatch)
    theirs = generated()
    rng = random.Random(31)
    texts = [(name, text) for name, text in SOURCES[::12]] + [(f"case {i}", c) for i, c in enumerate(CASES)]
    texts += [(f"{name}: {how}", t) for name, text in BROKEN[::25] for how, t in broken(text, rng)]
    for name, text in texts:
        found = difference(theirs.parse(text, error_recovery=True), ours.parse(text, error_recovery=True))
        assert found is None, f"{name}: {found}"


def _damage(table: Path, how: str) -> None:
    data = json.loads(table.read_text())
    if how == "truncated":
        table.write_text(table.read_text()[:5000])
        return
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


@pytest.mark.parametrize("how", ["truncated", "another parso", "another grammar", "an unknown token type",
                                 "a state out of range", "a wrong shape", "a foreign file"])
def test_a_damaged_or_foreign_table_is_a_miss_and_written_again(fresh: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 how: str) -> None:
    grammar_table.load()
    [table] = _tables(fresh)
    _damage(table, how)
    damaged = table.read_text()
    _forget(monkeypatch)
    calls: list[int] = []
    real = parso.grammar.generate_grammar

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(parso.grammar, "generate_grammar", counted)
    grammar = grammar_table.load()
    assert calls == [1]  # parso's own load ran
    assert difference(generated().parse(TEXT[:3000]), grammar.parse(TEXT[:3000])) is None
    # and wrote the table again (a new generation: its states may be numbered otherwise than the first's)
    assert table.read_text() != damaged
    assert grammar_table._read(table, grammar._hashed) is not None


def test_a_folder_that_cannot_be_written_only_costs_the_time(fresh: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = fresh / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("HF_CACHE_LINT_CACHE_DIR", str(blocker))
    grammar = grammar_table.load()
    assert isinstance(grammar, parso.grammar.PythonGrammar) and grammar.parse("x = 1\n").get_code() == "x = 1\n"
    assert blocker.read_text() == "not a folder"


def test_no_cache_writes_nothing(fresh: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_CACHE_LINT_NO_CACHE", "1")
    assert isinstance(grammar_table.load(), parso.grammar.PythonGrammar)
    assert not (fresh / "grammar").exists()


def test_the_user_cache_folder_without_the_setting(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("HF_CACHE_LINT_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    table = grammar_table.table_path("ab" * 32)
    assert table is not None and table.parent == tmp_path / "hf-cache-lint"
    assert parso.__version__ in table.name and "abababab" in table.name
